"""Raw HTML that would move the reader elsewhere or load something is dropped from pages.

The page's Content-Security-Policy stops scripts and remote loads, but not navigation: a
``<meta http-equiv="refresh" content="0;url=…">`` in a document sends the reader to any address
as soon as the page opens. These elements are removed (with a warning) before the page is written;
``<a href>`` stays, since following a link is the reader's choice.
"""

from __future__ import annotations

import re

#: Elements that navigate, load, or submit by themselves (or hold a document of their own).
DROPPED_TAGS = (
    "meta",
    "base",
    "link",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "portal",
    "form",
    "script",
)

_NAMES = "|".join(DROPPED_TAGS)
#: A script's text would show as text once its tags are gone: the whole element goes.
_SCRIPT = re.compile(r"<\s*script\b[^>]*>.*?<\s*/\s*script\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(rf"<\s*/?\s*({_NAMES})\b[^>]*>", re.IGNORECASE)


def drop_navigating(html: str) -> tuple[str, list[str]]:
    """``html`` without the elements of :data:`DROPPED_TAGS`, and the tag names dropped (in order, once each)."""
    dropped: list[str] = []

    def note(name: str) -> None:
        if name not in dropped:
            dropped.append(name)

    def whole(match: re.Match[str]) -> str:
        note("script")
        return ""

    def tag(match: re.Match[str]) -> str:
        if not match.group(0).lstrip("< \t\n").startswith("/"):
            note(match.group(1).lower())
        return ""

    cleaned = _TAG.sub(tag, _SCRIPT.sub(whole, html))
    return cleaned, dropped


def dropped_message(tag: str) -> str:
    """The warning for one dropped element."""
    return f"HTML の `<{tag}>` はページを勝手に移したり外から読み込んだりするので外したため、文書からその要素を消してください。"
