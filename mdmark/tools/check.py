"""The MCP tool ``check``: the drift between the config, the index and the documents (``mdmark check``)."""

from __future__ import annotations

from mdmark.core.diagnostics import DRIFT_KINDS
from mdmark.declare.tool import CONFIG_PARAM, CliArg, Param, ToolSpec, library_call, string

SPEC = ToolSpec.declare(
    name="check",
    handler=library_call("mdmark.check.collect", "check"),
    title="設定と索引を点検する",
    description=(
        "mdmark check と同じ点検をして、設定・索引・文書のずれの一覧を返す（何も書き換えない）。"
        '結果は JSON の {"issues": [{"file", "where", "kind", "message"}]}。'
        "file は設定ファイルのあるフォルダからの相対パス、where は行かキーのパス（無いときは空の文字列）、"
        "kind はずれの種類、message は何が合わないかと直し方の 1 文で、並びは mdmark check の出力と同じ。"
        "issues が空の並びなら、ずれは無い。ずれがあってもエラーにはしない。"
        "base に git の ref を渡すと、change_together の組の片側だけが変わった組も missed_change_together で返す。"
    ),
    params=(
        CONFIG_PARAM,
        Param("base", string(
            "直し忘れの検査に比べる基準の git の ref（mdmark check の --base と同じ）。"
            "渡すと change_together の組のうち片方の文書だけが変わった組を missed_change_together で返す。省くと直し忘れを検査しない"
        ), cli=CliArg("直し忘れ（missed_change_together）を、この git の ref と作業ツリー（未コミット・追跡外の新しいファイルを含む）を比べて調べる", options={"metavar": "REF"})),
    ),
    output_schema={
        "type": "object",
        "properties": {
            "issues": {
                "type": "array",
                "description": "ずれの一覧。空ならずれは無い",
                "items": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "description": "ずれのあるファイル。設定ファイルのあるフォルダからの相対パス"},
                        "where": {"type": "string", "description": "行かキーのパス。無いときは空の文字列"},
                        "kind": {"type": "string", "enum": list(DRIFT_KINDS), "description": "ずれの種類"},
                        "message": {"type": "string", "description": "何が合わないかと直し方の 1 文"},
                    },
                    "required": ["file", "where", "kind", "message"],
                },
            }
        },
        "required": ["issues"],
    },
)
