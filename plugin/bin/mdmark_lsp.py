"""Start ``mdmark lsp`` for Claude Code: the installed mdmark, never one the opened repository holds.

Claude Code starts a plugin's language server in the folder of the repository it opened. This
launcher (standard library only: it runs on whatever ``python3`` is on PATH) finds the installed
mdmark as ``plugin/lib/find_mdmark.py`` says — the ``mdmark`` command on PATH (outside the project)
run through its own interpreter with ``-I``, else the launcher's ``python3`` when it imports mdmark —
and replaces itself with it, working folder ``/``, so the server talks to Claude Code directly on
stdin/stdout. Virtual environments inside the project or its parents are never looked for. With no
mdmark, it says in one sentence on stderr how to install it and exits 1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The plugin's own folder, never the working folder (the repository): see find_mdmark.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from find_mdmark import INSTALL_HINT, NEUTRAL_DIR, mdmark_command  # noqa: E402


def main() -> int:
    command = mdmark_command(dict(os.environ))
    if command is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 1
    os.chdir(NEUTRAL_DIR)
    os.execv(command[0], [*command, "lsp"])
    return 1  # not reached: execv replaces the process


if __name__ == "__main__":
    raise SystemExit(main())
