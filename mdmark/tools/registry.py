"""The MCP tools (the seven of the contract, then outline and read_doc): their schemas, their argument handling, and the library call behind each.

Each tool is declared once (:meth:`ToolSpec.declare`): its parameters (:class:`Param`: JSON Schema
with the help agents read, whether required, the CLI form), its handler and its output schema. The
input schema, the missing-argument sentences and the options of the matching ``mdmark`` command
(:func:`add_cli_arguments`) all come from that declaration.

Nothing here knows about MCP transports: :func:`call_tool` takes a tool name and the raw JSON
arguments and returns a :class:`ToolOutcome` (texts, structured content, error flag), so the
server module only wraps it in protocol types. Every failure, from a wrong argument type to a
library :class:`~mdmark.errors.MdmarkError` or an unexpected exception, becomes an error outcome
with one Japanese sentence; no exception leaves :func:`call_tool`.

The argument checks come from the declarations too: :meth:`Param.check` (JSON type, enum, range,
blank) is the one validator of tool arguments. :func:`parse_arguments` runs it on an MCP call
(after unknown keys, missing required keys and ``project_dir``), and the library functions run it
through :func:`tool_arguments` on the values they are given, so the CLI, a direct call and the MCP
tool say the same sentence for the same mistake. Checks that need the project (an unknown id, a
section that is not there) stay in the library functions.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.util.bounds import check_path
from mdmark.diagnostics import DRIFT_KINDS
from mdmark.errors import MdmarkError
from mdmark.config.schema import bounds_text, choose_from, integral, type_name
from mdmark.util.text import quote_list, suggestion

if TYPE_CHECKING:
    import argparse

logger = logging.getLogger("mdmark.server")

#: The hidden argument the plugin's PreToolUse hook fills with CLAUDE_PROJECT_DIR.
PROJECT_DIR = "project_dir"

#: find_docs: the optional row fields (in row and column order), the fields every row has, the views.
FIELDS: tuple[str, ...] = ("path", "aliases", "related", "referenced_by")
BRIEF_FIELDS: tuple[str, ...] = ("id", "title", "description", "tags", "chars")
VIEWS: tuple[str, ...] = ("brief", "standard", "full")
#: The result formats of the tools that answer text or JSON.
FORMATS: tuple[str, ...] = ("markdown", "json", "toon")


@dataclass(frozen=True)
class ToolSpec:
    """One tool as ``tools/list`` shows it, plus how its arguments are read."""

    name: str
    title: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...] = ()
    output_schema: dict[str, Any] | None = None
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    takes_project_dir: bool = True
    #: What a required argument is, for the "missing argument" sentence.
    required_what: dict[str, str] = field(default_factory=dict)
    #: The declaration ``properties``, ``required`` and ``required_what`` come from (see :meth:`declare`).
    params: tuple[Param, ...] = ()
    handler: Handler | None = None

    @classmethod
    def declare(cls, *, name: str, handler: Handler, params: tuple[Param, ...], **rest: Any) -> ToolSpec:
        """A tool from its parameters: the input schema, the required names with what they are, and
        (through :func:`add_cli_arguments`) the options of the matching ``mdmark`` command."""
        required = [p for p in params if p.required is not None]
        return cls(
            name=name,
            properties={p.name: p.schema for p in params},
            required=tuple(p.name for p in required),
            required_what={p.name: p.required for p in required if p.required is not None},
            params=params,
            handler=handler,
            **rest,
        )

    def arguments(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter's value checked by its declaration (:meth:`Param.check`), in declaration order.

        An optional parameter given as None (or not at all) takes its schema's ``default`` (None
        when there is none): agents often send ``null`` for "not given". A required one has no
        default, so None is checked like any value (``item`` of update_index accepts it: "remove").
        """
        checked: dict[str, Any] = {}
        for param in self.params:
            value = values.get(param.name)
            if value is None and param.required is None:
                checked[param.name] = param.schema.get("default")
            else:
                checked[param.name] = param.check(value)
        return checked

    def input_schema(self) -> dict[str, Any]:
        # No "additionalProperties": false: the hidden project_dir is accepted although it is not
        # listed, and a client that enforced the flag would refuse the hook's input.
        schema: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            schema["required"] = list(self.required)
        return schema

    def annotations(self) -> dict[str, Any]:
        hints: dict[str, Any] = {"title": self.title, "readOnlyHint": self.read_only, "openWorldHint": False}
        if not self.read_only:
            hints["destructiveHint"] = self.destructive
            hints["idempotentHint"] = self.idempotent
        return hints


@dataclass(frozen=True)
class ImagePart:
    """An image content block: base64 ``data`` and its MIME type."""

    data: str
    mime: str


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced: one text per content block, the structured object or None.

    ``parts`` replaces ``texts`` when the answer also holds images (read_doc): texts and images
    in the order the content blocks go out.
    """

    texts: list[str]
    structured: dict[str, Any] | None = None
    is_error: bool = False
    parts: list[str | ImagePart] | None = None

    def content(self) -> list[str | ImagePart]:
        return list(self.parts) if self.parts is not None else list(self.texts)


def error(message: str) -> ToolOutcome:
    return ToolOutcome([message], None, True)


class ArgumentError(MdmarkError):
    """An argument the tool cannot take; the message is the one sentence the caller sees."""


# -- the library calls ------------------------------------------------------------------------


def _json(result: Any) -> ToolOutcome:
    return ToolOutcome([json.dumps(result, ensure_ascii=False)], result)


def _text_or_json(result: str | dict[str, Any]) -> ToolOutcome:
    if isinstance(result, str):
        return ToolOutcome([result])
    return _json(result)


def _read_guide(_start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.guide.reader import read_guide

    return ToolOutcome(read_guide(args["names"]))


def _export_html(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.builders.export import export_html

    assert start is not None
    return _json(export_html(start, args["file"], args.get("out"), args.get("config")))


def _build_site(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.builders.build import build_site

    assert start is not None
    return _json(build_site(start, args.get("config")))


def _check(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.check.collect import check

    assert start is not None
    return _json(check(start, args.get("config"), args.get("base")))


def _find_docs(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.find import find_docs

    assert start is not None
    return _text_or_json(find_docs(start, **args))


def _list_tags(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.find import list_tags

    assert start is not None
    return _text_or_json(list_tags(start, **args))


def _update_index(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.index.edit import update_index

    assert start is not None
    return _json(update_index(start, args["kind"], args["id"], args["item"], args.get("config")))


def _outline(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.outline import outline

    assert start is not None
    return _text_or_json(outline(start, **args))


def _read_doc(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
    from mdmark.queries.read_doc import read_doc

    assert start is not None
    parts: list[str | ImagePart] = [
        block.text if block.kind == "text" else ImagePart(block.data, block.mime) for block in read_doc(start, **args)
    ]
    return ToolOutcome([p for p in parts if isinstance(p, str)], parts=parts)


#: A tool's library call: the project folder (None for tools that take none) and the checked arguments.
Handler = Callable[[Path | None, dict[str, Any]], ToolOutcome]


@dataclass(frozen=True)
class CliArg:
    """How a parameter reads on the ``mdmark`` command that matches the tool (argparse)."""

    help: str
    #: The option strings; None means ``--name-with-dashes``, () a positional argument.
    flags: tuple[str, ...] | None = None
    #: Further argparse keywords: metavar, action, type, nargs, choices, required.
    options: Mapping[str, Any] = field(default_factory=dict)


def _spaced(words: str) -> str:
    """``words`` after は: a space in front of a number or a Latin word (``は 1 以上``, ``は brief の``)."""
    return f" {words}" if words[:1].isascii() else words


@dataclass(frozen=True)
class Param:
    """One parameter of a tool, declared once: its JSON Schema (with the help agents read), whether
    it is required (and what it is, for the missing-argument sentence), and its CLI form if any.

    The other fields only shape the sentences of :meth:`check` where the schema alone cannot.
    """

    name: str
    schema: dict[str, Any]
    required: str | None = None
    cli: CliArg | None = None
    #: How the type sentence names what is expected, when the JSON type does not say it well.
    expected: str | None = None
    #: What to pass instead of a blank string (a parameter that may not be blank: ``minLength``).
    blank: str | None = None
    #: Why a value outside the schema's ``enum`` (or the array items' ``enum``) is refused.
    not_allowed: str = "使えない"
    #: Values outside the enum refused for a reason of their own, without a close-name hint.
    refused: Mapping[str, str] = field(default_factory=dict)

    def _expected(self) -> str:
        if self.expected is not None:
            return self.expected
        kind = self.schema.get("type")
        if kind == "integer":
            bounds = bounds_text(self.schema.get("minimum"), self.schema.get("maximum"))
            return f"{bounds}の整数" if bounds else "整数"
        names = {"string": "文字列", "boolean": "真偽値（true か false）", "array": "文字列の並び"}
        assert isinstance(kind, str) and kind in names, f"no type sentence for {kind!r}"
        return names[kind]

    def _wrong_type(self, value: Any) -> ArgumentError:
        return ArgumentError(f"{self.name} は{_spaced(self._expected())}で渡してください（いまは{type_name(value)}です）。")

    def _choice(self, value: str, choices: Sequence[str]) -> None:
        if value in choices:
            return
        if value in self.refused:
            fix = choose_from(value, choices, hint=False)
            raise ArgumentError(f"{self.name} の `{value}` は{_spaced(self.refused[value])}ので、{fix}")
        raise ArgumentError(f"{self.name} の `{value}` は{_spaced(self.not_allowed)}ので、{choose_from(value, choices)}")

    def check(self, value: Any) -> Any:
        """``value`` if the declaration allows it (an integral float as an int); else ArgumentError
        with the one sentence for the first thing wrong: the JSON type, then the enum, range or blank."""
        kind = self.schema.get("type")
        if kind == "string":
            if not isinstance(value, str):
                raise self._wrong_type(value)
            if "enum" in self.schema:
                self._choice(value, self.schema["enum"])
            if self.blank is not None and not value.strip():
                raise ArgumentError(f"{self.name} が空なので、{self.blank}を渡してください。")
            return value
        if kind == "integer":
            number = integral(value)
            if number is None:
                raise self._wrong_type(value)
            low, high = self.schema.get("minimum"), self.schema.get("maximum")
            if (low is not None and number < low) or (high is not None and number > high):
                raise ArgumentError(f"{self.name} の {number} は範囲の外なので、{bounds_text(low, high)}の整数にしてください。")
            return number
        if kind == "boolean":
            if not isinstance(value, bool):
                raise self._wrong_type(value)
            return value
        if kind == "array":
            if not isinstance(value, list):
                raise self._wrong_type(value)
            for position, item in enumerate(value, start=1):
                if not isinstance(item, str):
                    raise ArgumentError(f"{self.name} の {position} 番目は文字列で渡してください（いまは{type_name(item)}です）。")
            if "enum" in self.schema["items"]:
                for item in value:
                    self._choice(item, self.schema["items"]["enum"])
            return list(value)
        if kind == ["object", "null"]:
            if value is not None and not isinstance(value, dict):
                raise self._wrong_type(value)
            return value
        raise AssertionError(f"no check for the type {kind!r}")  # every parameter of TOOLS has one above


def int_or_text(value: str) -> int | str:
    """An integer when it reads as one; otherwise the text, so the library says its own sentence (as over MCP)."""
    try:
        return int(value)
    except ValueError:
        return value


def add_cli_arguments(parser: argparse.ArgumentParser, tool: str, names: Sequence[str] | None = None) -> None:
    """Add to ``parser`` the CLI forms of ``tool``'s parameters: those ``names`` in that order, else
    every parameter that has one, in the declaration's order."""
    spec = TOOLS_BY_NAME[tool]
    by_name = {param.name: param for param in spec.params}
    for name in names if names is not None else [p.name for p in spec.params if p.cli is not None]:
        add_cli_argument(parser, by_name[name])


