"""The operating system confines the processes that read documents (issue 37, item 1; the guide page
``untrusted``): on the real kernel, with Landlock, a worker may read only the project, Python and
the system's libraries, write only its scratch folder and the cache, and — for an untrusted
project — open no TCP connection, whatever a document, an extension or a trusted conf.py asks.
Where the kernel has none (a pool given a probe that answers 0: it can only take protection away
from itself), mdmark says once what is missing and reads as before.

Memory: every worker and zygote together stay within half of the machine's memory.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import SPHINX_DOCS_CONFIG, run_mdmark, trust_project

from mdmark.pipeline import limits, pool as pool_module
from mdmark.util import landlock

ABI = landlock.abi()
needs_landlock = pytest.mark.skipif(ABI < 1, reason="this kernel has no Landlock")

SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key"


# -- a worker object that tries things -------------------------------------------------------------


class _Prober:
    """A worker object whose project is ``project``; ``trusted`` as a trusted conf.py's would be."""

    def __init__(self, project: str, trusted: bool, fail_zygote: bool = False) -> None:
        self.project = project
        self.trusted = trusted
        self.fail_zygote = fail_zygote

    def worker_spec(self) -> tuple[object, tuple[object, ...]]:
        return _make_prober, (self.project, self.trusted, self.fail_zygote)

    def worker_confinement(self) -> landlock.Confinement:
        write = (self.project,) if self.trusted else ()
        return landlock.Confinement(read=(self.project,), write=write, trusted=self.trusted)


def _make_prober(project: str, trusted: bool, fail_zygote: bool, *, scratch: Path) -> _Prober:
    import multiprocessing

    if fail_zygote and multiprocessing.current_process().name == "mdmark-zygote":
        raise MemoryError  # the zygote passes its bound: the workers start (and confine themselves) on their own
    return _Prober(project, trusted, fail_zygote)


