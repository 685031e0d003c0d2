"""A title told apart: the first heading followed by a qualifier in parentheses.

Sphinx lets two documents share a first heading (a theme's documentation has two "Jupyter
notebooks"); the index cannot, since a title is a name that finds one document (``alias_conflict``).
So such a document's index title is its heading and a qualifier — ``Jupyter notebooks (content)``,
``はじめに（guide）`` — which ``mdmark init`` writes (:mod:`mdmark.queries.adopt`) and the
``title_mismatch`` rule accepts while the bare heading would collide with another document's name.
"""

from __future__ import annotations

import unicodedata


def qualified(heading: str, qualifier: str) -> str:
    """``heading`` told apart by ``qualifier``: full-width parentheses after a heading with wide
    (CJK) characters, else a space and ASCII parentheses."""
    heading = heading.strip()
    if any(unicodedata.east_asian_width(c) in ("W", "F") for c in heading):
        return f"{heading}（{qualifier}）"
    return f"{heading} ({qualifier})"


def qualifier_of(title: str, heading: str) -> str | None:
    """The qualifier when ``title`` is ``heading`` told apart (either form of :func:`qualified`), else None."""
    title, heading = title.strip(), heading.strip()
    if not heading or not title.startswith(heading):
        return None
    rest = title[len(heading) :]
    for opening, closing in ((" (", ")"), ("（", "）"), (" （", "）")):
        if rest.startswith(opening) and rest.endswith(closing):
            inner = rest[len(opening) : -len(closing)].strip()
            return inner if inner and "\n" not in inner else None
    return None
