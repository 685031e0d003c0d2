"""The MCP tool ``list_tags``: the tag vocabulary with document counts (``mdmark tags``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mdmark.tools import params
from mdmark.tools.spec import TOON_NOTE, ToolOutcome, ToolSpec, text_or_json


def _call(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.find import list_tags

    assert start is not None
    return text_or_json(list_tags(start, **args))


SPEC = ToolSpec.declare(
    name="list_tags",
    handler=_call,
    title="タグの語彙を見る",
    description=(
        "設定の index の索引のタグの語彙を、名前・グループ・説明・別名・振り替え先（deprecated）と、"
        "付いている文書の数つきで、語彙の並びで返す（何も書き換えない）。付いている文書が 0 件のタグも返す。"
        "結果は、format が markdown（既定）のときはタグの表のテキストだけ、json のときは "
        '{"tags": [{"name", "group", "description", "aliases", "deprecated", "docs"}]} の JSON を返す。'
        "索引がタグの語彙を持たないときと、query に当たるタグが無いときは、タグの無い結果（json では空の tags）を返す。"
        + TOON_NOTE
    ),
    params=params.LIST_TAGS,
)
