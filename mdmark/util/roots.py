"""The project root: the one folder embedding, writing and trust are confined to.

Pure path questions (no Sphinx), so the config layer can ask them too: the git work tree holding a
folder, else the folder itself; and whether a path, links and ``..`` resolved, lies inside.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root(folder: Path) -> Path:
    """The git work tree holding ``folder`` (links resolved), else ``folder`` itself.

    Not memoised: a folder can become a work tree (``git init``) while a server runs, and the
    look-up is a few ``lstat`` calls per command."""
    real = folder.resolve()
    for probe in (real, *real.parents):
        if os.path.lexists(probe / ".git"):
            return probe
    return real


def inside(path: Path, root: Path) -> bool:
    """Whether ``path``, links and ``..`` resolved, lies in ``root`` (already resolved). The one
    "inside" test: a path that cannot be resolved (a link loop, a vanished folder) is not inside."""
    try:
        path.resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a link loop on older Pythons
        return False
    return True
