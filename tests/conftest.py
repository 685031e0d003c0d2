"""Shared test helpers. Area-specific fixtures live in their own test modules."""

from __future__ import annotations

import atexit
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

#: Vendored projects and attack repositories hold Python files of their own (a project's tests,
#: an attack's conf.py): they are inputs, never tests of mdmark.
collect_ignore_glob = ["projects/*", "hostile/*", "roots/*", "fixtures/*"]

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: Every test (and every command it runs) records trust in a folder of its own for the session,
#: never in the real user's config folder (see mdmark.host.trust).
TRUST_HOME = Path(tempfile.mkdtemp(prefix="mdmark-test-config-"))
os.environ["XDG_CONFIG_HOME"] = str(TRUST_HOME)
atexit.register(shutil.rmtree, TRUST_HOME, True)
#: No command of a test leaves a resident zygote behind (mdmark.pipeline.resident): hundreds of
#: projects would each keep one for minutes. tests/test_resident.py turns them on for its own.
os.environ["MDMARK_RESIDENT"] = "0"
#: The processes the tests start (CLIs, servers, zygotes, workers: hundreds) read mdmark's compiled
#: modules, as on a developer's machine: where PYTHONDONTWRITEBYTECODE is set (this workplace's CI
#: sets it) each would compile mdmark anew, 18 % of a CLI test's CPU. See pytest_configure too.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

#: The config of a small Sphinx project in tests: its documents under docs/, conf.py beside them,
#: a build page in dist/.
SPHINX_DOCS_CONFIG = """\
docs:
  include: ["docs/*.md"]
build:
  include: ["docs/*.md"]
  out: dist/docs.html
sphinx:
  conf: docs/conf.py
"""

#: ``MDMARK_REGEN=1`` rewrites golden files from the actual output (check the diff by hand after).
REGEN = bool(os.environ.get("MDMARK_REGEN"))


def assert_golden(actual: str, expected_file: Path) -> None:
    """Compare with a golden file; a missing one is written and fails, so it is read once by a person."""
    if REGEN or not expected_file.is_file():
        expected_file.write_text(actual, encoding="utf-8")
        if not REGEN:
            pytest.fail(f"wrote missing {expected_file}; check it by hand")
    assert actual == expected_file.read_text(encoding="utf-8")


def drain_pty(leader: int) -> bytes:
    """Everything left on a pseudo-terminal's leader side once the child is done."""
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO once the child's end is closed and drained
            break
        if not chunk:
            break
        seen += chunk
    return seen


def mdmark_on_a_terminal(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Run ``python -m mdmark *args`` with stderr on a pseudo-terminal: (exit code, stdout, stderr)."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mdmark", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=follower, timeout=300
        )
        os.close(follower)
        follower = -1
        seen = drain_pty(leader)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    return done.returncode, done.stdout.decode("utf-8"), seen.decode("utf-8", "replace")


#: Commands :func:`run_mdmark` runs in this process: the ones that answer and end. The servers
#: (``serve``, ``lsp``, ``preview``) keep running, install signal handlers and own their process.
IN_PROCESS_COMMANDS = frozenset({"check", "build", "export", "graph", "find", "tags", "index", "guide", "outline", "read", "trust", "init"})
#: ``MDMARK_TEST_PROCESS=1`` runs every command as a subprocess (to tell an in-process difference from a bug).
ALWAYS_PROCESS = bool(os.environ.get("MDMARK_TEST_PROCESS"))
#: Environment variables only a new interpreter reads (at its start), so a run that sets one gets a process.
_START_ONLY_ENV = ("PYTHON", "TMPDIR", "TEMP", "TMP", "LANG", "LC_", "HOME")


