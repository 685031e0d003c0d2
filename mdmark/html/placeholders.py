"""The placeholders a fragment holds where the page it goes into decides: their one grammar and
their one reader.

A fragment (:mod:`mdmark.html.render`) is written once per content and pasted into any page, so
what depends on other documents is left as a placeholder the page assembly fills in
(:func:`mdmark.html.links.fill`): a cross-reference's link, the text of a reference written
without any (the target's title), a toctree. Every placeholder is one token::

    U+E000 kind number "." key U+E001

``kind`` is one of :data:`KINDS`, ``number`` indexes the fragment's references (or its toctrees,
for ``toc``), ``key`` is the fragment's own (:func:`key_of` its document's text). The delimiters
are private-use characters; a document that holds the same characters in its text cannot hold its
own text's hash there, so what it wrote stays text, never a link, and never stops the page.
"""

from __future__ import annotations

import hashlib
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
    re.escape(OPEN) + "(" + "|".join(re.escape(k) for k in sorted(KINDS, key=len, reverse=True)) + r")(\d+)\.([0-9a-f]+)" + re.escape(CLOSE)
)

#: The attribute (the reference's number) and the href of a placeholder reference node the
#: doctree pass made, which the translator writes as the :data:`LINK` and :data:`LINK_END` tokens.
XREF_ATTRIBUTE = "mdmark_xref"
XREF_PREFIX = "mdmark:xref:"


def key_of(source: str) -> str:
    """The key of the placeholders of a fragment written from the document text ``source``."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def token(kind: str, number: int, key: str) -> str:
    """The placeholder of ``kind`` for reference (or toctree) ``number`` in the fragment of ``key``."""
    return f"{OPEN}{kind}{number}.{key}{CLOSE}"


def holds(html: str, kind: str, key: str) -> bool:
    """Whether ``html`` holds a placeholder of ``kind`` of the fragment of ``key``."""
    return any(match.group(1) == kind and match.group(3) == key for match in _TOKEN.finditer(html))


def fill(html: str, key: str, fillers: Mapping[str, Callable[[int], str | None]]) -> str:
    """``html`` with each placeholder of the fragment of ``key`` replaced by what the filler of its
    kind gives for its number; a kind without a filler is left out. What is not the fragment's own
    placeholder (another key, or a number the filler does not know: None) stays as written."""

    def one(match: re.Match[str]) -> str:
        if match.group(3) != key:
            return match.group(0)
        filler = fillers.get(match.group(1))
        if filler is None:
            return ""
        filled = filler(int(match.group(2)))
        return match.group(0) if filled is None else filled

    return _TOKEN.sub(one, html)
