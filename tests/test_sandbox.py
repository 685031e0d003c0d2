"""Issue 28, the parts that make a repository's content powerless by construction: substitutions in
a sandbox, ``:parser:`` limited, no docutils configuration files, one door to the file system
(and a scan of the code for any other), a real HTML sanitizer, bounded front matter, titles and
prompt arguments, and control characters escaped on every output.

The hostile repositories in ``tests/hostile/`` run the same attacks end to end through every front-end.
"""

from __future__ import annotations

import ast
import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_mdmark

from mdmark.host import sandbox
from mdmark.host.confine import PARSERS, UnknownParser, parser_option
from mdmark.html.rawhtml import sanitize
from mdmark.server.prompts import MAX_PROMPT_VALUE_CHARS, PromptError, render_prompt
from mdmark.util import door
from mdmark.util.text import SafeWriter

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def project(folder: Path, docs: dict[str, str], config: str = "") -> Path:
    """A git repository with ``mdmark.config.yaml`` (``docs/**/*.md``) and the given files."""
    (folder / "docs").mkdir(parents=True)
    (folder / "mdmark.config.yaml").write_text('docs: {include: ["docs/**/*.md"]}\n' + config, encoding="utf-8")
    for name, text in docs.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def mdmark(folder: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_mdmark(*args, cwd=folder, timeout=timeout)


def drifts(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert "Traceback" not in result.stderr + result.stdout and "内部のエラー" not in result.stderr + result.stdout
    return result.stdout.splitlines()


def one_sentence(line: str) -> None:
    message = line.split(": ", 2)[-1]
    assert message.endswith("。") and message.count("。") == 1, line


# -- one door: no other read of a repository file in the code ----------------------------------------

#: Reads of files that are not a repository's content, each with its reason. Keys: (module path,
#: enclosing function). A new read of a document, an include, an image or a stylesheet goes through
#: mdmark/util/door.py instead.
ALLOWED_READS: dict[tuple[str, str], str] = {
    ("mdmark/util/door.py", "read_stat"): "the door itself",
    ("mdmark/util/door.py", "_open_checked"): "the door itself",
    ("mdmark/util/files.py", "read_regular_stat"): "the primitive under files.read_text (config, index, package data)",
    ("mdmark/util/files.py", "read_regular"): "the primitive under files.read_text",
    ("mdmark/util/files.py", "read_text"): "config and index YAML (named by the user or the config; regular, size-capped)",
    ("mdmark/util/files.py", "_atomic_write"): "writing output (a temp file created exclusively)",
    ("mdmark/lsp/diagnostics.py", "_as_on_disk"): "an editor's saved buffer against its file (regular, size-capped)",
    ("mdmark/config/myst.py", "myst_extensions"): "the installed MyST's own config module (the environment's, never the project's), for its literal list",
    ("mdmark/queries/adopt.py", "ignored_patterns"): "init: the project's top .gitignore, by files.read_text, for the generated documents it names",
    ("mdmark/config/yamlio.py", "load_yaml"): "the config and the index: what defines the project, read by files.read_text",
    ("mdmark/queries/edit_index.py", "update_index"): "the index, read by files.read_text before it is rewritten",
    ("mdmark/queries/edit_index.py", "locked"): "opens the index's folder to lock it, reads nothing",
    ("mdmark/pipeline/cachestore.py", "read_entry_view"): "the user's cache (authenticated entries)",
    ("mdmark/pipeline/cachestore.py", "write_entry"): "the user's cache",
    ("mdmark/pipeline/cachestore.py", "_create"): "the user's cache: a new entry, created exclusively without following a link",
    ("mdmark/pipeline/cachestore.py", "_replace_entry"): "the user's cache: an entry replaced through a temp file created exclusively",
    ("mdmark/pipeline/cachestore.py", "_read_key"): "the user's cache key (0600)",
    ("mdmark/pipeline/cachestore.py", "secret_key"): "the user's cache key (0600)",
    ("mdmark/pipeline/resident.py", "serve"): "a resident zygote's stdin becomes /dev/null once its orders are read",
    ("mdmark/pipeline/resident.py", "__enter__"): "a resident zygote's folder opened as a directory, its socket reached through /proc/self/fd",
    ("mdmark/workspace/snapshot.py", "_writer"): "the lock of a snapshot written by a child (the project's cache folder), and /dev/null for its streams",
    ("mdmark/workspace/snapshot.py", "_wait_for_writer"): "the lock of a snapshot written by a child (the project's cache folder)",
    ("mdmark/pipeline/resident.py", "_lock"): "the lock file of one resident zygote, in the user's private folder of them",
    ("mdmark/pipeline/resident.py", "_token"): "the resident zygotes' token (0600), in the user's private folder of them",
    ("mdmark/pipeline/resident.py", "_recorded_pid"): "the pid a resident zygote's starter recorded beside its socket",
    ("mdmark/html/page.py", "_resource"): "package data (templates)",
    ("mdmark/html/page.py", "_static_css"): "package data (the design CSS)",
    ("mdmark/html/page.py", "check_out_path"): "the file already at the output path (4 KiB), to refuse replacing what is not HTML",
    ("mdmark/guide/reader.py", "page_text"): "package data (the guide)",
    ("mdmark/host/confinfo.py", "conf_digest"): "conf.py's digest (whether it runs is the trust's decision)",
    ("mdmark/cli/main.py", "main"): "os.devnull, when the reader of stdout went away",
    ("mdmark/cli/scaffold.py", "_write_new"): "mdmark init writing its own new files (O_EXCL)",
    ("mdmark/host/held_markup.py", "__init__"): "an extension's Python sources parsed with ast (never run) for the names it registers; regular files, size-capped",
    ("mdmark/pipeline/limits.py", "_cgroup_limits"): "/proc/self/cgroup and the control group's memory.max: the machine's memory for the workers' caps",
    ("mdmark/queries/adopt.py", "add_unindexed"): "the index, read by files.read_text before documents are added to it",
    ("mdmark/util/conflock.py", "ensure_lock"): "this user's lock file in the temporary folder (O_NOFOLLOW, 0600), never a repository file",
    ("mdmark/util/gitbase.py", "_same"): "a working-tree file hashed for --base (regular, and only when its size is the base blob's)",
    ("mdmark/host/trust_ran.py", "_take_note"): "the lapse note a trusted worker left in the project's cache folder, by files.read_text (regular, size-capped); it can only make the trust lapse",
    ("mdmark/util/landlock.py", "_add"): "an O_PATH handle of a folder granted to a confined worker: reads nothing",
    ("mdmark/host/static_conf.py", "read_conf"): "conf.py read as text for its literal settings (never run), regular and size-capped",
    ("mdmark/host/static_conf.py", "follow_exec"): "a file conf.py exec()s, in conf.py's folder, read as its text (never run), regular and size-capped",
    ("mdmark/host/trust_fingerprint.py", "_autodoc_targets"): "the project's local modules scanned for the trust digest (regular, size-capped), never embedded",
    ("mdmark/host/trust_fingerprint.py", "file_digest"): "the digest of conf.py and its local modules for `mdmark trust`",
    ("mdmark/host/trust_records.py", "read_records"): "the user's trust records (config folder, 0600)",
    ("mdmark/host/trust_records.py", "write_records"): "the user's trust records (config folder, 0600)",
    ("mdmark/host/trust_records.py", "locked"): "the lock file of the user's trust records",
    ("sphinx_ext/facts.py", "on_doctree_read"): "inside sphinx-build: the user's own build reads its own documents",
    ("mdmark/pipeline/limits.py", "mapped_bytes"): "/proc/self/statm: the worker's own address space, before its limit is set",
    ("mdmark/pipeline/limits.py", "_cpu_ticks"): "/proc/PID/stat: a worker's CPU time so far, for its wall-clock bound",
    ("mdmark/server/app.py", "serve"): "the stdio channel's own file descriptor (no file is opened)",
    ("mdmark/util/conflock.py", "conf_lock"): "this user's lock file in the temporary folder (O_NOFOLLOW, 0600), never a repository file",
}

#: Names that read a file when called.
_READERS = {"open", "read_text", "read_bytes", "read_regular", "read_regular_stat", "FileInput", "fdopen"}


def _reads() -> list[tuple[str, str, int, str]]:
    found = []
    for file in sorted([*(ROOT / "mdmark").rglob("*.py"), *(ROOT / "sphinx_ext").rglob("*.py")]):
        rel = file.relative_to(ROOT).as_posix()
        tree = ast.parse(file.read_text(encoding="utf-8"))
        # The enclosing function of every call.
        owners: dict[int, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    owners.setdefault(id(inner), node.name)
        # Innermost wins: walk again from the innermost functions.
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call):
                        owners[id(inner)] = node.name
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in _READERS:
                continue
            # door.read_text(...) is the door; Project.open / Image.open are not file reads of text.
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("door", "Project", "cls", "Image"):
                continue
            found.append((rel, owners.get(id(node), "<module>"), node.lineno, ast.unparse(node)[:80]))
    return found


def test_every_read_of_a_file_goes_through_the_door_or_is_listed() -> None:
    stray = [f"{rel}:{line} in {owner}: {code}" for rel, owner, line, code in _reads() if (rel, owner) not in ALLOWED_READS]
    assert stray == [], "reads of files outside mdmark/util/door.py and the allow-list:\n" + "\n".join(stray)


def test_the_scan_sees_reads() -> None:
    """A scan that finds nothing guards nothing: it sees the door's own read and the allowed ones."""
    seen = {(rel, owner) for rel, owner, _, _ in _reads()}
    assert ("mdmark/util/door.py", "read_stat") in seen
    assert ("mdmark/pipeline/cachestore.py", "read_entry_view") in seen
    assert len(seen & set(ALLOWED_READS)) >= 10
    assert sorted(set(ALLOWED_READS) - seen) == [], "listed reads that no longer exist: take them off the list"


def test_door_refusals(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok.txt").write_text("ok", encoding="utf-8")
    (root / "big.txt").write_bytes(b"x" * 2000)
    os.mkfifo(root / "fifo.md")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    (tmp_path / "outside.txt").write_text("secret", encoding="utf-8")
    real = root.resolve()
    assert door.read(root / "ok.txt", real, "ファイル", "ok.txt") == b"ok"
    cases = {
        "fifo.md": "special",
        ".": "special",
        "link.txt": "outside",
        "../outside.txt": "outside",
        "../missing.txt": "outside",  # outside says nothing of what exists there
        "missing.txt": "missing",
        "big.txt": "big",
    }
    for name, reason in cases.items():
        started = time.monotonic()
        with pytest.raises(door.Refused) as refused:
            door.read(root / name, real, "ファイル", name, limit=1000)
        assert time.monotonic() - started < 2  # a FIFO never blocks
        assert refused.value.reason == reason, name
        assert refused.value.message.endswith("。") and refused.value.message.count("。") == 1
        assert name in refused.value.message


# -- templates and parsers are sandboxed -------------------------------------------------------------


def test_sandbox_keeps_variables_and_filters() -> None:
    context = {"name": "mdmark", "items": ["a", "b"], "ver": {"major": 1}}
    assert sandbox.render("name", context) == "mdmark"
    assert sandbox.render(" name | upper ", context) == "MDMARK"
    assert sandbox.render("items | join(', ')", context) == "a, b"
    assert sandbox.render("ver.major + 1", context) == "2"
    assert sandbox.render("'x' * 3", context) == "xxx"
    assert sandbox.render("name | replace('md', 'MD')", context) == "MDmark"
    assert sandbox.render("('abc' | list) | join('-')", context) == "a-b-c"
    assert sandbox.render("range(3) | join(',')", context) == "0,1,2"


@pytest.mark.parametrize(
    "expression",
    [
        'cycler.__init__.__globals__.os.system("touch PWNED")',
        "joiner.__init__.__globals__",
        "''.__class__.__mro__[1].__subclasses__()",
        "namespace.__init__.__globals__['__builtins__']",
        "items.append(1)",
        "ver.update(a=1)",
        "'x' * 100000000",
        "2 ** 100000",
        "'%99999999d' % 1",
        "'{:>99999999}'.format(1)",
        "range(100000) | join('x' * 100000)",
        "'x' | center(1000000000)",
        "lipsum(100000)",
        "(" * 3000 + "1" + ")" * 3000,
        "'ab'.join(items)",
        "' '.expandtabs(100000)",
    ],
)
def test_sandbox_refuses_walks_and_blow_ups(expression: str) -> None:
    context = {"items": [1], "ver": {"a": 1}}
    started = time.monotonic()
    with pytest.raises(Exception) as raised:
        sandbox.render(expression, context)
    assert time.monotonic() - started < 5
    assert not isinstance(raised.value, MemoryError | RecursionError)


def test_parser_option_names_only_mdmarks_parsers(monkeypatch: pytest.MonkeyPatch) -> None:
    imported: list[str] = []
    import importlib

    real = importlib.import_module

    def spy(name: str, *args: object) -> object:
        imported.append(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", spy)
    for evil in ("antigravity", "os", "this", "http.server", "mdmark.cli.main", "docutils.parsers.null"):
        value = parser_option(evil)
        assert isinstance(value, UnknownParser)
    assert imported == []
    for name in PARSERS:
        assert parser_option(name) is not None


def test_substitutions_and_parser_through_check(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "---\nmyst:\n  substitutions:\n    who: 世界\n---\n# 題\n\n"
            "こんにちは {{ who }} と {{ who | replace('世', 'せ') }}。\n\n"
            '{{ cycler.__init__.__globals__.os.system("touch PWNED") }}\n\n'
            "```{include} inc.md\n:parser: antigravity\n```\n",
            "docs/inc.md": "含める本文。\n",
        },
        config="markdown: {extensions: [substitution]}\n",
    )
    result = mdmark(repo, "check")
    lines = drifts(result)
    assert not list(tmp_path.rglob("PWNED"))
    found = {line.split(":")[1]: line for line in lines if line.startswith("docs/x.md:")}
    assert "置き換え" in found["10"] and "syntax" in found["10"], lines
    assert "`:parser:` の `antigravity`" in found["12"], lines
    for line in found.values():
        one_sentence(line)
    exported = mdmark(repo, "export", "docs/x.md")
    assert exported.returncode == 0, exported.stderr
    page = (repo / "docs" / "x.html").read_text(encoding="utf-8")
    assert "こんにちは 世界 と せ界。" in page
    assert "含める本文" not in page


def test_front_matter_cannot_enable_what_the_config_disabled(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "---\nmyst:\n  enable_extensions: [substitution, dollarmath]\n  substitutions:\n"
            "    evil: x\n---\n# 題\n\n{{ cycler.__init__.__globals__.os.system('touch PWNED') }}\n",
        },
        config="markdown: {extensions: []}\n",
    )
    lines = drifts(mdmark(repo, "check"))
    assert not list(tmp_path.rglob("PWNED"))
    held = [line for line in lines if "enable_extensions" in line]
    assert len(held) == 1 and "`dollarmath`・`substitution`" in held[0], lines
    one_sentence(held[0])
    exported = mdmark(repo, "export", "docs/x.md")
    page = (repo / "docs" / "x.html").read_text(encoding="utf-8")
    assert "cycler" in page  # not a substitution here: the text stays text


def test_docutils_never_reads_a_configuration_file(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n", encoding="utf-8")
    repo = project(tmp_path / "p", {"docs/x.md": "# 題\n\n本文。\n"})
    conf = f"[general]\nrecord_dependencies: {victim}\nhalt_level: 1\n"
    (repo / "docutils.conf").write_text(conf, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".docutils").write_text(conf, encoding="utf-8")
    env_conf = tmp_path / "env.conf"
    env_conf.write_text(conf, encoding="utf-8")
    for extra in ({}, {"HOME": str(home)}, {"DOCUTILSCONFIG": str(env_conf)}):
        env = {**os.environ, **extra}
        for args in (["check"], ["export", "docs/x.md"], ["build"]):
            result = subprocess.run(
                [sys.executable, "-m", "mdmark", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
            )
            assert result.returncode in (0, 1), result.stderr
            assert "Traceback" not in result.stderr
            assert victim.read_text(encoding="utf-8") == "keep me\n", (extra, args)


def test_standard_includes_stay_in_docutils_folder(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-standard-include\n", encoding="utf-8")
    depth = "../" * 12
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "# 題\n\n"
            f"```{{include}} <{depth}{str(secret).lstrip('/')}>\n```\n\n"
            f"```{{include}} <{depth}etc/passwd>\n:literal:\n```\n\n"
            "```{include} <isonum.txt>\n```\n",
        },
    )
    lines = drifts(mdmark(repo, "check"))
    outside = [line for line in lines if "プロジェクトのルートの外" in line]
    assert {line.split(":")[1] for line in outside} == {"3", "6"}, lines
    exported = mdmark(repo, "export", "docs/x.md")
    page = (repo / "docs" / "x.html").read_text(encoding="utf-8")
    assert "SECRET-standard-include" not in page and "root:x:" not in page


def test_non_regular_and_huge_includes_are_refused_at_their_line(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "# 題\n\n```{include} fifo.md\n```\n\n```{literalinclude} big.txt\n```\n\n"
            "```{csv-table}\n:file: fifo.md\n```\n\n```{include} sub\n```\n",
        },
    )
    os.mkfifo(repo / "docs" / "fifo.md.in")
    os.rename(repo / "docs" / "fifo.md.in", repo / "docs" / "fifo.md")
    (repo / "docs" / "big.txt").write_bytes(b"x\n" * (3 * 1024 * 1024))
    (repo / "docs" / "sub").mkdir()
    started = time.monotonic()
    result = mdmark(repo, "check", timeout=60)
    assert time.monotonic() - started < 60
    lines = [line for line in drifts(result) if line.startswith("docs/x.md:")]
    by_line = {line.split(":")[1]: line for line in lines}
    assert "ふつうのファイルではない" in by_line["3"], lines
    assert "読める大きさ" in by_line["6"], lines
    assert "ふつうのファイルではない" in by_line["9"], lines
    assert "ふつうのファイルではない" in by_line["13"], lines
    for line in by_line.values():
        one_sentence(line)


def test_what_one_document_includes_is_bounded_once_with_nested_includes_counted(tmp_path: Path) -> None:
    from mdmark.host.confine import INCLUDED_BYTES

    # `x.md` includes `a.md` four times, which includes a 1.5 MB `big.txt` (literal: cheap to parse):
    # 6 MB to read in all, over the 5 MB one document may be; the fourth `big.txt` passes it.
    # `small.md` reads 4.5 MB: each document counts its own reads.
    # (MyST reads a nested include's path from the including document's folder.)
    literal = "```{include} parts/big.txt\n:literal:\n```\n\n"
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "# 題\n\n" + "```{include} parts/a.txt\n```\n\n" * 4,
            "docs/small.md": "# 小\n\n" + literal * 3,
            "docs/parts/a.txt": "A-START\n\n" + literal + "A-END\n",
            "docs/parts/big.txt": "BIGPART\n" + ("x" * 1023 + "\n") * (1536 - 1),
        },
    )
    assert 4.5 * 1024 * 1024 < INCLUDED_BYTES < 6 * 1024 * 1024
    lines = drifts(mdmark(repo, "check"))
    over = [line for line in lines if "取り込むファイルが合わせて上限" in line]
    assert len(over) == 1 and over[0].startswith("docs/x.md:"), lines  # said once, for the document
    assert not [line for line in over if line.startswith("docs/small.md")], lines
    one_sentence(over[0])
    mdmark(repo, "export", "docs/x.md")
    page = (repo / "docs" / "x.html").read_text(encoding="utf-8")
    assert (page.count("A-START"), page.count("BIGPART"), page.count("A-END")) == (4, 3, 4)
    mdmark(repo, "export", "docs/small.md")
    assert (repo / "docs" / "small.html").read_text(encoding="utf-8").count("BIGPART") == 3