def run_mdmark(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run ``mdmark *args`` as a user would: stdout, stderr and the exit code of the console
    script's entry point (:func:`mdmark.cli.main.main`).

    A command that answers and ends runs in this process (:func:`run_in_process`: half a second of
    Python and Sphinx start-up saved per run), as a new process would run it; a server, a run whose
    environment only a new interpreter reads (``PYTHONPATH``, ``TMPDIR``, the locale), a run from
    a thread other than the main one (tests of concurrent processes), or
    ``process=True`` (a test of the process itself: its exit, signals, what it leaves behind)
    runs as a real subprocess of ``python -m mdmark``."""
    # A fixed terminal width, so help and usage lines wrap the same on every machine.
    extra = {"COLUMNS": "80", **(env or {})}
    command = next((a for a in args if not a.startswith("-")), None)
    if (
        not (process or ALWAYS_PROCESS)
        and command in IN_PROCESS_COMMANDS
        and not any(k.startswith(_START_ONLY_ENV) for k in extra)
        # The process's directory, environment and descriptors are one: runs from other threads
        # (a test of concurrent processes) are processes.
        and threading.current_thread() is threading.main_thread()
    ):
        return run_in_process(list(args), cwd=cwd, env=extra)
    return subprocess.run(
        [sys.executable, "-m", "mdmark", *args],
        cwd=cwd,
        env={**os.environ, **extra},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_in_process(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``mdmark.cli.main.main(args)`` in this process, as a new process of the console script runs
    it: in ``cwd``, with ``env`` added to the environment, stdout and stderr (Python's and the file
    descriptors', which the project's output and child processes write to) read into the result;
    the run has workspaces and worker processes of its own, and afterwards the directory, the
    environment, the streams, the workspaces and the worker pool are as before: nothing of one run
    reaches the next, or the test's own calls."""
    from mdmark.cli.main import main
    from mdmark.pipeline.pool import fresh_pool
    from mdmark.workspace.main import fresh_workspaces

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdout, sys.stderr
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    for stream in saved_streams:
        stream.flush()
    saved_fds = [os.dup(1), os.dup(2)]
    code: int | str | None
    try:
        os.environ.update(env)
        os.chdir(cwd)
        os.dup2(files[0].fileno(), 1)
        os.dup2(files[1].fileno(), 2)
        # Unbuffered into the same files as the descriptors: what Python and a child write stays in order.
        sys.stdout, sys.stderr = (
            io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True)
            for fd in (1, 2)
        )
        try:
            with fresh_workspaces(), fresh_pool():
                code = main(args)
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdout, sys.stderr = saved_streams
        os.dup2(saved_fds[0], 1)
        os.dup2(saved_fds[1], 2)
        for fd in saved_fds:
            os.close(fd)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    out, err = (_read_text(f) for f in files)
    return subprocess.CompletedProcess([sys.executable, "-m", "mdmark", *args], code or 0, out, err)


