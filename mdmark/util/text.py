"""Text helpers shared by the index, the queries and the checks: normalisation and close names."""

from __future__ import annotations

import difflib
import posixpath
import re
import unicodedata
from collections.abc import Iterable
from typing import Any


def normalize(text: str) -> str:
    """NFKC, lower-case, strip: how names, queries, titles and aliases are compared everywhere."""
    return unicodedata.normalize("NFKC", text).lower().strip()


#: C0 controls (but tab and, where kept, newline), DEL and C1 controls: a terminal acts on them.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_CONTROL_KEEP_NEWLINE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str, keep_newlines: bool = False) -> str:
    """``text`` with control characters written as ``\\u001b`` escapes (valid in JSON strings too).

    Titles and file names come from other people's repositories: printed raw, an ESC could drive
    the reader's terminal and a newline could forge an output line.
    """
    pattern = _CONTROL_KEEP_NEWLINE if keep_newlines else _CONTROL
    return pattern.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


class SafeWriter:
    """A text stream that writes what it is given through :func:`terminal_safe` (newlines and tabs
    kept): the CLI's stdout and stderr while a command runs, so no output of any command (a title,
    a document's text, a file name) can drive the terminal, whichever function printed it.

    ``unescaped`` is the stream itself, for the one writer that means its control characters (the
    progress line's ``\\r`` and erase-line).
    """

    def __init__(self, stream: Any) -> None:
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write(terminal_safe(text, keep_newlines=True))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer…
        return getattr(self.unescaped, name)


def close_names(word: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` candidates that look like ``word`` (best first), compared after normalisation."""
    pool: dict[str, str] = {}
    for cand in candidates:
        pool.setdefault(normalize(cand), cand)
    target = normalize(word)
    found = difflib.get_close_matches(target, list(pool), n=n, cutoff=0.5)
    # A candidate that contains the word (or the reverse) is a strong hint even when short.
    for key in pool:
        if len(found) >= n:
            break
        if key not in found and target and (target in key or key in target):
            found.append(key)
    return [pool[key] for key in found[:n]]


def quote_list(names: Iterable[str]) -> str:
    """``a``・``b`` — how a sentence lists names."""
    return "・".join(f"`{name}`" for name in names)


def close_file(wanted: str, candidates: Iterable[str]) -> str | None:
    """The candidate path that looks most like ``wanted``: same suffix, then the closest file stem.

    Whole paths share folders and suffixes and would make any two files look alike, so only
    the stems (``old`` of ``docs/old.md``) are compared.
    """
    suffix = posixpath.splitext(wanted)[1].lower()
    by_stem: dict[str, str] = {}
    for cand in candidates:
        name = posixpath.basename(cand)
        stem, ext = posixpath.splitext(name)
        if ext.lower() == suffix and cand != wanted:
            by_stem.setdefault(stem, cand)
    wanted_stem = normalize(posixpath.splitext(posixpath.basename(wanted))[0])
    pool = {normalize(stem): cand for stem, cand in by_stem.items()}
    # Stricter than close_names: file names share many letters by chance.
    close = difflib.get_close_matches(wanted_stem, list(pool), n=1, cutoff=0.6)
    return pool[close[0]] if close else None
