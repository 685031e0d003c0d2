"""``format: toon``: the json answer's data as TOON v4 text (:mod:`mdmark.util.toon`)."""

from __future__ import annotations

from typing import Any

from mdmark.answers import Answer, Markdown
from mdmark.util.toon import encode

NAME = "toon"
ORDER = 2


def render(data: dict[str, Any], markdown: Markdown) -> Answer:
    return encode(data)