def _read_text(file: Any) -> str:
    """What was written to ``file``, decoded as ``subprocess.run(text=True)`` decodes a pipe."""
    with file:
        file.seek(0)
        data: bytes = file.read()
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def trust_project(config_path: Path | str) -> subprocess.CompletedProcess[str]:
    """Trust the conf.py of the config at ``config_path`` as a user does: the real
    ``mdmark trust --config``, recorded under the session's ``XDG_CONFIG_HOME`` (:data:`TRUST_HOME`)."""
    path = Path(config_path).absolute()
    result = run_mdmark("trust", "--config", str(path), cwd=path.parent, env={"XDG_CONFIG_HOME": str(TRUST_HOME)})
    assert result.returncode == 0, result.stderr
    return result


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (path relative to ``root`` → UTF-8 text) under ``root``; returns ``root``."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def private_homes(tmp_path: Path) -> dict[str, str]:
    """An ``XDG_CONFIG_HOME`` (trust records) and ``XDG_CACHE_HOME`` (caches) of the test's own."""
    return {"XDG_CONFIG_HOME": str(tmp_path / "config-home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


#: Programs some tests drive: the names looked up on PATH, and what to install when none is there
#: (.ci/run installs both).
PROGRAMS: dict[str, tuple[tuple[str, ...], str]] = {
    "chromium": (("chromium", "chromium-browser"), "Chromium (Debian: `apt-get install chromium`)"),
    "claude": (("claude",), "the Claude Code CLI (`npm install -g @anthropic-ai/claude-code`)"),
}


def program(name: str) -> str | None:
    """The path of a program of :data:`PROGRAMS`, or None when it is not installed."""
    for candidate in PROGRAMS[name][0]:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def needs_program(name: str) -> pytest.MarkDecorator:
    """Mark a test (or a module's ``pytestmark``) that drives ``chromium`` or ``claude``.

    Without the program the test is skipped on a developer's machine, but fails under ``CI=true``:
    a CI machine that lacks it would otherwise lose that coverage and still pass.
    """
    return pytest.mark.needs_program(name)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_program(name): the test drives an installed program (chromium, claude)")
    if not hasattr(config, "workerinput"):
        import compileall

        # Once, before the test workers start: their processes then all read the same bytecode
        # instead of each compiling mdmark at its first imports (an editable install compiles nothing).
        for package in ("mdmark", "sphinx_ext"):
            compileall.compile_dir(REPO / package, quiet=1)


#: The test modules that take longest, longest first: the wall time of each run alone (``-n 0``),
#: most of it waiting for servers, browsers and bounds in some (bench/README.md, the suite's
#: section). pytest-xdist's ``--dist loadfile`` hands whole modules to the workers in collection
#: order (``--no-loadscope-reorder`` in pyproject.toml keeps that order), so these start first and
#: the many short modules fill the end: a long module handed out last would run on while the other
#: workers have nothing left to do.
LONG_FIRST = (
    "test_hostile_frontends.py",
    "test_hostile.py",
    "test_lsp.py",
    "test_hostile_preview.py",
    "test_landlock.py",
    "test_plugin.py",
    "test_hostile_stdio.py",
    "test_mcp.py",
    "test_check_base.py",
    "test_browser.py",
    "test_sphinx_projects.py",
    "test_packaging.py",
    "test_project_output.py",
    "test_build_nav.py",
    "test_snapshot.py",
    "test_init_adopt.py",
    "test_bounds.py",
    "test_untrusted.py",
    "test_check.py",
    "test_cli_basics.py",
    "test_build.py",
    "test_conventions.py",
)
assert all((Path(__file__).parent / name).is_file() for name in LONG_FIRST), "LONG_FIRST names a module that is gone"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): one test worker more than the cores this process may
    run on. Many tests spend much of their time waiting — for a server or a browser to start, a
    language server's diagnostics to settle, a bound on a blocked worker — and a core left idle by
    one worker's wait is taken by the extra one's tests."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """:data:`LONG_FIRST`'s modules first, in its order; the others after, in collection order
    (a stable sort: each module's tests keep their order)."""
    rank = {name: place for place, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs_program"):
        name = mark.args[0]
        if program(name) is not None:
            continue
        names = " or ".join(f"`{n}`" for n in PROGRAMS[name][0])
        if in_ci():
            pytest.fail(
                f"CI=true and no {names} is on PATH, so this test fails instead of skipping: "
                f"install {PROGRAMS[name][1]}, as .ci/run does.",
                pytrace=False,
            )
        pytest.skip(f"no {names} on PATH (install {PROGRAMS[name][1]}; under CI=true this fails)")


@pytest.fixture
def mdmark_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_mdmark


@pytest.fixture(scope="session")
def built_300(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of ``bench/corpus.py``'s 300-document project, built once per run (about half a
    minute of CPU) for the tests of the page and the graph at that size; read only by them.

    Under xdist the test workers share it (:func:`shared_once`): one builds, the others wait."""
    def build(folder: Path) -> None:
        # In a process of its own: the build's worker pool and zygotes end with it, so nothing of
        # the build (a forked child holding the lock's descriptor) outlives it in this worker.
        script = (
            "import json, sys\n"
            "from pathlib import Path\n"
            f"sys.path.insert(0, {str(REPO / 'bench')!r})\n"
            "from corpus import generate\n"
            "from mdmark.builders.build import build_site\n"
            "generate(Path(sys.argv[1]), 300)\n"
            "print(json.dumps(build_site(Path(sys.argv[1]))))\n"
        )
        done = subprocess.run([sys.executable, "-c", script, str(folder / "corpus")], capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-4000:]
        result = json.loads(done.stdout.splitlines()[-1])
        assert result["docs"] == 300
        (folder / "page.txt").write_text(result["out"], encoding="utf-8")

    return Path((shared_once(tmp_path_factory, "corpus300", build) / "page.txt").read_text(encoding="utf-8"))


def shared_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """A folder ``name`` made by ``make(folder)`` once per run, shared by the xdist test workers
    (the pattern pytest-xdist documents): under the run's base temporary folder, made by the first
    worker that asks under a file lock, while the others wait for it; without xdist, a folder of
    this session's own. A ``make`` that fails leaves no folder, so the next asker tries again (and
    fails the same way, with its own message). What it makes must be read only by the tests."""
    import fcntl

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = factory.mktemp(name, numbered=False)
        make(folder)
        return folder
    base = factory.getbasetemp().parent  # the run's folder, whose popen-gwN are the workers'
    folder = base / f"shared-{name}"
    with open(base / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / ".made").is_file():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                try:
                    make(folder)
                except BaseException:
                    shutil.rmtree(folder, ignore_errors=True)
                    raise
                (folder / ".made").touch()
        finally:
            # Explicitly: a process forked while the lock was held shares its descriptor, and a
            # close alone would leave the lock held by that process for as long as it lives.
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache folder of the test's own (``XDG_CACHE_HOME``), for the commands it runs."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder
