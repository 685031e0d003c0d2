"""Find the installed mdmark for the plugin's launchers, and nothing the opened repository holds.

Claude Code runs the hooks and the language-server launcher in the folder of the repository it
opened, and that repository may be a stranger's. So the launchers (standard library only,
loaded from the plugin's own folder, never from the working folder):

* take the ``mdmark`` command from PATH, skipping relative entries and entries inside the project
  (``CLAUDE_PROJECT_DIR``), and run it through the interpreter its first line names, by absolute
  path, with ``-I`` (isolated: neither the working folder nor the user's site nor ``PYTHON*``
  variables on ``sys.path``), ``-m mdmark``;
* else the ``python3`` running the launcher, when it imports mdmark in isolated mode;
* never look for virtual environments in the project or its parents (a repository can ship a
  ``.venv/bin/mdmark`` of its own);
* run from ``/``, so no relative name can resolve into the repository.

When none is found, :data:`INSTALL_HINT` (the one sentence both launchers say) tells how to install
mdmark as the install page of the guide does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

#: The working folder of every mdmark the plugin starts: outside any repository.
NEUTRAL_DIR = "/"

#: What the launchers say when mdmark is not installed (the guide's install page, step 1).
INSTALL_HINT = (
    "mdmark が見つからないので（PATH に mdmark のコマンドが無く、python3 から import もできません。"
    "プロジェクトの中の仮想環境は安全のため探しません）、mdmark のリポジトリのフォルダで `pipx install .` を実行して入れてください"
    "（使い方集の install）。"
)

#: pip's launcher for an interpreter path too long for ``#!``: ``'''exec' /path/python "$0" "$@"``.
_LONG_SHEBANG = re.compile(r"^'''exec' (?:\"([^\"]+)\"|(\S+))")


def project_dir(environ: dict[str, str]) -> Path | None:
    raw = environ.get("CLAUDE_PROJECT_DIR", "").strip()
    return Path(raw).resolve() if raw and os.path.isabs(raw) else None


def _inside(path: Path, folder: Path | None) -> bool:
    return folder is not None and (path == folder or folder in path.parents)


def interpreter_of(command: Path) -> Path | None:
    """The absolute interpreter a console script's first line names (``#!/abs/python``), if any."""
    try:
        with command.open("rb") as handle:
            head = handle.read(1024).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    named = head[0][2:].strip().split()
    if named and named[0] == "/bin/sh" and len(head) > 1:
        match = _LONG_SHEBANG.match(head[1])
        named = [match.group(1) or match.group(2)] if match else []
    if not named or not os.path.isabs(named[0]) or "python" not in Path(named[0]).name:
        return None
    path = Path(named[0])
    return path if path.is_file() and os.access(path, os.X_OK) else None


def _imports_mdmark(python: str) -> bool:
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('mdmark') is None)"
    try:
        done = subprocess.run(
            [python, "-I", "-c", probe], cwd=NEUTRAL_DIR, capture_output=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def mdmark_command(environ: dict[str, str]) -> list[str] | None:
    """``[python, "-I", "-X", "utf8", "-m", "mdmark"]`` for the installed mdmark, or None when there is none."""
    project = project_dir(environ)
    for entry in environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        folder = Path(entry).resolve()
        command = folder / "mdmark"
        if _inside(folder, project) or not command.is_file() or not os.access(command, os.X_OK):
            continue
        python = interpreter_of(command)
        if python is not None and not _inside(python.parent, project):
            return [str(python), "-I", "-X", "utf8", "-m", "mdmark"]
    python = sys.executable
    if python and os.path.isabs(python) and not _inside(Path(python).parent, project) and _imports_mdmark(python):
        return [python, "-I", "-X", "utf8", "-m", "mdmark"]
    return None
