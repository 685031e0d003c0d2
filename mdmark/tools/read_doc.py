"""The MCP tool ``read_doc``: a document's source by section or lines, with its local images (``mdmark read``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mdmark.declare import params
from mdmark.declare.tool import ImagePart, ToolOutcome, ToolSpec


def _call(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.read_doc import read_doc

    assert start is not None
    parts: list[str | ImagePart] = [
        block.text if block.kind == "text" else ImagePart(block.data, block.mime) for block in read_doc(start, **args)
    ]
    return ToolOutcome([p for p in parts if isinstance(p, str)], parts=parts)


SPEC = ToolSpec.declare(
    name="read_doc",
    handler=_call,
    title="文書を画像ごと読む",
    description=(
        "文書の Markdown を、全体・1 つの節（section: outline のアンカーか見出しの文。下の節を含む）・行の範囲（lines: `12-40`）で読む（何も書き換えない）。"
        "結果は、文書の並びのままの内容のブロックの並び: Markdown のテキストと、ローカルの画像（Markdown の画像・{image}・{figure}・<img>・"
        "sphinx-design のカードの画像）ごとに、画像の名前と行を書いた短いテキストに続く画像のブロック。"
        "PNG・JPEG・GIF・WebP はそのまま、長い辺が 1568 px か 3.75 MB を超えるものは縮小して返し、SVG はテキストで返す。"
        "画像は max_images 枚（既定 10、最大 50）までで、残りは Markdown のテキストのまま。"
        "外の URL の画像は読みに行かず、プロジェクトのフォルダの外の画像とファイルの無い画像は読まず、そのことを短いテキストで書く。"
        "空の文書は空のテキストを 1 つ返す。"
        "テキストが 50,000 文字を超えるときはエラーで、outline で見出しを確かめて section か lines で絞る。"
    ),
    params=params.READ_DOC,
)
