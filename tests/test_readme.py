"""The README's tour works as written: its own lines, in order, in a fresh shell where ``mdmark`` is
not on the PATH until the tour's first line puts it there."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import REPO

README = REPO / "README.md"
#: A fresh login's PATH: no virtual environment on it.
FRESH_PATH = "/usr/local/bin:/usr/bin:/bin"


def tour_lines() -> list[str]:
    """The lines of the first ``sh`` block under the README's "A short tour" heading."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## A short tour") :]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1).splitlines()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(path: Path, text: str, proc: subprocess.Popen[bytes], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in path.read_text(encoding="utf-8", errors="replace"):
            return
        if proc.poll() is not None:
            pytest.fail(f"the tour stopped before {text!r}:\n{path.read_text(encoding='utf-8', errors='replace')}")
        time.sleep(0.1)
    pytest.fail(f"no {text!r} within {timeout} s:\n{path.read_text(encoding='utf-8', errors='replace')}")


def test_the_tour_reads_as_the_test_runs_it() -> None:
    lines = tour_lines()
    assert lines[0].startswith(". .venv/bin/activate")
    assert "pipx install ." in README.read_text(encoding="utf-8")
    assert "uv tool install ." in README.read_text(encoding="utf-8")
    # The two lines that keep running until Ctrl+C: last.
    assert lines[-2].startswith("mdmark preview")
    assert lines[-1].startswith("mdmark serve")


def test_the_readme_tour_runs_as_written(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if sys.prefix == sys.base_prefix or not (Path(sys.prefix) / "bin" / "activate").is_file():
        pytest.skip("the tests do not run in a virtual environment, so there is no .venv to activate")
    # A checkout whose .venv is the environment running these tests (the README's install command made it).
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(Path(sys.prefix))
    # A short scratch folder, as a login's TMPDIR is: Python 3.11's fork server puts its AF_UNIX
    # socket under TMPDIR, and a test's own folder under xdist is longer than such a path may be.
    scratch = Path(tempfile.mkdtemp(prefix="tour-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": FRESH_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TMPDIR": str(scratch),
        "MDMARK_PORT": str(_free_port()),
        "MDMARK_PREVIEW_PORT": str(_free_port()),
        "COLUMNS": "80",
    }
    fresh = subprocess.run(["bash", "--noprofile", "--norc", "-c", "command -v mdmark"], env=env, capture_output=True)
    assert fresh.returncode == 1, "a fresh shell already finds mdmark: the tour's first line would prove nothing"

    script = "set -ex\n" + "\n".join(tour_lines()) + "\n"
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc", "-c", script],
            cwd=checkout,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            _wait_for(err, "で見せています", proc)
            with socket.create_connection(("127.0.0.1", int(env["MDMARK_PREVIEW_PORT"])), timeout=30):
                pass  # the preview answers
            # Ctrl+C stops the preview (exit 0), and the shell goes on to the next line.
            os.killpg(proc.pid, signal.SIGINT)
            _wait_for(err, "で待ち受けています", proc)
            with socket.create_connection(("127.0.0.1", int(env["MDMARK_PORT"])), timeout=30):
                pass  # it answers
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl+C in the terminal does
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    stdout_text = out.read_text(encoding="utf-8")
    stderr_text = err.read_text(encoding="utf-8")
    assert code == 0, stderr_text

    (project,) = scratch.glob("*/myproject")
    assert (project / "docs" / "welcome.html").is_file()
    assert (project / "dist" / "docs.html").is_file()
    assert "索引 `index.yaml` の文書 `design` を足しました。" in stdout_text
    assert stderr_text.count("ずれは見つかりませんでした。") == 2  # both plain checks are clean
    assert '{\n  "issues": []\n}' in stdout_text
    assert "install\t" in stdout_text  # the guide's list
    assert "mdmark preview: 止めました。" in stderr_text
    assert "mdmark serve: 止めました。" in stderr_text
    assert "Traceback" not in stderr_text
