"""Shared test helpers. Area-specific fixtures live in their own test modules."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

#: ``MDMARK_REGEN=1`` rewrites golden files from the actual output (check the diff by hand after).
REGEN = bool(os.environ.get("MDMARK_REGEN"))


def assert_golden(actual: str, expected_file: Path) -> None:
    """Compare with a golden file; a missing one is written and fails, so it is read once by a person."""
    if REGEN or not expected_file.is_file():
        expected_file.write_text(actual, encoding="utf-8")
        if not REGEN:
            pytest.fail(f"wrote missing {expected_file}; check it by hand")
    assert actual == expected_file.read_text(encoding="utf-8")


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


@pytest.fixture
def mdmark_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    return run_mdmark
