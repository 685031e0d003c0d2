"""Under CI=true a missing Chromium or ``claude`` fails the run with a sentence saying what to install;
on a developer's machine those tests skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: One test of each kind that drives a program.
SELECTED = ["test_browser.py::test_exported_page", "test_plugin.py::test_claude_validates_the_plugin_and_the_marketplace"]


def _pytest_without_programs(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "PATH")}
    env["PATH"] = str(empty)  # neither chromium nor claude is found
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-rsf", "-p", "no:cacheprovider", *SELECTED],
        cwd=TESTS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_selected_tests_exist() -> None:
    from test_plugin import test_claude_validates_the_plugin_and_the_marketplace  # noqa: F401

    import test_browser

    assert hasattr(test_browser, "test_exported_page")


@pytest.mark.parametrize("ci", ["true", "1"])
def test_ci_fails_with_what_to_install(tmp_path: Path, ci: str) -> None:
    done = _pytest_without_programs(tmp_path, ci)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 errors" in done.stdout  # failed in set-up, before the test body ran
    assert (
        "CI=true and no `chromium` or `chromium-browser` is on PATH, so this test fails instead of skipping: "
        "install Chromium (Debian: `apt-get install chromium`), as .ci/run does."
    ) in done.stdout
    assert (
        "CI=true and no `claude` is on PATH, so this test fails instead of skipping: "
        "install the Claude Code CLI (`npm install -g @anthropic-ai/claude-code`), as .ci/run does."
    ) in done.stdout


@pytest.mark.parametrize("ci", [None, "false"])
def test_local_runs_skip(tmp_path: Path, ci: str | None) -> None:
    done = _pytest_without_programs(tmp_path, ci)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout
    assert "no `chromium` or `chromium-browser` on PATH" in done.stdout