def add_cli_argument(parser: argparse.ArgumentParser, param: Param) -> None:
    cli = param.cli
    assert cli is not None, f"{param.name} has no CLI form"
    if cli.flags == ():
        parser.add_argument(param.name, help=cli.help, **cli.options)
    else:
        flags = cli.flags or ("--" + param.name.replace("_", "-"),)
        parser.add_argument(*flags, dest=param.name, help=cli.help, **cli.options)


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


_CONFIG = _string("使う設定ファイルのパス（相対パスは作業のフォルダから）。省くと作業のフォルダから上のフォルダへ順に mdmark.config.yaml を探す")
#: ``config``: every tool that reads a project takes it, and so does every command (``--config``).
CONFIG_PARAM = Param(
    "config", _CONFIG, cli=CliArg("使う設定ファイル。省くと今のフォルダから上へ mdmark.config.yaml を探す", options={"metavar": "PATH"})
)
_FORMAT_CLI = CliArg("markdown（既定）・json・toon", options={"default": None})
_FORMAT = {
    "type": "string",
    "enum": list(FORMATS),
    "default": "markdown",
    "description": "結果の形式。markdown（既定）は Markdown のテキストだけを返し、json は structuredContent と text に同じ JSON を入れる。"
    "toon は json と同じ中身を TOON v4 のテキストだけで返す（同じキーの要素の並びは `docs[2]{id,title}:` の見出しに 1 要素 1 行の表、無い値は null）",
}
#: What a TOON answer looks like, for the descriptions of the tools that answer one.
_TOON_NOTE = (
    "format が toon のときは、json と同じ中身を TOON v4 のテキストだけで返す（structuredContent は無い）。"
    "TOON は `キー: 値` の行と字下げで入れ子を書き、並びは `名前[件数]: a,b`、キーのそろったオブジェクトの並びは "
    "`名前[件数]{キー,キー}:` の見出しの下に 1 要素 1 行の表にし、無い値は null と書くので列はそろう。"
)
_STRINGS = {"type": "array", "items": {"type": "string"}}

