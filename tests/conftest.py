"""Shared test helpers. Area-specific fixtures live in their own test modules."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

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


def run_mdmark(*args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the installed ``mdmark`` command as a user would (a real subprocess)."""
    # A fixed terminal width, so help and usage lines wrap the same on every machine.
    full_env = {**os.environ, "COLUMNS": "80", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mdmark", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def trust_project(config_path: Path | str) -> subprocess.CompletedProcess[str]:
    """Trust the conf.py of the config at ``config_path`` as a user does: the real
    ``mdmark trust --config``, recorded under the session's ``XDG_CONFIG_HOME`` (:data:`TRUST_HOME`)."""
    path = Path(config_path).absolute()
    result = run_mdmark("trust", "--config", str(path), cwd=path.parent, env={"XDG_CONFIG_HOME": str(TRUST_HOME)})
    assert result.returncode == 0, result.stderr
    return result


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
    """The page of ``bench/corpus.py``'s 300-document project, built once per session (about half a
    minute) for the tests of the page and the graph at that size."""
    import sys

    from mdmark.builders.build import build_site

    sys.path.insert(0, str(REPO / "bench"))
    try:
        from corpus import generate
    finally:
        sys.path.remove(str(REPO / "bench"))
    root = tmp_path_factory.mktemp("corpus300")
    generate(root, 300)
    result = build_site(root)
    assert result["docs"] == 300
    return Path(result["out"])


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache folder of the test's own (``XDG_CACHE_HOME``), for the commands it runs."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder
