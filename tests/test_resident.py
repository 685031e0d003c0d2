"""Resident zygotes (issue 38, the daily path; :mod:`mdmark.pipeline.resident`): a one-shot command
leaves its zygote running, the next command of the same project uses it, and nothing about the
answer, the command's own end, or the confinement changes. Real CLI processes, real sockets, the
real kernel; each test has a cache folder of its own (short: a socket's path is short) and ends the
zygotes it made."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
from conftest import run_mdmark, trust_project
from test_landlock import _project as landlock_project

from mdmark.util import landlock

needs_landlock = pytest.mark.skipif(landlock.abi() < 1, reason="this kernel has no Landlock")

_DOCS = {
    "index.md": "# Index\n\n```{toctree}\na\nb\n```\n",
    "a.md": "# A\n\nSee [B](b.md) and [nowhere](missing.md).\n",
    "b.md": "# B\n\n(b-label)=\n## Part\n\nBack to {ref}`b-label`.\n",
}


@pytest.fixture
def cache() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="mdr-", dir="/tmp"))
    try:
        yield folder
    finally:
        for pid in _zygotes(folder):
            _end(pid)
        shutil.rmtree(folder, ignore_errors=True)


def _project(root: Path, conf: str = "extensions = ['myst_parser']\n") -> Path:
    return landlock_project(root, conf, _DOCS)


def _env(cache: Path, idle: str = "60") -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(cache), "MDMARK_RESIDENT": idle, "NO_COLOR": "1"}


def _zygotes(cache: Path) -> list[int]:
    """The pids of the live zygotes recorded in ``cache``."""
    found = []
    for record in (cache / "mdmark" / "resident").glob("*.pid"):
        pid = int(record.read_text(encoding="ascii"))
        if _alive(pid):
            found.append(pid)
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _check(repo: Path, env: dict[str, str]) -> tuple[int, str]:
    done = run_mdmark("check", "--format", "json", cwd=repo, env=env, process=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def test_the_next_command_uses_the_zygote_the_first_one_left_and_answers_the_same(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    first = _check(repo, _env(cache))
    zygotes = _zygotes(cache)
    assert len(zygotes) == 1  # the command ended; its zygote did not
    # The command's pipes were not held: run_mdmark read them to their end, and the zygote's are /dev/null.
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{zygotes[0]}/fd/{fd}") == os.devnull
    (repo / "docs" / "a.md").write_text("# A\n\nSee [B](b.md) and [elsewhere](gone.md).\n", encoding="utf-8")
    second = _check(repo, _env(cache))
    assert _zygotes(cache) == zygotes  # the same process read the edited document
    # The first check's snapshot was written by a child after it answered; the second waited for it.
    assert list((cache / "mdmark").glob("*/snapshots/*.check.pickle.lock"))
    assert "gone.md" in second[1] and "missing.md" not in second[1]
    # The same answers as commands that make and end their own zygote.
    off = _project(tmp_path / "off")
    (off / "docs" / "a.md").write_text("# A\n\nSee [B](b.md) and [elsewhere](gone.md).\n", encoding="utf-8")
    assert _check(off, _env(cache / "off", "0")) == second
    assert not (cache / "off" / "mdmark" / "resident").exists()
    assert first[0] == second[0] == 1
    build = run_mdmark("build", cwd=repo, env=_env(cache), process=True, timeout=120)
    assert build.returncode in (0, 1), build.stderr
    assert "Traceback" not in build.stderr
    assert "<h1" in (repo / "dist" / "docs.html").read_text(encoding="utf-8")
    assert _zygotes(cache) == zygotes


def test_a_client_that_does_not_know_the_token_is_turned_away(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    _check(repo, _env(cache))
    (zygote,) = _zygotes(cache)
    (path,) = (cache / "mdmark" / "resident").glob("*.sock")
    assert (cache / "mdmark" / "resident").stat().st_mode & 0o077 == 0
    assert (cache / "mdmark" / "resident" / "token").stat().st_mode & 0o077 == 0
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    conn = Connection(sock.detach())
    conn.send_bytes(b"x" * 32)
    with pytest.raises(EOFError):
        conn.recv()  # closed without a word: no fork, no unpickling of anything it sent
    conn.close()
    assert _alive(zygote)
    # One that knows it but sends what no mdmark sends is dropped; the zygote goes on serving.
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    conn = Connection(sock.detach())
    conn.send_bytes((cache / "mdmark" / "resident" / "token").read_bytes())
    assert conn.recv() == "ready"
    conn.send(("nonsense",))
    conn.send(None)
    with pytest.raises(EOFError):
        conn.recv()
    conn.close()
    (repo / "docs" / "a.md").write_text("# A\n\nSee [elsewhere](gone.md).\n", encoding="utf-8")
    assert "gone.md" in _check(repo, _env(cache))[1]
    assert _zygotes(cache) == [zygote]


def test_an_idle_zygote_ends_and_a_killed_one_is_replaced(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    _check(repo, _env(cache, "2"))
    (zygote,) = _zygotes(cache)
    deadline = time.monotonic() + 30
    while _alive(zygote) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(zygote)  # two seconds without a command: it ended
    (repo / "docs" / "a.md").write_text("# A\n\nSee [nowhere](missing-2.md).\n", encoding="utf-8")
    answer = _check(repo, _env(cache))
    (second,) = _zygotes(cache)
    os.kill(second, signal.SIGKILL)
    time.sleep(0.2)
    (repo / "docs" / "a.md").write_text("# A\n\nSee [nowhere](missing-3.md).\n", encoding="utf-8")
    # Its socket left behind, nobody listening: a new one.
    assert _check(repo, _env(cache)) == (answer[0], answer[1].replace("missing-2", "missing-3"))
    (third,) = _zygotes(cache)
    assert third != second


def test_an_edit_of_conf_py_gets_a_zygote_of_its_own(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    _check(repo, _env(cache))
    before = _zygotes(cache)
    (repo / "docs" / "conf.py").write_text("extensions = ['myst_parser']\nmyst_heading_anchors = 2\n", encoding="utf-8")
    _check(repo, _env(cache))
    after = _zygotes(cache)
    assert len(after) == 2 and set(before) < set(after)


@needs_landlock
def test_a_resident_zygotes_workers_are_confined(tmp_path: Path, cache: Path) -> None:
    """A trusted conf.py's extension told by a document to read a file outside the project: the
    kernel refuses the resident zygote's worker as it refuses any other."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("SECRET-VALUE", encoding="utf-8")
    conf = "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nextensions = ['myst_parser', 'readext']\n"
    repo = _project(tmp_path, conf)
    (repo / "docs" / "readext.py").write_text(
        "from docutils import nodes\nfrom docutils.parsers.rst import Directive\n\n\n"
        "class Read(Directive):\n    required_arguments = 1\n\n"
        "    def run(self):\n        return [nodes.paragraph(text=open(self.arguments[0]).read())]\n\n\n"
        "def setup(app):\n    app.add_directive('readfile', Read)\n",
        encoding="utf-8",
    )
    trust_project(repo / "mdmark.config.yaml")
    _check(repo, _env(cache))
    assert len(_zygotes(cache)) == 1
    (repo / "docs" / "b.md").write_text(f"# B\n\n```{{readfile}} {secret}\n```\n", encoding="utf-8")
    done = run_mdmark("check", cwd=repo, env=_env(cache), process=True, timeout=120)
    assert "SECRET-VALUE" not in done.stdout + done.stderr
    assert f"`{secret}` を読み書きしようとしたが" in done.stdout
    assert len(_zygotes(cache)) == 1


