"""The MCP tool ``export_html``: one document as one self-contained HTML file (``mdmark export``)."""

from __future__ import annotations

from mdmark.declare.tool import CONFIG_PARAM, OUT_AND_WARNINGS, CliArg, Param, ToolSpec, library_call, string

SPEC = ToolSpec.declare(
    name="export_html",
    handler=library_call("mdmark.builders.export", "export_html"),
    title="文書を HTML に書き出す",
    description=(
        "mdmark export と同じ処理で、Markdown の文書を 1 つ、外へ何も要求しない 1 枚の HTML に書き出す"
        "（出力のパスにある HTML は上書きする）。相対パスは作業のフォルダから。"
        '結果は JSON の {"out": 書き出した HTML の絶対パス, "warnings": 警告の文の並び}。'
        "warnings が空なら警告は無い。"
        "file が無い、設定ファイルを読めない、書き出せないときはエラーで、HTML は書かない。"
    ),
    params=(
        Param("file", string("書き出す Markdown のパス"), required="書き出す Markdown のパス", cli=CliArg("書き出す Markdown のファイル", flags=(), options={"metavar": "FILE"})),
        Param("out", string("書き出す HTML のパス。省くと、文書と同じフォルダの拡張子を .html にしたパス"), cli=CliArg("書き出す HTML（既定: FILE の拡張子を .html にしたパス）", flags=("-o", "--out"), options={"metavar": "OUT"})),
        CONFIG_PARAM,
    ),
    output_schema={
        "type": "object",
        "properties": OUT_AND_WARNINGS,
        "required": ["out", "warnings"],
    },
    read_only=False,
    destructive=True,
)
