"""The parameters of the library functions that back MCP tools and check their own arguments,
declared once: the library checks its arguments with them (:func:`~mdmark.declare.tool.checked`), and
the tool modules and the CLI take their schema and options from them. They live here, beside the
declaration framework and away from the library's heavy imports, so building the CLI's parser stays
cheap and the library never imports a tool module.
"""

from __future__ import annotations

from mdmark.declare.tool import (
    BRIEF_FIELDS,
    CONFIG_PARAM,
    FIELDS,
    FORMAT,
    FORMAT_CLI,
    STRINGS,
    VIEWS,
    CliArg,
    Param,
    int_or_text,
    string,
)

#: The parameters of :func:`find_docs`, declared once: the MCP tool ``find_docs`` and the CLI take them from here.
FIND_DOCS: tuple[Param, ...] = (
    Param("text", string("題・別名・概要のどれかに含まれる語。NFKC・英字の小文字化・前後の空白の除去で正規化して比べる"), cli=CliArg("題・別名・概要に含まれる語")),
    Param("tags", {
        **STRINGS,
        "description": "全てを持つ文書に絞るタグ（AND）。語彙の別名は語彙の name として引く。空の配列は省いたときと同じ",
    }, cli=CliArg("全てを持つ文書に絞るタグ（繰り返せる、AND）", flags=("--tag",), options={"action": "append", "metavar": "TAG"})),
    Param("any_tags", {
        **STRINGS,
        "description": "どれかを持つ文書に絞るタグ（OR）。tags と一緒に渡すと両方を満たす文書に絞る。空の配列は省いたときと同じ",
    }, cli=CliArg("どれかを持つ文書に絞るタグ（繰り返せる、OR）", flags=("--any-tag",), options={"action": "append", "metavar": "TAG"})),
    Param("related_to", string(
        "この文書の ID から参照している文書と、この文書を参照している文書に絞る。各行に関係（relations）を添える"
    ), cli=CliArg("この ID の文書と参照し合う文書に絞る", options={"metavar": "ID"})),
    Param("limit", {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
        "description": "1 回に返す文書の件数。1 以上 100 以下の整数。既定は 20",
    }, cli=CliArg("1 回に返す件数（1〜100、既定 20）", options={"type": int_or_text})),
    Param("cursor", string(
        "前の結果の next_cursor。続きの文書を返す。絞り込みの条件（text・tags・any_tags・related_to）は前の呼び出しと同じにする"
    ), cli=CliArg("前の結果の next_cursor")),
    Param("view", {
        "type": "string",
        "enum": list(VIEWS),
        "default": "brief",
        "description": "各行に返す項目の組。brief（既定）は ID・題・概要・タグ・文字数、standard は brief にパス・別名を加え、"
        "full は standard に関連する文書・被参照の数を加える",
    }, cli=CliArg("brief（既定）・standard・full")),
    Param("include", {
        "type": "array",
        "items": {"type": "string", "enum": list(FIELDS)},
        "description": "view の組に加える項目。path・aliases・related・referenced_by の並び",
    }, cli=CliArg("加える項目（path・aliases・related・referenced_by）", options={"action": "append", "metavar": "FIELD"}),
        not_allowed="項目の名前ではない"),
    Param("exclude", {
        "type": "array",
        "items": {"type": "string", "enum": list(FIELDS)},
        "description": "view の組から除く項目。include の後に当て、brief の項目は除けない",
    }, cli=CliArg("除く項目", options={"action": "append", "metavar": "FIELD"}),
        not_allowed="項目の名前ではない", refused={name: "brief の項目で除けない" for name in BRIEF_FIELDS}),
    Param("count_only", {
        "type": "boolean",
        "default": False,
        "description": "true のとき、文書の行を返さず、総件数・合計文字数・タグごとの件数だけを返す。既定は false",
    }, cli=CliArg("件数・合計文字数・タグごとの件数だけを返す", options={"action": "store_true"})),
    Param("format", FORMAT, cli=FORMAT_CLI),
    CONFIG_PARAM,
)


