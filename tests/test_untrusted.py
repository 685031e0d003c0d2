"""A cloned repository is untrusted input (issue 12, design.md §9): no code runs from it, nothing
leaks out of it, nothing hangs on it. One section per numbered finding, each as its repro says.

The MCP parts (time bound, SIGTERM, Host, argument caps, RSS) are in test_untrusted_server.py.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import run_mdmark

from mdmark.util import files as files_module
from mdmark.pipeline.cachestore import project_cache_dir, read_entry, write_entry
from mdmark.builders.export import export_html
from mdmark.util.files import atomic_write_text
from mdmark.queries.edit_index import update_index
from mdmark.queries.find import find_docs


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets its own per-user cache folder (in this process and in the commands it runs)."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def init(folder: Path, git: bool = True) -> Path:
    result = run_mdmark("init", str(folder), cwd=folder.parent)
    assert result.returncode == 0, result.stderr
    if git:
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def mdmark(project: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_mdmark(*args, cwd=project, timeout=timeout)


def assert_one_sentence(text: str, *parts: str) -> None:
    assert "内部のエラー" not in text and "Traceback" not in text, text
    assert text.strip().endswith("。"), text
    for part in parts:
        assert part in text, (part, text)


def export_doc(project: Path, name: str, text: str) -> tuple[str, str]:
    """Write ``docs/{name}.md``, export it (exit 0) and return the page and the warnings."""
    (project / "docs" / f"{name}.md").write_text(text, encoding="utf-8")
    result = mdmark(project, "export", f"docs/{name}.md")
    assert result.returncode == 0, result.stderr
    return (project / "docs" / f"{name}.html").read_text(encoding="utf-8"), result.stderr


# -- 1. a planted cache never runs ---------------------------------------------------------------


class Payload:
    """What an attacker commits: unpickling it runs a shell command that leaves a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.system, (f"id > {self.marker}",))


