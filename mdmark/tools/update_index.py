"""The MCP tool ``update_index``: replace, add or remove one item of the index (``mdmark index``)."""

from __future__ import annotations

from mdmark.declare import params
from mdmark.declare.tool import ToolSpec, library_call

SPEC = ToolSpec.declare(
    name="update_index",
    handler=library_call("mdmark.queries.edit_index", "update_index"),
    title="索引を書き換える",
    description=(
        "設定の index の索引で、kind（doc・term・tag）の一覧の id（tag はタグの name）の項目を item で丸ごと置き換える。"
        "その項目が無ければ一覧の末尾に足し、item が null なら消す。ほかの項目・コメント・キーの並びは書き換えない。"
        '結果は JSON の {"action": "added"・"replaced"・"removed" のどれか, "index": 設定ファイルのあるフォルダからの索引のパス}。'
        "書き換えた後の索引がスキーマに合わないときは、{場所}: {内容} の行を並べたエラーで、索引は書き換えない。"
        "文書の related は to・type・when（と任意の paths）を持つオブジェクトの並びで渡す。"
    ),
    params=params.UPDATE_INDEX,
    output_schema={
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["added", "replaced", "removed"],
                "description": "added（追加した）・replaced（置き換えた）・removed（消した）",
            },
            "index": {"type": "string", "description": "書き換えた索引のファイルのパス。設定ファイルのあるフォルダからの相対パス"},
        },
        "required": ["action", "index"],
    },
    read_only=False,
    destructive=True,
)