# -- a real sanitizer --------------------------------------------------------------------------------

BYPASSES = [
    '<me<meta>ta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">',
    '<ba<base>se href="http://127.0.0.1:9/">',
    '<ifr<iframe>ame src="http://127.0.0.1:9/"></iframe>',
    '<fo<form>rm action="http://127.0.0.1:9/"><input name=q type=text></form>',
    '<META HTTP-EQUIV="refresh" CONTENT="0;url=x">',
    "<meta\nhttp-equiv=refresh content='0;url=x'>",
    '<svg><script>alert(1)</script></svg>',
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    "<style>body{background:url(http://127.0.0.1:9/)}</style>",
    '<div style="background:url(http://127.0.0.1:9/)">x</div>',
    "<!--><meta http-equiv=refresh content=0>-->",
    '<object data="x.swf"></object><embed src="x.swf">',
    '<link rel="prefetch" href="http://127.0.0.1:9/">',
    '<p title="</p><meta http-equiv=refresh content=0>">x</p>',
    "<scr<script>ipt>alert(1)</script>",
    '<details ontoggle="alert(1)" open><summary>s</summary></details>',
]


@pytest.mark.parametrize("payload", BYPASSES)
def test_sanitizer_leaves_no_working_tag(payload: str) -> None:
    cleaned, _, _ = sanitize(payload, lambda src: None)
    lowered = cleaned.lower()
    for bad in ("<meta", "<base", "<iframe", "<form", "<script", "<style", "<svg", "<object", "<embed", "<link"):
        assert bad not in lowered, (payload, cleaned)
    assert "javascript:" not in lowered and "onerror" not in lowered and "ontoggle" not in lowered
    assert "data:text" not in lowered and "style=" not in lowered


