"""What of the Python environment a parse depends on, as a stamp: the installed packages.

conf.py's extensions, autodoc's targets and MyST itself come from the installed packages; a
failure to load one (``No module named …``) is remembered with the document's facts and the
configuration. Installing the missing package, as the sentence tells the user, must make mdmark
read again: the folders packages are installed into change their stamps when a package comes or
goes, so they are part of every cache key that conf.py's outcome is part of.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys


def site_folders() -> list[str]:
    """The folders on ``sys.path`` packages are installed into (``site-packages``, ``dist-packages``)."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def python_path() -> list[str]:
    """The folders ``PYTHONPATH`` puts on ``sys.path`` (a project's extensions and autodoc targets
    may be imported from them)."""
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]


def environment_digest() -> str:
    """A digest that changes when a package is installed, upgraded or removed, or ``PYTHONPATH``
    changes (sys.path's first entry is left out: it is the script's folder or the working
    directory, which differ between ``mdmark`` and ``python -m mdmark`` for one environment)."""
    parts = [sys.version, sys.prefix, *python_path()]
    for folder in site_folders():
        try:
            info = os.stat(folder)
        except OSError:
            continue
        parts.append(f"{folder}\0{info.st_ino}\0{info.st_mtime_ns}")
    return hashlib.sha256("\1".join(parts).encode()).hexdigest()[:16]


@functools.cache
def package_digest() -> str:
    """The digest of mdmark's own Python files (path, inode, size, mtime each), taken once per
    process — the code this process runs: an edited checkout (an editable install keeps its
    version) or a reinstall of the same version is other code, and must not meet the answers,
    snapshots or zygotes an older mdmark made."""
    import mdmark

    parts: list[str] = []
    top = os.path.dirname(os.path.abspath(mdmark.__file__))
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                parts.append(f"{path}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}")
    return hashlib.sha256("\1".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
