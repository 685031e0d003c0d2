"""``format: markdown`` (the default): the tool's own Markdown, text only."""

from __future__ import annotations

from typing import Any

from mdmark.answers import Answer, Markdown

NAME = "markdown"
ORDER = 0


def render(data: dict[str, Any], markdown: Markdown) -> Answer:
    return markdown(data)