def test_sanitizer_keeps_what_documentation_needs() -> None:
    kept = [
        "<details><summary>詳しく</summary>",
        "</details>",
        "<kbd>",
        "</kbd>",
        "H<sub>2</sub>O x<sup>2</sup>",
        "一<br>二",
        '<span class="note">注</span>',
        '<div class="box">',
        "</div>",
        '<i class="fa">i</i>',
        '<table><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>',
        '<a href="other.html#x">リンク</a>',
        '<a href="https://example.com/">外</a>',
        '<abbr title="HyperText">HTML</abbr>',
        "<mark>印</mark>",
    ]
    for html in kept:
        cleaned, dropped, handlers = sanitize(html)
        assert cleaned == html, (html, cleaned)
        assert dropped == [] and handlers == []
    cleaned, _, _ = sanitize('<img src="a.png" alt="絵">', lambda src: "data:image/png;base64,AAAA" if src == "a.png" else None)
    assert cleaned == '<img src="data:image/png;base64,AAAA" alt="絵">'


def test_sanitizer_names_what_it_dropped() -> None:
    _, dropped, handlers = sanitize('<meta http-equiv=refresh content=0><x-widget>t</x-widget><a href="javascript:x" onclick="y">a</a>')
    assert dropped == ["meta", "x-widget"]
    assert handlers == ["href", "onclick"]


def test_bypass_payloads_in_an_exported_page(tmp_path: Path) -> None:
    body = "\n\n".join(BYPASSES)
    repo = project(tmp_path / "p", {"docs/x.md": f"# 題\n\n{body}\n\n<details><summary>要約</summary>\n\n中身。\n\n</details>\n"})
    result = mdmark(repo, "export", "docs/x.md")
    assert result.returncode == 0, result.stderr
    page = (repo / "docs" / "x.html").read_text(encoding="utf-8")
    article = page.split('<article class="mdmark-doc">', 1)[1].split("</article>", 1)[0].lower()
    for bad in ("<meta", "<base", "<iframe", "<form", "<script", "<svg", "<object", "<embed", "<link", "javascript:", "onerror", "ontoggle"):
        assert bad not in article, bad
    assert "<details><summary>要約</summary>" in article and "</details>" in article
    for line in result.stderr.splitlines():
        one_sentence(line)


# -- every input bounded -----------------------------------------------------------------------------


def alias_bomb(indent: str = "  ") -> str:
    lines = [f'{indent}a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        lines.append(f"{indent}a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_in_front_matter_is_one_sentence(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "---\nmyst:\n  substitutions:\n" + alias_bomb("    ") + "---\n# 題\n\n{{ a9 }}\n",
            "docs/deep.md": "---\nk: " + "[" * 5000 + "]" * 5000 + "\n---\n# 深い\n",
        },
        config="markdown: {extensions: [substitution]}\n",
    )
    started = time.monotonic()
    result = mdmark(repo, "check", timeout=60)
    assert time.monotonic() - started < 60
    lines = drifts(result)
    bomb = [line for line in lines if line.startswith("docs/x.md:") and "別名" in line]
    assert len(bomb) == 1, lines
    one_sentence(bomb[0])
    deep = [line for line in lines if line.startswith("docs/deep.md:") and "入れ子" in line]
    assert len(deep) == 1, lines
    exported = mdmark(repo, "export", "docs/x.md", timeout=60)
    assert exported.returncode == 0 and "lol" not in (repo / "docs" / "x.html").read_text(encoding="utf-8")


