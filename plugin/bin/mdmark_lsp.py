"""Start ``mdmark lsp`` for Claude Code, wherever mdmark is installed.

Claude Code starts a plugin's language server with the PATH of the session, where mdmark is often
absent: it lives in the project's virtual environment. This launcher (standard library only: it
runs on whatever ``python3`` is on PATH) looks in order for the ``mdmark`` command on PATH, in the
active virtual environment (``VIRTUAL_ENV``), in ``.venv``/``venv`` of the project folder
(``CLAUDE_PROJECT_DIR``, else the working folder) and its parents, then for ``python3 -m mdmark``;
it replaces itself with the first one found, so the server talks to Claude Code directly on
stdin/stdout. With none, it says in one sentence on stderr how to install mdmark and exits 1.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

NOT_FOUND = (
    "mdmark が見つからないので（PATH・VIRTUAL_ENV・プロジェクトの .venv と venv のどこにも mdmark のコマンドが無く、"
    "python3 から import もできません）、mdmark を入れてください（`pipx install mdmark` か、プロジェクトの .venv に `pip install mdmark`）。"
)


def candidates() -> list[list[str]]:
    found: list[list[str]] = []
    on_path = shutil.which("mdmark")
    if on_path:
        found.append([on_path])
    folders: list[Path] = []
    venv = os.environ.get("VIRTUAL_ENV", "").strip()
    if venv:
        folders.append(Path(venv))
    start = Path(os.environ.get("CLAUDE_PROJECT_DIR", "").strip() or os.getcwd())
    for folder in (start, *start.parents):
        folders += [folder / ".venv", folder / "venv"]
    for folder in folders:
        command = folder / "bin" / "mdmark"
        if command.is_file() and os.access(command, os.X_OK):
            found.append([str(command)])
    if importlib.util.find_spec("mdmark") is not None:
        found.append([sys.executable, "-m", "mdmark"])
    return found


def main() -> int:
    found = candidates()
    if not found:
        print(NOT_FOUND, file=sys.stderr)
        return 1
    command = [*found[0], "lsp"]
    os.execv(command[0], command)
    return 1  # not reached: execv replaces the process


if __name__ == "__main__":
    raise SystemExit(main())