def _try(_owner: _Prober, job: tuple[str, str]) -> str:
    """Do ``job`` = (what, where) in the worker: ``ok`` or the error's name and errno."""
    what, where = job
    if what == "process":
        import multiprocessing

        return multiprocessing.current_process().name
    try:
        if what == "read":
            Path(where).read_text(encoding="utf-8")
        elif what == "write":
            Path(where).write_text("PWNED", encoding="utf-8")
        elif what == "tempfile":
            with tempfile.NamedTemporaryFile() as handle:
                handle.write(b"scratch")
        elif what == "connect":
            host, port = where.rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=5).close()
        elif what == "ssh":
            Path(os.path.expanduser("~/.ssh/id_rsa")).read_text(encoding="utf-8")
    except OSError as exc:
        return f"{type(exc).__name__}:{exc.errno}"
    return "ok"


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project, a folder outside it, and a fake home folder holding ``.ssh/id_rsa``."""
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    home = tmp_path / "home"
    for folder in (project, outside, home / ".ssh"):
        folder.mkdir(parents=True)
    (project / "doc.md").write_text("# Doc\n", encoding="utf-8")
    (outside / "secret.txt").write_text("secret", encoding="utf-8")
    (home / ".ssh" / "id_rsa").write_text(SSH_KEY, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    return {"project": project, "outside": outside, "home": home}


def _run(pool: pool_module.Pool, owner: _Prober, jobs: list[tuple[str, str]]) -> list[object]:
    try:
        return list(pool.run(owner, _try, jobs))
    finally:
        pool.close()


def _attempts(places: dict[str, Path]) -> list[tuple[str, str]]:
    return [
        ("read", str(places["project"] / "doc.md")),
        ("tempfile", ""),
        ("read", str(places["outside"] / "secret.txt")),
        ("write", str(places["outside"] / "PWNED")),
        ("write", str(places["project"] / "PWNED")),
        ("ssh", ""),
        ("read", str(places["home"] / ".ssh" / "id_rsa")),
    ]


@needs_landlock
@pytest.mark.parametrize("zygote", [True, False], ids=["forked-from-zygote", "worker-on-its-own"])
def test_an_untrusted_worker_reads_the_project_and_writes_only_its_scratch(places: dict[str, Path], zygote: bool) -> None:
    owner = _Prober(str(places["project"]), trusted=False, fail_zygote=not zygote)
    results = _run(pool_module.Pool(), owner, [*_attempts(places), ("process", "")])
    denied = "PermissionError:13"
    assert results == ["ok", "ok", denied, denied, denied, denied, denied, "mdmark-zygote" if zygote else "mdmark-worker"]
    assert not (places["outside"] / "PWNED").exists()
    assert not (places["project"] / "PWNED").exists()


@needs_landlock
def test_a_trusted_worker_writes_in_the_project_but_not_outside_nor_reads_ssh(places: dict[str, Path]) -> None:
    owner = _Prober(str(places["project"]), trusted=True)
    results = _run(pool_module.Pool(), owner, _attempts(places))
    assert results == ["ok", "ok", "PermissionError:13", "PermissionError:13", "ok", "PermissionError:13", "PermissionError:13"]
    assert (places["project"] / "PWNED").exists()  # as sphinx-build would let conf.py (autodoc2, apidoc)
    assert not (places["outside"] / "PWNED").exists()


@pytest.mark.skipif(ABI < 4, reason="this kernel's Landlock has no network rules (ABI 4)")
def test_an_untrusted_worker_opens_no_tcp_connection_a_trusted_one_does(places: dict[str, Path]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        where = f"127.0.0.1:{server.getsockname()[1]}"
        untrusted = _run(pool_module.Pool(), _Prober(str(places["project"]), trusted=False), [("connect", where)])
        trusted = _run(pool_module.Pool(), _Prober(str(places["project"]), trusted=True), [("connect", where)])
    assert untrusted == ["PermissionError:13"]
    assert trusted == ["ok"]


@needs_landlock
def test_one_projects_workers_never_serve_another(places: dict[str, Path], tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "doc.md").write_text("# Other\n", encoding="utf-8")
    pool = pool_module.Pool()
    try:
        first = pool.run(_Prober(str(places["project"]), trusted=False), _try, [("read", str(places["project"] / "doc.md"))])
        second = pool.run(_Prober(str(other), trusted=False), _try, [("read", str(other / "doc.md")), ("read", str(places["project"] / "doc.md"))])
    finally:
        pool.close()
    assert first == ["ok"]
    assert second == ["ok", "PermissionError:13"]


def test_without_landlock_the_pool_says_once_what_is_missing_and_reads_as_before(
    places: dict[str, Path], capfd: pytest.CaptureFixture[str]
) -> None:
    pool = pool_module.Pool(probe=lambda: 0)
    owner = _Prober(str(places["project"]), trusted=False)
    try:
        first = pool.run(owner, _try, [("write", str(places["outside"] / "written"))])
        second = pool.run(owner, _try, [("read", str(places["outside"] / "secret.txt"))])
    finally:
        pool.close()
    assert first == ["ok"] and second == ["ok"]  # today's door: mdmark's own checks only
    err = capfd.readouterr().err
    assert err.count("mdmark: この OS・カーネルには") == 1
    for missing in landlock.missing_protections(0):
        assert missing in err
    assert "mdmark trust --status" in err


def test_an_owner_without_confinement_is_not_confined(places: dict[str, Path]) -> None:
    """The pool confines what names its confinement (mdmark's pipeline); other owners run as before."""

    class Plain(_Prober):
        worker_confinement = None  # type: ignore[assignment]

    results = _run(pool_module.Pool(), Plain(str(places["project"]), trusted=False), [("read", str(places["outside"] / "secret.txt"))])
    assert results == ["ok"]


def test_the_probe_is_the_kernels() -> None:
    if not sys.platform.startswith("linux"):
        assert ABI == 0
        return
    release = tuple(int(p) for p in os.uname().release.split(".")[:2] if p.isdigit())
    if Path("/sys/kernel/security/lsm").is_file() and "landlock" in Path("/sys/kernel/security/lsm").read_text():
        assert ABI >= 1
    if ABI >= 1:
        assert release >= (5, 13)
    assert landlock.handled_fs(1) == (1 << 13) - 1
    assert landlock.handled_fs(3) == (1 << 15) - 1
    assert landlock.handled_fs(ABI) & landlock.READ_FILE if ABI else landlock.handled_fs(ABI) == 0


# -- through mdmark: documents, extensions, conf.py ------------------------------------------------

_CONFIG = SPHINX_DOCS_CONFIG


def _project(root: Path, conf: str, docs: dict[str, str]) -> Path:
    repo = root / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "mdmark.config.yaml").write_text(_CONFIG, encoding="utf-8")
    (repo / "docs" / "conf.py").write_text(conf, encoding="utf-8")
    for name, text in docs.items():
        (repo / "docs" / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    return repo


def _env(places: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(places["home"]), "XDG_CACHE_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}


#: A trusted extension with a directive that reads the file a document names and copies it outside.
_STEAL_EXT = """\
from docutils import nodes
from docutils.parsers.rst import Directive


class Steal(Directive):
    required_arguments = 2

    def run(self):
        data = open(self.arguments[0]).read()
        with open(self.arguments[1], "w") as out:
            out.write(data)
        return [nodes.paragraph(text=data)]


def setup(app):
    app.add_directive("steal", Steal)
"""


@needs_landlock
def test_a_trusted_extension_told_by_a_document_cannot_read_ssh_nor_write_outside(
    places: dict[str, Path], tmp_path: Path
) -> None:
    key = places["home"] / ".ssh" / "id_rsa"
    stolen = places["outside"] / "stolen"
    conf = "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nextensions = ['myst_parser', 'stealext']\n"
    repo = _project(tmp_path, conf, {"index.md": f"# Index\n\n```{{steal}} {key} {stolen}\n```\n"})
    (repo / "docs" / "stealext.py").write_text(_STEAL_EXT, encoding="utf-8")
    trust_project(repo / "mdmark.config.yaml")
    env = _env(places, tmp_path)
    check = run_mdmark("check", cwd=repo, env=env)
    build = run_mdmark("build", cwd=repo, env=env)
    for result in (check, build):
        assert SSH_KEY not in result.stdout + result.stderr
        assert "Traceback" not in result.stderr
    assert not stolen.exists()
    assert f"`{key}` を読み書きしようとしたが、文書を読む作業プロセスは OS（Landlock）で" in check.stdout
    assert "docs/index.md" in check.stdout
    assert not (repo / "dist" / "docs.html").exists() or SSH_KEY not in (repo / "dist" / "docs.html").read_text(encoding="utf-8")


@needs_landlock
def test_a_trusted_conf_py_cannot_read_ssh_nor_write_outside_the_project(places: dict[str, Path], tmp_path: Path) -> None:
    stolen = places["outside"] / "stolen"
    conf = (
        "import os\n"
        "extensions = ['myst_parser']\n"
        "open(os.path.join(os.path.dirname(__file__), 'generated.md'), 'w').write('# Generated\\n')\n"  # inside: allowed
        "try:\n"
        "    project = open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
        "except OSError as exc:\n"
        "    project = 'denied ' + str(exc.errno)\n"
        "try:\n"
        f"    open({str(stolen)!r}, 'w').write(project)\n"
        "except OSError:\n"
        "    pass\n"
    )
    repo = _project(tmp_path, conf, {"index.md": "# Index\n\n{{ project }}\n"})
    trust_project(repo / "mdmark.config.yaml")
    check = run_mdmark("check", cwd=repo, env=_env(places, tmp_path))
    assert "Traceback" not in check.stderr, check.stderr
    assert SSH_KEY not in check.stdout + check.stderr
    assert not stolen.exists()
    assert (repo / "docs" / "generated.md").read_text(encoding="utf-8") == "# Generated\n"


@needs_landlock
def test_an_absolute_literalinclude_of_ssh_reads_nothing(places: dict[str, Path], tmp_path: Path) -> None:
    key = places["home"] / ".ssh" / "id_rsa"
    repo = _project(tmp_path, "extensions = ['myst_parser']\n", {"index.md": f"# Index\n\n```{{literalinclude}} {key}\n```\n\n```{{include}} {key}\n```\n"})
    for trusted in (False, True):
        if trusted:
            trust_project(repo / "mdmark.config.yaml")
        check = run_mdmark("check", cwd=repo, env=_env(places, tmp_path))
        assert SSH_KEY not in check.stdout + check.stderr
        assert "docs/index.md" in check.stdout


# -- the catalog that Sphinx compiles through a symlink --------------------------------------------

_PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "x"\nmsgstr "ssh-ed25519 AAAA attacker"\n'


def _catalog_project(tmp_path: Path, victim: Path) -> Path:
    repo = _project(tmp_path, "extensions = ['myst_parser']\nlanguage = 'xx'\n", {"index.md": "# Index\n\nA page.\n"})
    messages = repo / "docs" / "locales" / "xx" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    (messages / "sphinx.po").write_text(_PO, encoding="utf-8")
    (messages / "sphinx.mo").symlink_to(victim)
    victim.write_text("the user's own file\n", encoding="utf-8")
    os.utime(victim, (0, 0))  # older than the .po: Sphinx would compile it again
    return repo


def test_an_untrusted_catalog_symlink_writes_nothing_through_check_and_build(places: dict[str, Path], tmp_path: Path) -> None:
    victim = places["outside"] / "authorized_keys"
    repo = _catalog_project(tmp_path, victim)
    env = _env(places, tmp_path)
    for command in ("check", "build"):
        result = run_mdmark(command, cwd=repo, env=env)
        assert "Traceback" not in result.stderr
        assert victim.read_text(encoding="utf-8") == "the user's own file\n", command
    assert (repo / "dist" / "docs.html").is_file()


@needs_landlock
def test_a_trusted_catalog_symlink_is_refused_by_the_kernel_with_one_sentence(places: dict[str, Path], tmp_path: Path) -> None:
    victim = places["outside"] / "authorized_keys"
    repo = _catalog_project(tmp_path, victim)
    trust_project(repo / "mdmark.config.yaml")
    env = _env(places, tmp_path)
    for command in ("check", "build"):
        result = run_mdmark(command, cwd=repo, env=env)
        assert victim.read_text(encoding="utf-8") == "the user's own file\n", command
        assert result.returncode == 2
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("設定の sphinx.conf の `conf.py` から Sphinx を用意する途中で")
        assert f"（リンクの先は `{victim}`）" in lines[0]


def test_without_landlock_the_catalog_symlink_still_writes_nothing_and_the_notice_is_said_once(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """mdmark's own part (Sphinx is not given an untrusted project's catalogs) holds without the kernel's."""
    from mdmark.cli.main import main

    victim = places["outside"] / "authorized_keys"
    repo = _catalog_project(tmp_path, victim)
    pool = pool_module.Pool(probe=lambda: 0)
    monkeypatch.setattr(pool_module, "_POOL", pool)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(repo)
    try:
        codes = [main(["check"]), main(["build"])]
    finally:
        pool.close()
    assert codes[1] == 0
    assert victim.read_text(encoding="utf-8") == "the user's own file\n"
    assert capfd.readouterr().err.count("mdmark: この OS・カーネルには") == 1


# -- what is active ---------------------------------------------------------------------------------


def test_trust_status_lists_what_protects_the_workers(tmp_path: Path) -> None:
    result = run_mdmark("trust", "--status", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    if ABI >= 1:
        assert f"ファイル: 有効（Landlock ABI {ABI}）" in out
    if ABI >= 4:
        assert "ネットワーク: 有効" in out
    assert "メモリ: 作業プロセス 1 つに" in out
    assert "CPU: 文書 1 つに" in out
    missing = limits.protections(lambda: 0)
    assert [line for line in missing if line.startswith("無効: ")] == [f"無効: {m}。" for m in landlock.missing_protections(0)]


# -- memory ---------------------------------------------------------------------------------------------


def test_all_workers_together_stay_within_half_of_the_machines_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.MEMORY_ENV, raising=False)
    real = limits.machine_memory()
    assert real is not None and real > 0
    for total in (real, 64 * 2**30, 8 * 2**30, 2 * 2**30, 512 * 2**20):
        monkeypatch.setattr(limits, "machine_memory", lambda total=total: total)
        per, count = limits.Limits.current().memory, limits.max_workers()
        assert per * (count + limits.ZYGOTES) <= total // 2
        assert per <= limits.MEMORY_BYTES and count >= 1
        if total >= 8 * 2**30:
            assert per >= limits.MEMORY_FLOOR  # fewer workers rather than starved ones
    monkeypatch.setattr(limits, "machine_memory", lambda: 8 * 2**30)
    assert limits.max_workers() <= max(4, 2 * limits.worker_count())


def _open_conf_lock(pipeline: object, _job: None) -> str:
    from mdmark.util.conflock import lock_path

    conf = getattr(pipeline, "conf")
    try:
        os.close(os.open(lock_path(conf), os.O_RDWR | os.O_NOFOLLOW))
    except OSError as exc:
        return f"{type(exc).__name__}:{exc.errno}"
    return str(lock_path(conf))


@needs_landlock
def test_confined_workers_share_the_lock_that_orders_conf_py_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each confined worker has a temporary folder of its own; conf.py's lock stays the one file all share."""
    from mdmark.config.main import MarkdownSettings
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.util.conflock import lock_path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = _project(tmp_path, "extensions = ['myst_parser']\n", {"index.md": "# Index\n"})
    conf = repo / "docs" / "conf.py"
    pipeline = Pipeline(repo, MarkdownSettings(), tmp_path / "cache" / "p", conf)
    pool = pool_module.Pool()
    try:
        answers = pool.run(pipeline, _open_conf_lock, [None, None])
    finally:
        pool.close()
    assert answers == [str(lock_path(conf))] * 2
