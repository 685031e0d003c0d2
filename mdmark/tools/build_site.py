"""The MCP tool ``build_site``: the config's ``build`` documents as one navigable page (``mdmark build``)."""

from __future__ import annotations

from mdmark.declare.tool import CONFIG_PARAM, OUT_AND_WARNINGS, ToolSpec, library_call

SPEC = ToolSpec.declare(
    name="build_site",
    handler=library_call("mdmark.builders.build", "build_site"),
    title="複数の文書を 1 枚の HTML にまとめる",
    description=(
        "mdmark build と同じ処理で、設定の build に当たる文書を、目次から行き来できる 1 枚の HTML にまとめる"
        "（build.out の HTML は上書きする）。"
        '結果は JSON の {"out": 書き出した HTML の絶対パス, "docs": 入れた文書の数, "warnings": 切れた参照などの警告の文の並び}。'
        "warnings が空なら警告は無い。"
        "設定に build が無い、include に当たる文書が 0 件、設定ファイルを読めない、書き出せないときはエラーで、HTML は書かない。"
    ),
    params=(
        CONFIG_PARAM,
    ),
    output_schema={
        "type": "object",
        "properties": {
            "out": OUT_AND_WARNINGS["out"],
            "docs": {"type": "integer", "description": "入れた文書の数"},
            "warnings": OUT_AND_WARNINGS["warnings"],
        },
        "required": ["out", "docs", "warnings"],
    },
    read_only=False,
    destructive=True,
)
