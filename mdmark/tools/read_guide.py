"""The MCP tool ``read_guide``: the packaged guide by page name (``mdmark guide``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mdmark.declare.tool import CliArg, Param, ToolOutcome, ToolSpec


def _call(_start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.guide.reader import read_guide

    return ToolOutcome(read_guide(args["names"]))


SPEC = ToolSpec.declare(
    name="read_guide",
    handler=_call,
    title="使い方集を読む",
    description=(
        "mdmark に同梱の使い方集を、索引の名前ごとに読む。"
        "結果は、names に渡した名前 1 つにつきテキストを 1 つ、渡した順に並べたもの（重なりは 1 つにまとめる）。"
        "各テキストは 1 行目が `# {名前}`、空行を挟んでその名前のページの本文（Markdown）。"
        "索引に無い名前が 1 つでもあるときは、近い名前（3 件まで）を示すエラーで、本文は 1 件も返さない。"
        "本文の合計が 50,000 文字を超えるときは、名前ごとの文字数を示すエラーで、本文は返さない（名前を分けて呼ぶ）。"
    ),
    params=(
        Param("names", {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "読む使い方集の名前の並び。1 件以上。重なりは 1 つにまとめる",
        }, required="読む使い方集の名前の並び", cli=CliArg("読むページの名前", flags=(), options={"nargs": "*", "metavar": "NAME"})),
    ),
    takes_project_dir=False,
)
