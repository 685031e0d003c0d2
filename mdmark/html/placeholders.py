"""The placeholders a fragment holds where the page it goes into decides: their one grammar and
their one reader.

A fragment (:mod:`mdmark.html.render`) is written once per content and pasted into any page, so
what depends on other documents is left as a placeholder the page assembly fills in
(:func:`mdmark.html.links.fill`): a cross-reference's link, the text of a reference written
without any (the target's title), a toctree. Every placeholder is one token::

    U+E000 kind number U+E001

``kind`` is one of :data:`KINDS`, ``number`` indexes the fragment's references (or its toctrees,
for ``toc``). The delimiters are private-use characters (U+E000, U+E001), which documents do not
use for text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

OPEN = "\ue000"
CLOSE = "\ue001"

#: The start tag of a reference's link (``<a …>``, or a ``<span>`` when it lands nowhere).
LINK = "a"
#: The end tag of a reference's link.
LINK_END = "/a"
#: The text of a reference written without any.
TEXT = "t"
#: A toctree (its number indexes the document's toctrees).
TOCTREE = "toc"
KINDS = (LINK, LINK_END, TEXT, TOCTREE)

#: The one grammar: kinds longest first, so ``/a`` is never read as ``a``.
_TOKEN = re.compile(
    re.escape(OPEN) + "(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True)) + r")(\d+)" + re.escape(CLOSE)
)

#: The href a reference's placeholder node carries between the doctree pass and the translator,
#: which writes the :data:`LINK` token in place of its start tag.
XREF_PREFIX = "mdmark:xref:"


def token(kind: str, number: int) -> str:
    """The placeholder of ``kind`` for reference (or toctree) ``number``."""
    return f"{OPEN}{kind}{number}{CLOSE}"


def xref_number(href: str) -> int | None:
    """The reference number of a placeholder node's href, None for any other href."""
    if not href.startswith(XREF_PREFIX):
        return None
    tail = href[len(XREF_PREFIX) :]
    return int(tail) if tail.isdigit() else None


def holds(html: str, kind: str) -> bool:
    """Whether ``html`` holds a placeholder of ``kind``."""
    return any(match.group(1) == kind for match in _TOKEN.finditer(html))


def fill(html: str, fillers: Mapping[str, Callable[[int], str]]) -> str:
    """``html`` with each placeholder replaced by what the filler of its kind gives for its number;
    a kind without a filler is left out."""

    def one(match: re.Match[str]) -> str:
        filler = fillers.get(match.group(1))
        return filler(int(match.group(2))) if filler is not None else ""

    return _TOKEN.sub(one, html)
