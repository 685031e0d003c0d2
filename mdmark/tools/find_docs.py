"""The MCP tool ``find_docs``: documents of the index by text, tags and relations (``mdmark find``)."""

from __future__ import annotations

from mdmark.declare import params
from mdmark.declare.tool import TOON_NOTE, ToolSpec, library_call, text_or_json

SPEC = ToolSpec.declare(
    name="find_docs",
    handler=library_call("mdmark.queries.find", "find_docs", text_or_json),
    title="文書を探す",
    description=(
        "設定の index の索引から、題・別名・概要の語（text）、タグ（tags は全て・any_tags はどれか）、"
        "関係する文書（related_to）で文書を引き、主題のタグが当たる文書を上にして limit 件（既定 20）ずつ返す（何も書き換えない）。"
        "結果は、format が markdown（既定）のときは、総件数・返した件数・合計文字数・next_cursor の行と文書の表（ID・題・概要・タグ・文字数ほか）"
        "のテキストだけを返す。format が json のときは total・returned・total_chars・next_cursor・hint・tag_counts・warnings・omitted・docs の JSON を返す。"
        "条件を 1 つも渡さないと全ての文書が当たる。当たる文書が 0 件でもエラーにはせず、総件数 0 件の結果（json では total が 0 で docs が空の並び）を返す。"
        "next_cursor が null なら続きは無く、値があれば cursor に渡して同じ条件で続きを引く。"
        "語彙に無いタグを渡したときは、そのタグのまま引き、近いタグを示す警告を添える。"
        + TOON_NOTE
    ),
    params=params.FIND_DOCS,
)
