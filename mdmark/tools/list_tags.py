"""The MCP tool ``list_tags``: the tag vocabulary with document counts (``mdmark tags``)."""

from __future__ import annotations

from mdmark.declare import params
from mdmark.declare.tool import TOON_NOTE, ToolSpec, library_call, text_or_json

SPEC = ToolSpec.declare(
    name="list_tags",
    handler=library_call("mdmark.queries.find", "list_tags", text_or_json),
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