def test_on_a_ci_machine_no_zygote_is_left_unless_asked(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    ci = {**_env(cache), "MDMARK_RESIDENT": "", "CI": "true"}
    assert _check(repo, ci)[0] == 1
    assert _zygotes(cache) == []
    (repo / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    assert "missing.md" not in _check(repo, {**ci, "MDMARK_RESIDENT": "60"})[1]
    assert len(_zygotes(cache)) == 1


def test_the_zygote_imports_nothing_from_the_working_folder(tmp_path: Path, cache: Path) -> None:
    """``python -m mdmark`` puts the working folder first on the import path; the zygote, which
    lives on, does not take it (a repository's ``docutils/`` would stand in for the real one)."""
    repo = _project(tmp_path)
    (repo / "docutils").mkdir()
    (repo / "docutils" / "__init__.py").write_text("raise SystemExit('imported from the repository')\n", encoding="utf-8")
    _check(repo, _env(cache))
    (zygote,) = _zygotes(cache)
    with open(f"/proc/{zygote}/cmdline", "rb") as cmdline:
        assert str(repo).encode() not in cmdline.read()


def test_a_cache_folder_too_long_for_a_socket_address_still_gets_its_zygote(tmp_path: Path, cache: Path) -> None:
    repo = _project(tmp_path)
    deep = cache / ("long-folder-name-" * 6)  # the socket's path passes the 107 bytes of an address
    deep.mkdir()
    _check(repo, _env(deep))
    (zygote,) = _zygotes(deep)
    assert len(str(next((deep / "mdmark" / "resident").glob("*.sock")))) > 107
    (repo / "docs" / "a.md").write_text("# A\n\nSee [elsewhere](gone.md).\n", encoding="utf-8")
    assert "gone.md" in _check(repo, _env(deep))[1]
    assert _zygotes(deep) == [zygote]
    for pid in _zygotes(deep):
        _end(pid)


def test_a_build_leaves_its_snapshot_to_a_child_and_the_next_build_waits_for_it(tmp_path: Path, cache: Path) -> None:
    """The page is written before the command ends; the snapshot for the next command is written
    by a child after it (the next command waits for that child's lock): the pages are the ones
    commands that write their snapshot themselves make."""
    repo = _project(tmp_path)
    off = _project(tmp_path / "off")
    pages = []
    for root, env in ((repo, _env(cache)), (off, _env(cache / "off", "0"))):
        for text in ("# A\n\nFirst.\n", "# A\n\nSecond.\n", "# A\n\nThird.\n"):
            (root / "docs" / "a.md").write_text(text, encoding="utf-8")
            done = run_mdmark("build", cwd=root, env=env, process=True, timeout=120)
            assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        pages.append((root / "dist" / "docs.html").read_text(encoding="utf-8"))
    assert "Third." in pages[0] and "Second." not in pages[0]
    assert pages[0].replace(str(repo), "") == pages[1].replace(str(off), "")
    (snapshots,) = (p for p in (cache / "mdmark").glob("*/snapshots") if p.is_dir())
    assert (snapshots / next(p.name for p in snapshots.glob("*.build.pickle.lock"))).exists()