#: The parameters of :func:`list_tags`, declared once: the MCP tool ``list_tags`` and the CLI take them from here.
LIST_TAGS: tuple[Param, ...] = (
    Param("query", string(
        "タグの名前・別名・説明のどれかに含まれる語。NFKC・英字の小文字化・前後の空白の除去で正規化して比べる。省くと全てのタグを返す"
    ), cli=CliArg("名前・別名・説明に含まれる語")),
    Param("format", FORMAT, cli=FORMAT_CLI),
    CONFIG_PARAM,
)


#: The parameters of :func:`outline`, declared once: the MCP tool ``outline`` and the CLI take them from here.
OUTLINE: tuple[Param, ...] = (
    Param("target", string("見出しを見る文書の ID、Markdown のパス、またはフォルダのパス（相対パスは作業のフォルダから）"), required="文書の ID か Markdown のパスかフォルダ", cli=CliArg("文書の ID、Markdown のパス、またはフォルダ", flags=(), options={"metavar": "TARGET"})),
    Param("format", FORMAT, cli=FORMAT_CLI),
    CONFIG_PARAM,
)


#: The parameters of :func:`read_doc`, declared once: the MCP tool ``read_doc`` and the CLI take them from here.
READ_DOC: tuple[Param, ...] = (
    Param("target", string("読む文書の ID か Markdown のパス（相対パスは作業のフォルダから）"), required="文書の ID か Markdown のパス", cli=CliArg("文書の ID か Markdown のパス", flags=(), options={"metavar": "TARGET"})),
    Param("section", string("読む節のアンカー（outline の anchor）か見出しの文。下の節を含めて読む。lines と一緒には渡せない"), cli=CliArg("読む節のアンカー（outline の anchor）か見出しの文", options={"metavar": "ANCHOR"})),
    Param("lines", string("読む行の範囲。`12-40` のように最初と最後の行の番号（1 から、両端を含む）。section と一緒には渡せない"), cli=CliArg("読む行の範囲（例: 12-40）", options={"metavar": "A-B"})),
    Param("max_images", {
        "type": "integer",
        "minimum": 0,
        "maximum": 50,
        "default": 10,
        "description": "画像のブロックにする画像の数の上限。0 以上 50 以下の整数。既定は 10。残りは Markdown のテキストのまま",
    }, cli=CliArg("画像として扱う数の上限（0〜50、既定 10）", options={"type": int_or_text, "metavar": "N"})),
    CONFIG_PARAM,
)


#: The parameters of :func:`update_index`, declared once: the MCP tool ``update_index`` and the CLI take them from here.
UPDATE_INDEX: tuple[Param, ...] = (
    Param("kind", {
        "type": "string",
        "enum": ["doc", "term", "tag"],
        "description": "書き換えるのが文書（doc）・用語（term）・タグの語彙（tag）のどれか",
    }, required="doc・term・tag のどれか", cli=CliArg("doc・term・tag", flags=(), options={"choices": ("doc", "term", "tag")})),
    Param("id", {
        "type": "string",
        "minLength": 1,
        "description": "文書か用語の ID。kind が tag のときはタグの name。空にできない",
    }, required="文書か用語の ID（tag はタグの name）", cli=CliArg("文書・用語の ID、タグの name", flags=()),
        blank="文書か用語の ID（kind が tag のときはタグの name）"),
    Param("item", {
        "type": ["object", "null"],
        "description": "その ID の項目の中身（文書・用語は id、タグは name を除くキー）。項目ごと置き換える。null なら項目を消す",
    }, required="項目の中身（消すときは null）", cli=CliArg('項目の中身（JSON。例: \'{"path": "b.md", "title": "文書 B"}\'）', options={"required": True, "metavar": "JSON"}),
        expected="キーと値の組（項目を消すときは null）"),
    CONFIG_PARAM,
)
