"""``format: json``: the data itself (the MCP tool puts it in structuredContent and, as JSON text, in the text)."""

from __future__ import annotations

from typing import Any

from mdmark.answers import Answer, Markdown

NAME = "json"
ORDER = 1


def render(data: dict[str, Any], markdown: Markdown) -> Answer:
    return data
