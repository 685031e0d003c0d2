"""The MCP tool ``outline``: a document's headings, anchors, lines and images (``mdmark outline``)."""

from __future__ import annotations

from mdmark.declare import params
from mdmark.declare.tool import TOON_NOTE, ToolSpec, library_call, text_or_json

SPEC = ToolSpec.declare(
    name="outline",
    handler=library_call("mdmark.queries.outline", "outline", text_or_json),
    title="文書の見出しの索引を見る",
    description=(
        "文書の見出しの索引を返す（何も書き換えない）。target は索引の文書の ID、Markdown のパス、フォルダのどれか"
        "（フォルダは中の文書を、索引の並び、索引に無いものはパスの順で並べる）。"
        "文書ごとに、ID（索引に無ければ null）・パス・題・行数・文字数と、見出しごとに、レベル・見出しの文・アンカー"
        "（リンクと read_doc の section に使う）・最初と最後の行・文字数・画像の数を返す。コードの中の # の行は見出しではない。"
        "結果は、format が markdown（既定）のときは文書ごとの 1 行と見出しの表のテキストだけ、json のときは "
        '{"docs": [{"id", "path", "title", "lines", "chars", "headings": [{"level", "text", "anchor", "line", "end_line", "chars", "images"}]}], '
        '"warnings": 読めなかった文書の文の並び} の JSON を返す。'
        + TOON_NOTE
        + "フォルダに文書が無いときは空の docs を返す。見出しの無い文書は空の headings。"
        "次は read_doc に section（アンカー）を渡して、要る節だけを読む。"
    ),
    params=params.OUTLINE,
)