def test_a_1200_character_title_works_everywhere(tmp_path: Path) -> None:
    title = "長" * 600 + "x" * 600
    repo = project(
        tmp_path / "p",
        {
            "docs/a.md": f"# {title}\n\n本文。\n",
            "docs/b.md": f"# 二\n\n{title} を参照。\n",
            "index.yaml": f"docs:\n  - {{id: a, path: docs/a.md, title: {title}}}\n  - {{id: b, path: docs/b.md, title: 二}}\n",
        },
        config="index: index.yaml\n",
    )
    for args in (["check"], ["build"], ["export", "docs/a.md"], ["graph", "--format", "json"], ["find", "--related-to", "a"]):
        result = mdmark(repo, *args)
        assert "内部のエラー" not in result.stderr and "Traceback" not in result.stderr, (args, result.stderr)
        assert result.returncode in (0, 1), (args, result.stderr)


def test_prompt_arguments_are_bounded_in_japanese() -> None:
    bad: list[tuple[object, object]] = [
        (123, None),
        ("x" * 10_000, None),
        ("explain_doc", ["id", "a"]),
        ("explain_doc", {f"k{i}": "v" for i in range(100)}),
        ("explain_doc", {"id": 5}),
        ("explain_doc", {"id": "a" * (MAX_PROMPT_VALUE_CHARS + 1)}),
        ("explain_doc", {"x" * 1000: "a"}),
    ]
    for name, arguments in bad:
        with pytest.raises(PromptError) as refused:
            render_prompt(name, arguments)  # type: ignore[arg-type]
        message = str(refused.value)
        assert message.endswith("。") and len(message) < 400, message
        assert any("\u3040" <= ch <= "\u30ff" for ch in message)
    _, text = render_prompt("explain_doc", {"id": "a\x1b[31mb"})
    assert "\x1b" not in text and "\\u001b[31mb" in text


def test_safe_writer_escapes_every_control_character() -> None:
    import io

    raw = io.StringIO()
    writer = SafeWriter(raw)
    writer.write("a\x1b[2Jb\tc\nd\x07\x9b\r")
    assert raw.getvalue() == "a\\u001b[2Jb\tc\nd\\u0007\\u009b\\u000d"


def test_cli_outputs_escape_control_characters(tmp_path: Path) -> None:
    repo = project(
        tmp_path / "p",
        {
            "docs/x.md": "# 題\x1b]0;title\x07\n\n本文\x1b[2J。\n",
            "index.yaml": 'docs:\n  - {id: "x\\e[31m", path: docs/x.md, title: "題\\e]0;t\\a"}\n',
        },
        config="index: index.yaml\n",
    )
    for args in (["read", "docs/x.md"], ["outline"], ["find"], ["tags"], ["check"], ["graph", "--format", "dot"], ["index", "set", "doc", "y\x1bz", "--item", '{"path": "docs/x.md", "title": "t"}']):
        result = mdmark(repo, *args)
        for stream in (result.stdout, result.stderr):
            assert "\x1b" not in stream and "\x07" not in stream, (args, stream)