def test_planted_pickle_never_runs(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    marker = tmp_path / "PWNED"
    first = mdmark(project, "export", "docs/welcome.md")
    assert first.returncode == 0, first.stderr
    evil = pickle.dumps(Payload(marker))
    # The old in-tree location, as a repository would commit it.
    planted = project / ".mdmark_cache" / "ab"
    planted.mkdir(parents=True)
    (planted / ("ab" + "0" * 62 + ".doctree")).write_bytes(evil)
    # And the per-user location itself: every doctree entry replaced by the payload, with and
    # without the bytes where an HMAC goes.
    cache = project_cache_dir(project)
    trees = list(cache.rglob("*.doctree"))
    assert trees
    for i, tree in enumerate(trees):
        tree.write_bytes(evil if i % 2 == 0 else b"\0" * 32 + evil)
    for fragment in cache.rglob("*.html.json"):
        fragment.unlink()
    again = mdmark(project, "export", "docs/welcome.md")
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    assert not marker.exists()
    assert "はじめに" in (project / "docs" / "welcome.html").read_text(encoding="utf-8")
    # The planted entries were rebuilt as authentic ones.
    for tree in trees:
        data = read_entry(tree)
        assert data is not None and b"os" not in data[:40]


def test_damaged_or_foreign_entries_are_rebuilt_silently(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    assert mdmark(project, "export", "docs/welcome.md").returncode == 0
    cache = project_cache_dir(project)
    for entry in [*cache.rglob("*.doctree"), *cache.rglob("*.json")]:
        entry.write_bytes(entry.read_bytes()[:-7] + b"garbage")
    result = mdmark(project, "export", "docs/welcome.md")
    assert result.returncode == 0 and result.stderr == ""
    # An entry made with another user's key does not verify here.
    entry = next(cache.rglob("*.doctree"))
    write_entry(entry, b"mine")
    assert read_entry(entry) == b"mine"
    key = cache.parent / "key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o600)
    from mdmark.pipeline import cachestore

    cachestore._KEYS.clear()
    try:
        assert read_entry(entry) is None
    finally:
        cachestore._KEYS.clear()


def test_entries_are_written_in_place_and_never_through_a_planted_link(tmp_path: Path, user_cache: Path) -> None:
    cache = project_cache_dir(tmp_path)
    entry = cache / "ab" / "ab12.doctree"
    write_entry(entry, b"first")
    assert read_entry(entry) == b"first"
    assert entry.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in entry.parent.iterdir()] == [entry.name]  # no temp file left behind
    # A half-written entry (another writer, a crash) is only a miss, and the next write replaces it.
    entry.write_bytes(entry.read_bytes()[:10])
    assert read_entry(entry) is None
    write_entry(entry, b"second")
    assert read_entry(entry) == b"second"
    # A link planted where an entry goes is replaced, never written through.
    target = tmp_path / "victim"
    target.write_bytes(b"keep")
    planted = cache / "cd" / "cd34.json"
    planted.parent.mkdir(mode=0o700)
    planted.symlink_to(target)
    write_entry(planted, b"third")
    assert not planted.is_symlink() and read_entry(planted) == b"third"
    assert target.read_bytes() == b"keep"


def test_cache_lives_outside_the_work_tree(tmp_path: Path, user_cache: Path) -> None:
    project = init(tmp_path / "p")
    assert mdmark(project, "check").returncode == 0
    assert not (project / ".mdmark_cache").exists()
    cache = project_cache_dir(project)
    assert cache.is_dir() and cache.parent == user_cache / "mdmark"
    assert (user_cache / "mdmark" / "key").stat().st_mode & 0o777 == 0o600


# -- 2. writes never follow a planted temp file --------------------------------------------------


def test_planted_temp_symlink_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = init(tmp_path / "p")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    real_token = files_module.secrets.token_hex
    first = {"pending": True}

    def predictable(n: int) -> str:
        # The first temp name a write tries is the one planted below; later ones are random.
        if first["pending"]:
            first["pending"] = False
            return "aaaaaaaaaaaa"
        return real_token(n)

    monkeypatch.setattr(files_module.secrets, "token_hex", predictable)
    pid = os.getpid()
    for folder, name in ((project / "docs", "welcome.html"), (project, "index.yaml")):
        # The old per-process name and the exact name the next write will try first.
        (folder / f".{name}.{pid}.tmp").symlink_to(victim)
        (folder / f".{name}.{pid}-aaaaaaaaaaaa.mdmark-tmp").symlink_to(victim)
    export_html(project, "docs/welcome.md")
    first["pending"] = True
    update_index(project, "doc", "two", {"path": "docs/two.md", "title": "二"})
    assert victim.read_text(encoding="utf-8") == "keep me\n"
    assert not (project / "index.yaml").is_symlink()
    assert "id: two" in (project / "index.yaml").read_text(encoding="utf-8")
    assert "はじめに" in (project / "docs" / "welcome.html").read_text(encoding="utf-8")


def test_parallel_writes_to_one_file_all_succeed(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    errors: list[BaseException] = []
    texts = [f"<p>{n}</p>\n" * 2000 for n in range(20)]

    def write(text: str) -> None:
        try:
            atomic_write_text(target, text)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert target.read_text(encoding="utf-8") in texts
    assert [p.name for p in tmp_path.iterdir()] == ["out.html"]


def test_write_keeps_mode_and_cleans_leftovers_of_killed_writers(tmp_path: Path) -> None:
    target = tmp_path / "index.yaml"
    target.write_text("a: 1\n", encoding="utf-8")
    target.chmod(0o600)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    leftovers = [tmp_path / f".index.yaml.{dead.pid}.tmp", tmp_path / f".index.yaml.{dead.pid}-0123456789ab.mdmark-tmp"]
    for leftover in leftovers:
        leftover.write_text("half", encoding="utf-8")
    atomic_write_text(target, "a: 2\n")
    assert target.read_text(encoding="utf-8") == "a: 2\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["index.yaml"]
    target.chmod(0o444)
    atomic_write_text(target, "a: 3\n")
    assert target.stat().st_mode & 0o777 == 0o444


def test_kill_9_during_a_write_leaves_a_leftover_the_next_write_removes(tmp_path: Path) -> None:
    target = tmp_path / "docs.html"
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from mdmark.util import files\n"
        "def stop(*a, **k):\n"
        "    os.kill(os.getpid(), 9)\n"
        "files.os.replace = stop\n"
        f"files.atomic_write_text(Path({str(target)!r}), 'x')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".mdmark-tmp")]
    atomic_write_text(target, "<p>ok</p>\n")
    assert [p.name for p in tmp_path.iterdir()] == ["docs.html"]


def test_init_never_writes_through_a_dangling_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    (folder / "docs").mkdir(parents=True)
    outside = tmp_path / "outside.yaml"
    (folder / "index.yaml").symlink_to(outside)
    result = run_mdmark("init", str(folder), cwd=tmp_path)
    assert result.returncode == 1
    assert_one_sentence(result.stderr, "index.yaml")
    assert not outside.exists()
    assert sorted(p.name for p in folder.iterdir()) == ["docs", "index.yaml"]


def test_long_document_name_exports(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    name = "あ" * 80  # 240 bytes
    (project / "docs" / f"{name}.md").write_text("# 長い名前\n\n本文。\n", encoding="utf-8")
    result = mdmark(project, "export", f"docs/{name}.md")
    assert result.returncode == 0, result.stderr
    assert (project / "docs" / f"{name}.html").is_file()


# -- 3. pages embed nothing from outside the project ----------------------------------------------

SECRET = "SECRET-" + "k3y-0f-th3-r3ad3r-" * 8


def outside_project(tmp_path: Path) -> tuple[Path, list[str]]:
    """A git project whose documents point at files outside it in every embedding form."""
    secret = tmp_path / "secret.png"
    secret.write_text(SECRET, encoding="utf-8")
    (tmp_path / "secret.css").write_text(f"/* {SECRET} */ body {{ color: red; }}", encoding="utf-8")
    project = init(tmp_path / "p")
    (project / "docs" / "inner.png").symlink_to(secret)
    config = project / "mdmark.config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "  css: [../secret.css]\n", encoding="utf-8")
    depth = "../" * (len(tmp_path.parts) + 2)
    (project / "docs" / "leak.md").write_text(
        "# 漏れ\n"
        "\n"
        f"![a]({depth}{str(secret).lstrip('/')})\n"
        "\n"
        "![b](inner.png)\n"
        "\n"
        '<img src="../../secret.png">\n'
        "\n"
        "```{image} ../../secret.png\n"
        "```\n"
        "\n"
        "```{figure} ../../secret.png\n"
        "図\n"
        "```\n"
        "\n"
        "```{include} ../../secret.png\n"
        "```\n"
        "\n"
        "```{literalinclude} ../../secret.png\n"
        "```\n",
        encoding="utf-8",
    )
    return project, [f"{depth}{str(secret).lstrip('/')}", "inner.png", "../../secret.png"]


def assert_no_secret(html: str) -> None:
    assert SECRET not in html
    assert "r3ad3r" not in html  # also when highlighting split the text into tokens
    encoded = base64.b64encode(SECRET.encode()).decode()
    assert encoded[:40] not in html


def test_outside_files_are_not_embedded_and_are_drifts(tmp_path: Path) -> None:
    project, written = outside_project(tmp_path)
    result = mdmark(project, "export", "docs/leak.md")
    assert result.returncode == 0, result.stderr
    assert_no_secret((project / "docs" / "leak.html").read_text(encoding="utf-8"))
    warned = result.stderr.splitlines()
    outside = "プロジェクトのルートの外のファイルを指すので埋め込まず"
    lines = {line.split(":")[1] for line in warned if outside in line and line.startswith("docs/leak.md:")}
    assert lines == {"3", "5", "7", "9", "12", "16", "19"}, result.stderr
    assert any(line.startswith("mdmark.config.yaml:") and "html.css" in line and outside in line for line in warned)

    built = mdmark(project, "build")
    assert built.returncode == 0, built.stderr
    assert_no_secret((project / "dist" / "docs.html").read_text(encoding="utf-8"))

    check = mdmark(project, "check")
    drifts = [line for line in check.stdout.splitlines() if outside in line]
    kinds = sorted((line.split(":")[0], line.split(":")[1], line.split(":")[2].strip()) for line in drifts)
    assert kinds == sorted(
        [
            ("docs/leak.md", "3", "missing_image"),
            ("docs/leak.md", "5", "missing_image"),
            ("docs/leak.md", "7", "missing_image"),  # the raw <img>: an image fact too (issue 15)
            ("docs/leak.md", "9", "missing_image"),
            ("docs/leak.md", "12", "missing_image"),
            ("docs/leak.md", "16", "broken_link"),
            ("docs/leak.md", "19", "broken_link"),
            ("mdmark.config.yaml", "html.css[0]", "config_value"),
        ]
    ), check.stdout
    # The same sentence in check as in export, for the image at line 5.
    image_drift = next(line for line in drifts if ":5:" in line)
    assert image_drift.split("missing_image: ", 1)[1] in result.stderr


def test_files_inside_the_project_are_still_embedded(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    (project / "assets").mkdir()
    (project / "assets" / "note.txt").write_text("INSIDETEXT\n", encoding="utf-8")
    html, warnings = export_doc(
        project, "in", "# 中\n\n```{literalinclude} ../assets/note.txt\n```\n\n```{include} ../assets/note.txt\n```\n"
    )
    assert warnings == ""
    assert html.count("INSIDETEXT") == 2


def test_find_docs_counts_no_file_outside_the_project(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    (tmp_path / "outside.md").write_text("# 外\n\n" + "秘" * 5000 + "\n", encoding="utf-8")
    (project / "docs" / "link.md").symlink_to(tmp_path / "outside.md")
    update_index(project, "doc", "link", {"path": "docs/link.md", "title": "外"})
    result = find_docs(project, text="外", format="json")
    assert isinstance(result, dict)
    assert result["total_chars"] < 5000
    assert "chars" not in result["docs"][0] or result["docs"][0]["chars"] is None


# -- 4. raw HTML that navigates is dropped ----------------------------------------------------------


def test_meta_refresh_and_loading_elements_are_dropped(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    html, warnings = export_doc(
        project,
        "nav",
        "# 移動\n"
        "\n"
        '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">\n'
        "\n"
        '<base href="http://127.0.0.1:9/">\n'
        "\n"
        '<form action="http://127.0.0.1:9/"><input name="q"></form>\n'
        "\n"
        '文 <iframe src="http://127.0.0.1:9/"></iframe> 文。\n'
        "\n"
        '<link rel="prefetch" href="http://127.0.0.1:9/">\n'
        "\n"
        '<object data="x.swf"></object><embed src="x.swf">\n'
        "\n"
        '<a href="welcome.html">次へ</a>\n',
    )
    body = html.split("<body", 1)[1]
    for tag in ("<meta", "<base", "<form", "<iframe", "<link", "<object", "<embed"):
        assert tag not in body, tag
    assert '<a href="welcome.html">次へ</a>' in body
    warned = {line.split(":")[1] for line in warnings.splitlines() if "外したため" in line}
    assert warned == {"3", "5", "7", "9", "11", "13"}, warnings


# -- 5. hangs and exhaustion ----------------------------------------------------------------------


def alias_bomb() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\ndocs: []\n"


def test_alias_bomb_is_refused_fast(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    (project / "index.yaml").write_text(alias_bomb(), encoding="utf-8")
    assert len(alias_bomb()) < 1100
    for args in (["check"], ["find", "--tag", "x"], ["tags"], ["build"], ["index", "set", "doc", "x", "--item", '{"path": "docs/welcome.md", "title": "x"}']):
        result = mdmark(project, *args, timeout=30)
        assert result.returncode == 2, (args, result.stderr)
        assert_one_sentence(result.stderr, "index.yaml", "別名")
    config = project / "mdmark.config.yaml"
    config.write_text(alias_bomb().replace("docs: []", "index: index.yaml"), encoding="utf-8")
    result = mdmark(project, "check", timeout=30)
    assert result.returncode == 2
    assert_one_sentence(result.stderr, "mdmark.config.yaml", "別名")


def test_small_aliases_still_work(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    index = project / "index.yaml"
    text = index.read_text(encoding="utf-8").replace("    docs: [welcome]\n", "    docs: &d [welcome]\n")
    text = text.replace("\ntags:\n", "\n  - id: t2\n    term: 二つ目\n    definition: 別名で文書を指す用語。\n    docs: *d\ntags:\n")
    index.write_text(text, encoding="utf-8")
    assert mdmark(project, "check").returncode == 0


def test_deep_nesting_is_one_sentence(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    (project / "index.yaml").write_text("docs: " + "[" * 10000 + "]" * 10000 + "\n", encoding="utf-8")
    result = mdmark(project, "check", timeout=30)
    assert result.returncode == 2
    assert_one_sentence(result.stderr, "index.yaml", "入れ子")
    (project / "index.yaml").write_text("docs:\n" + "".join("  " * i + "- \n" for i in range(1, 200)), encoding="utf-8")
    result = mdmark(project, "check", timeout=30)
    assert result.returncode == 2
    assert_one_sentence(result.stderr, "index.yaml")


def test_twenty_thousand_headings_check_in_seconds(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    body = "".join(f"## 見出し {i}\n\n本文 {i}。[前へ](#見出し-{max(i - 1, 0)})\n\n" for i in range(20000))
    (project / "docs" / "big.md").write_text("# 大きい\n\n" + body, encoding="utf-8")
    # A bound, not a measurement: the list lookup this replaces took minutes at this size.
    result = mdmark(project, "check", timeout=90)
    assert "big.md" in result.stdout


def test_anchor_collection_is_linear() -> None:
    """100,000 ids in one doctree: a list lookup per id would take hours; a set takes a moment."""
    script = (
        "from docutils import nodes\n"
        "from docutils.utils import new_document\n"
        "from mdmark.pipeline.extract import extract\n"
        "doc = new_document('x')\n"
        "for i in range(100000):\n"
        "    doc += nodes.paragraph('', '', ids=[f'id-{i}'], names=[f'name-{i}'])\n"
        "parts = extract(doc, 'x', {}, '')\n"
        "assert len(parts['anchors']) == 200000\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_fifo_document_is_a_drift_not_a_hang(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    os.mkfifo(project / "docs" / "fifo.md")
    built = mdmark(project, "build", timeout=60)
    assert built.returncode == 1
    assert_one_sentence(built.stderr, "docs/fifo.md", "ふつうのファイルではない")
    check = mdmark(project, "check", timeout=60)
    assert any(line.startswith("docs/fifo.md: ") and "ふつうのファイルではない" in line for line in check.stdout.splitlines())
    exported = mdmark(project, "export", "docs/fifo.md", timeout=60)
    assert exported.returncode == 1
    assert_one_sentence(exported.stderr, "docs/fifo.md")


def worker_children(pid: int) -> list[int]:
    """The processes below ``pid`` (workers forked by a fork server are its grandchildren)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
    found: list[int] = []
    below = {pid}
    for _ in range(4):
        for child, parent in parents.items():
            if parent in below and child not in below:
                below.add(child)
                found.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_kill_9_of_build_leaves_no_worker(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    for i in range(80):
        (project / "docs" / f"d{i:02}.md").write_text(
            f"# 文書 {i}\n\n" + "".join(f"## 節 {j}\n\n本文 {j}。\n\n" for j in range(300)), encoding="utf-8"
        )
    proc = subprocess.Popen([sys.executable, "-m", "mdmark", "build"], cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        workers = worker_children(proc.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2, "build started no worker processes"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.1)
    assert not any(alive(p) for p in workers)


# -- 6. internal errors become refusals -------------------------------------------------------------


def test_bad_arguments_are_sentences_not_internal_errors(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    long_name = "docs/" + "a" * 300 + ".md"
    index = project / "index.yaml"
    index.write_text(index.read_text(encoding="utf-8") + f"  - id: long\n    path: {long_name}\n    title: 長い\n", encoding="utf-8")
    check = mdmark(project, "check")
    assert "index_schema" in check.stdout and "内部のエラー" not in check.stdout + check.stderr
    index.write_text(index.read_text(encoding="utf-8").split("  - id: long")[0], encoding="utf-8")

    cases = [
        ("check", "--config", "c" * 100_000),
        ("export", "x" * 100_000 + ".md"),
        ("index", "set", "doc", "x", "--item", "[" * 5000 + "]" * 5000),
        ("index", "set", "doc", "x", "--item", '{"path": "docs/a.md", "title": "\\ud800"}'),
        ("index", "set", "doc", "x", "--item", json.dumps({"path": "docs/" + "b" * 300 + ".md", "title": "t"})),
        ("find", "--cursor", base64.urlsafe_b64encode(b"[" * 30000 + b"]" * 30000).decode()),
    ]
    before = index.read_bytes()
    for args in cases:
        result = mdmark(project, *args)
        assert result.returncode in (1, 2), (args[:2], result.stderr)
        assert_one_sentence(result.stderr)
    assert index.read_bytes() == before


def test_init_into_a_folder_that_cannot_be_written(tmp_path: Path) -> None:
    result = run_mdmark("init", "/proc/mdmark-cannot-be-here", cwd=tmp_path)
    assert result.returncode == 1
    assert_one_sentence(result.stderr, "/proc/mdmark-cannot-be-here")


# -- 7. smaller ------------------------------------------------------------------------------------


def test_index_set_keeps_crlf_and_mode(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    index = project / "index.yaml"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    index.chmod(0o600)
    result = mdmark(project, "index", "set", "doc", "two", "--item", '{"path": "docs/welcome.md", "title": "二"}')
    assert result.returncode == 0, result.stderr
    data = index.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") and b"id: two\r\n" in data
    assert index.stat().st_mode & 0o777 == 0o600


def test_check_text_output_escapes_control_characters(tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    index = project / "index.yaml"
    index.write_text(index.read_text(encoding="utf-8").replace("title: はじめに", 'title: "は\\e[31mじ\\aめに"'), encoding="utf-8")
    (project / "docs" / "new\nline.md").write_text("# 改行\n", encoding="utf-8")
    result = mdmark(project, "check")
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\u001b[31m" in result.stdout
    assert all(line.startswith(("docs/", "index.yaml", "mdmark.config.yaml")) for line in result.stdout.splitlines()), result.stdout
    found = mdmark(project, "find", "--format", "json")
    assert "\x1b" not in found.stdout and "\x07" not in found.stdout
    assert json.loads(found.stdout)["docs"][0]["title"] == "は\x1b[31mじ\x07めに"


def test_exported_page_does_not_navigate_in_chromium(tmp_path: Path) -> None:
    from cdp import Browser, chromium

    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed")
    moved = tmp_path / "moved.html"
    moved.write_text("<!DOCTYPE html><title>moved</title><p>moved</p>\n", encoding="utf-8")
    meta = f'<meta http-equiv="refresh" content="0;url={moved.as_uri()}">'
    control = tmp_path / "control.html"
    control.write_text(f"<!DOCTYPE html><title>control</title>{meta}<p>control</p>\n", encoding="utf-8")
    project = init(tmp_path / "p")
    (project / "docs" / "nav.md").write_text(f"# 移動\n\n{meta}\n\n本文。\n", encoding="utf-8")
    assert mdmark(project, "export", "docs/nav.md").returncode == 0
    page = project / "docs" / "nav.html"
    browser = Browser(executable)
    try:
        browser.call("Page.enable")

        def location() -> str:
            # Asked while the page navigates, the browser answers "Inspected target navigated or
            # closed" (seen on a loaded machine): asked again once the new page is there.
            for _ in range(50):
                try:
                    return str(browser.evaluate("location.href"))
                except RuntimeError as error:
                    if "navigated" not in str(error):
                        raise
                    time.sleep(0.1)
            raise AssertionError("the page kept navigating")

        def where_after(url: str) -> str:
            browser.open(url)
            deadline = time.monotonic() + 5
            href = location()
            while time.monotonic() < deadline and href == url:
                time.sleep(0.1)
                href = location()
            return href

        # The control page (the same element, not exported) does navigate in this browser ...
        assert where_after(control.as_uri()) == moved.as_uri()
        # ... the exported page stays where it was opened.
        assert where_after(page.as_uri()) == page.as_uri()
    finally:
        browser.close()


def test_raw_and_csv_table_files_are_confined_too(tmp_path: Path) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text(f"a,{SECRET}\n", encoding="utf-8")
    project = init(tmp_path / "p")
    (project / "data.csv").write_text("x,INSIDECELL\n", encoding="utf-8")
    html, warnings = export_doc(
        project,
        "files",
        "# ファイル\n"
        "\n"
        "```{raw} html\n"
        f":file: {secret}\n"
        "```\n"
        "\n"
        "```{csv-table}\n"
        ":file: ../../secret.csv\n"
        "```\n"
        "\n"
        "```{csv-table}\n"
        ":url: http://127.0.0.1:9/x.csv\n"
        "```\n"
        "\n"
        "```{csv-table}\n"
        ":file: ../data.csv\n"
        "```\n",
    )
    assert_no_secret(html)
    assert "INSIDECELL" in html
    warned = {line.split(":")[1] for line in warnings.splitlines() if "プロジェクトのルートの外" in line}
    assert warned == {"3", "7", "11"}, warnings
