"""File globs as the config writes them: ``**`` spans folders, ``*`` does not; the files they match."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from pathlib import Path

#: The in-tree cache folder of older versions: never read any more, still never searched for documents.
CACHE_DIR_NAME = ".mdmark_cache"

#: Folders never searched for documents.
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", CACHE_DIR_NAME, ".venv", "venv", ".tox"}


def glob_match(rel: str, pattern: str) -> bool:
    """Whether a POSIX relative path matches a glob where ``**`` spans folders and ``*`` does not."""
    return _compile(pattern).fullmatch(rel) is not None


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    # Only a leading "./" goes ("./.github/*.md" keeps its dot folder).
    while pattern.startswith("./"):
        pattern = pattern[2:]
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            ch = pattern[i]
            if ch == "*":
                out.append("[^/]*")
            elif ch == "?":
                out.append("[^/]")
            elif ch == "[":
                end = pattern.find("]", i)
                if end == -1:
                    out.append(re.escape(ch))
                else:
                    out.append(fnmatch.translate(pattern[i : end + 1])[4:-3])
                    i = end
            else:
                out.append(re.escape(ch))
            i += 1
    return re.compile("".join(out))


def match_files(root: Path, include: tuple[str, ...], exclude: tuple[str, ...]) -> list[Path]:
    """Files under ``root`` matching an include glob and no exclude glob, sorted by path."""
    if not include:
        return []
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        rel_folder = Path(folder).relative_to(root).as_posix()
        for name in files:
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            if any(glob_match(rel, p) for p in include) and not any(glob_match(rel, p) for p in exclude):
                found.append(rel)
    return [root / rel for rel in sorted(found)]