_OUT_AND_WARNINGS: dict[str, dict[str, Any]] = {
    "out": {"type": "string", "description": "書き出した HTML の絶対パス"},
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "警告の文の並び。空なら警告は無い"},
}

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec.declare(
        name="read_guide",
        handler=_read_guide,
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
    ),
    ToolSpec.declare(
        name="export_html",
        handler=_export_html,
        title="文書を HTML に書き出す",
        description=(
            "mdmark export と同じ処理で、Markdown の文書を 1 つ、外へ何も要求しない 1 枚の HTML に書き出す"
            "（出力のパスにある HTML は上書きする）。相対パスは作業のフォルダから。"
            '結果は JSON の {"out": 書き出した HTML の絶対パス, "warnings": 警告の文の並び}。'
            "warnings が空なら警告は無い。"
            "file が無い、設定ファイルを読めない、書き出せないときはエラーで、HTML は書かない。"
        ),
        params=(
            Param("file", _string("書き出す Markdown のパス"), required="書き出す Markdown のパス", cli=CliArg("書き出す Markdown のファイル", flags=(), options={"metavar": "FILE"})),
            Param("out", _string("書き出す HTML のパス。省くと、文書と同じフォルダの拡張子を .html にしたパス"), cli=CliArg("書き出す HTML（既定: FILE の拡張子を .html にしたパス）", flags=("-o", "--out"), options={"metavar": "OUT"})),
            CONFIG_PARAM,
        ),
        output_schema={
            "type": "object",
            "properties": _OUT_AND_WARNINGS,
            "required": ["out", "warnings"],
        },
        read_only=False,
        destructive=True,
    ),
    ToolSpec.declare(
        name="build_site",
        handler=_build_site,
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
                "out": _OUT_AND_WARNINGS["out"],
                "docs": {"type": "integer", "description": "入れた文書の数"},
                "warnings": _OUT_AND_WARNINGS["warnings"],
            },
            "required": ["out", "docs", "warnings"],
        },
        read_only=False,
        destructive=True,
    ),
    ToolSpec.declare(
        name="check",
        handler=_check,
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
            Param("base", _string(
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
    ),
    ToolSpec.declare(
        name="find_docs",
        handler=_find_docs,
        title="文書を探す",
        description=(
            "設定の index の索引から、題・別名・概要の語（text）、タグ（tags は全て・any_tags はどれか）、"
            "関係する文書（related_to）で文書を引き、主題のタグが当たる文書を上にして limit 件（既定 20）ずつ返す（何も書き換えない）。"
            "結果は、format が markdown（既定）のときは、総件数・返した件数・合計文字数・next_cursor の行と文書の表（ID・題・概要・タグ・文字数ほか）"
            "のテキストだけを返す。format が json のときは total・returned・total_chars・next_cursor・hint・tag_counts・warnings・omitted・docs の JSON を返す。"
            "条件を 1 つも渡さないと全ての文書が当たる。当たる文書が 0 件でもエラーにはせず、総件数 0 件の結果（json では total が 0 で docs が空の並び）を返す。"
            "next_cursor が null なら続きは無く、値があれば cursor に渡して同じ条件で続きを引く。"
            "語彙に無いタグを渡したときは、そのタグのまま引き、近いタグを示す警告を添える。"
            + _TOON_NOTE
        ),
        params=(
            Param("text", _string("題・別名・概要のどれかに含まれる語。NFKC・英字の小文字化・前後の空白の除去で正規化して比べる"), cli=CliArg("題・別名・概要に含まれる語")),
            Param("tags", {
                **_STRINGS,
                "description": "全てを持つ文書に絞るタグ（AND）。語彙の別名は語彙の name として引く。空の配列は省いたときと同じ",
            }, cli=CliArg("全てを持つ文書に絞るタグ（繰り返せる、AND）", flags=("--tag",), options={"action": "append", "metavar": "TAG"})),
            Param("any_tags", {
                **_STRINGS,
                "description": "どれかを持つ文書に絞るタグ（OR）。tags と一緒に渡すと両方を満たす文書に絞る。空の配列は省いたときと同じ",
            }, cli=CliArg("どれかを持つ文書に絞るタグ（繰り返せる、OR）", flags=("--any-tag",), options={"action": "append", "metavar": "TAG"})),
            Param("related_to", _string(
                "この文書の ID から参照している文書と、この文書を参照している文書に絞る。各行に関係（relations）を添える"
            ), cli=CliArg("この ID の文書と参照し合う文書に絞る", options={"metavar": "ID"})),
            Param("limit", {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 20,
                "description": "1 回に返す文書の件数。1 以上 100 以下の整数。既定は 20",
            }, cli=CliArg("1 回に返す件数（1〜100、既定 20）", options={"type": int_or_text})),
            Param("cursor", _string(
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
            Param("format", _FORMAT, cli=_FORMAT_CLI),
            CONFIG_PARAM,
        ),
    ),
    ToolSpec.declare(
        name="list_tags",
        handler=_list_tags,
        title="タグの語彙を見る",
        description=(
            "設定の index の索引のタグの語彙を、名前・グループ・説明・別名・振り替え先（deprecated）と、"
            "付いている文書の数つきで、語彙の並びで返す（何も書き換えない）。付いている文書が 0 件のタグも返す。"
            "結果は、format が markdown（既定）のときはタグの表のテキストだけ、json のときは "
            '{"tags": [{"name", "group", "description", "aliases", "deprecated", "docs"}]} の JSON を返す。'
            "索引がタグの語彙を持たないときと、query に当たるタグが無いときは、タグの無い結果（json では空の tags）を返す。"
            + _TOON_NOTE
        ),
        params=(
            Param("query", _string(
                "タグの名前・別名・説明のどれかに含まれる語。NFKC・英字の小文字化・前後の空白の除去で正規化して比べる。省くと全てのタグを返す"
            ), cli=CliArg("名前・別名・説明に含まれる語")),
            Param("format", _FORMAT, cli=_FORMAT_CLI),
            CONFIG_PARAM,
        ),
    ),
    ToolSpec.declare(
        name="update_index",
        handler=_update_index,
        title="索引を書き換える",
        description=(
            "設定の index の索引で、kind（doc・term・tag）の一覧の id（tag はタグの name）の項目を item で丸ごと置き換える。"
            "その項目が無ければ一覧の末尾に足し、item が null なら消す。ほかの項目・コメント・キーの並びは書き換えない。"
            '結果は JSON の {"action": "added"・"replaced"・"removed" のどれか, "index": 設定ファイルのあるフォルダからの索引のパス}。'
            "書き換えた後の索引がスキーマに合わないときは、{場所}: {内容} の行を並べたエラーで、索引は書き換えない。"
            "文書の related は to・type・when（と任意の paths）を持つオブジェクトの並びで渡す。"
        ),
        params=(
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
        ),
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
    ),
)

#: The two tools for agents that read (md-vision's pattern): the heading index first, then one section.
READING_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec.declare(
        name="outline",
        handler=_outline,
        title="文書の見出しの索引を見る",
        description=(
            "文書の見出しの索引を返す（何も書き換えない）。target は索引の文書の ID、Markdown のパス、フォルダのどれか"
            "（フォルダは中の文書を、索引の並び、索引に無いものはパスの順で並べる）。"
            "文書ごとに、ID（索引に無ければ null）・パス・題・行数・文字数と、見出しごとに、レベル・見出しの文・アンカー"
            "（リンクと read_doc の section に使う）・最初と最後の行・文字数・画像の数を返す。コードの中の # の行は見出しではない。"
            "結果は、format が markdown（既定）のときは文書ごとの 1 行と見出しの表のテキストだけ、json のときは "
            '{"docs": [{"id", "path", "title", "lines", "chars", "headings": [{"level", "text", "anchor", "line", "end_line", "chars", "images"}]}], '
            '"warnings": 読めなかった文書の文の並び} の JSON を返す。'
            + _TOON_NOTE
            + "フォルダに文書が無いときは空の docs を返す。見出しの無い文書は空の headings。"
            "次は read_doc に section（アンカー）を渡して、要る節だけを読む。"
        ),
        params=(
            Param("target", _string("見出しを見る文書の ID、Markdown のパス、またはフォルダのパス（相対パスは作業のフォルダから）"), required="文書の ID か Markdown のパスかフォルダ", cli=CliArg("文書の ID、Markdown のパス、またはフォルダ", flags=(), options={"metavar": "TARGET"})),
            Param("format", _FORMAT, cli=_FORMAT_CLI),
            CONFIG_PARAM,
        ),
    ),
    ToolSpec.declare(
        name="read_doc",
        handler=_read_doc,
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
        params=(
            Param("target", _string("読む文書の ID か Markdown のパス（相対パスは作業のフォルダから）"), required="文書の ID か Markdown のパス", cli=CliArg("文書の ID か Markdown のパス", flags=(), options={"metavar": "TARGET"})),
            Param("section", _string("読む節のアンカー（outline の anchor）か見出しの文。下の節を含めて読む。lines と一緒には渡せない"), cli=CliArg("読む節のアンカー（outline の anchor）か見出しの文", options={"metavar": "ANCHOR"})),
            Param("lines", _string("読む行の範囲。`12-40` のように最初と最後の行の番号（1 から、両端を含む）。section と一緒には渡せない"), cli=CliArg("読む行の範囲（例: 12-40）", options={"metavar": "A-B"})),
            Param("max_images", {
                "type": "integer",
                "minimum": 0,
                "maximum": 50,
                "default": 10,
                "description": "画像のブロックにする画像の数の上限。0 以上 50 以下の整数。既定は 10。残りは Markdown のテキストのまま",
            }, cli=CliArg("画像として扱う数の上限（0〜50、既定 10）", options={"type": int_or_text, "metavar": "N"})),
            CONFIG_PARAM,
        ),
    ),
)

TOOLS = TOOLS + READING_TOOLS

TOOLS_BY_NAME: dict[str, ToolSpec] = {tool.name: tool for tool in TOOLS}


# -- argument handling ------------------------------------------------------------------------


def _project_dir(tool: str, arguments: Mapping[str, Any]) -> Path:
    if PROJECT_DIR not in arguments or arguments[PROJECT_DIR] is None:
        raise ArgumentError(
            f"{tool} に project_dir が無いので、作業のフォルダの絶対パスを project_dir に渡してください"
            "（Claude Code では、プラグインのフックがそこへ入れる CLAUDE_PROJECT_DIR があるか確かめてください）。"
        )
    value = arguments[PROJECT_DIR]
    if not isinstance(value, str):
        raise ArgumentError(f"project_dir は作業のフォルダの絶対パスの文字列で渡してください（いまは{type_name(value)}です）。")
    check_path(value, "project_dir")
    if not value or not os.path.isabs(value):
        raise ArgumentError(f"project_dir の `{value}` が絶対パスではないので、作業のフォルダの絶対パスを渡してください。")
    path = Path(value)
    if not path.exists():
        raise ArgumentError(f"project_dir の `{value}` というフォルダが無いので、あるフォルダの絶対パスを渡してください。")
    if not path.is_dir():
        raise ArgumentError(f"project_dir の `{value}` がフォルダではないので、作業のフォルダの絶対パスを渡してください。")
    return path


def parse_arguments(spec: ToolSpec, arguments: Mapping[str, Any] | None) -> tuple[Path | None, dict[str, Any]]:
    """``(project_dir, arguments)`` for the library call; raises ArgumentError with one sentence.

    An optional argument given as ``null`` counts as omitted (see :meth:`ToolSpec.arguments`).
    """
    given = dict(arguments or {})
    known = list(spec.properties)
    accepted = set(known) | ({PROJECT_DIR} if spec.takes_project_dir else set())
    unknown = [key for key in given if key not in accepted]
    if unknown:
        named = "・".join(f"`{key}`" + suggestion(key, known) for key in unknown)
        raise ArgumentError(
            f"引数 {named} は {spec.name} に無いので、外して呼んでください（使える引数: {quote_list(known)}）。"
        )
    project_dir = _project_dir(spec.name, given) if spec.takes_project_dir else None
    given.pop(PROJECT_DIR, None)
    missing = [name for name in spec.required if name not in given]
    if missing:
        whats = "・".join(spec.required_what.get(name, name) for name in missing)
        raise ArgumentError(f"{spec.name} の必須の引数 {quote_list(missing)} が無いので、{whats}を渡してください。")
    return project_dir, spec.arguments(given)


def tool_arguments(tool: str, **values: Any) -> dict[str, Any]:
    """The arguments of a library call checked by ``tool``'s declaration (:meth:`ToolSpec.arguments`):
    a library function checks what it is given so that the CLI and a direct call say the MCP tool's sentences."""
    return TOOLS_BY_NAME[tool].arguments(values)


def internal_error_message(exc: Exception) -> str:
    """The one sentence for an unexpected failure (its traceback goes to the server's stderr)."""
    return (
        f"mdmark の内部のエラー（{type(exc).__name__}: {exc}）で止まったので、"
        "mdmark serve の標準エラーに出た内容を添えて報告してください。"
    )


def call_tool(name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
    """Run one tool call to completion (blocking: the server runs it in a worker thread)."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        return error(
            f"ツール `{name}` は mdmark に無いので、{quote_list(TOOLS_BY_NAME)} のどれかを呼んでください"
            f"{suggestion(name, TOOLS_BY_NAME)}。"
        )
    try:
        start, args = parse_arguments(spec, arguments)
        assert spec.handler is not None  # every tool of TOOLS is declared with its handler
        return spec.handler(start, args)
    except ArgumentError as exc:
        return error(str(exc))
    except MdmarkError as exc:
        return error(exc.message)
    except Exception as exc:  # a traceback in front of an agent is a bug: log it, answer one sentence
        logger.exception("tool %s failed", name)
        return error(internal_error_message(exc))
