"""How an MCP tool is declared: its parameters (:class:`Param`, with the JSON Schema agents read,
the CLI form and the one argument check), the tool (:class:`ToolSpec`) and what a call gives back
(:class:`ToolOutcome`).

Each tool is declared once, in its own module of :mod:`mdmark.tools`; the library functions that
check their own arguments declare the parameters next to themselves (``PARAMS``) and the tool
module takes them from there, so the library never imports a tool module.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.answers import names
from mdmark.declare.schema import bounds_text, integral, type_name
from mdmark.util.sentences import close_choice
from mdmark.core.errors import MdmarkError

if TYPE_CHECKING:
    import argparse


def check_arguments(params: tuple[Param, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter's value checked by its declaration, in declaration order (see :meth:`ToolSpec.arguments`)."""
    checked: dict[str, Any] = {}
    for param in params:
        value = values.get(param.name)
        if value is None and param.required is None:
            checked[param.name] = param.schema.get("default")
        else:
            checked[param.name] = param.check(value)
    return checked


#: The hidden argument the plugin's PreToolUse hook fills with CLAUDE_PROJECT_DIR.
PROJECT_DIR = "project_dir"

#: find_docs: the optional row fields (in row and column order), the fields every row has, the views.
FIELDS: tuple[str, ...] = ("path", "aliases", "related", "referenced_by")
BRIEF_FIELDS: tuple[str, ...] = ("id", "title", "description", "tags", "chars")
VIEWS: tuple[str, ...] = ("brief", "standard", "full")

#: The result formats of the tools that answer text or JSON.
FORMATS: tuple[str, ...] = names()


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
        return check_arguments(self.params, values)

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


def json_outcome(result: Any) -> ToolOutcome:
    return ToolOutcome([json.dumps(result, ensure_ascii=False)], result)


def text_or_json(result: str | dict[str, Any]) -> ToolOutcome:
    if isinstance(result, str):
        return ToolOutcome([result])
    return json_outcome(result)


def library_call(
    module: str, function: str, answer: Callable[[Any], ToolOutcome] = json_outcome
) -> Handler:
    """The handler of a tool that is one library call: ``module.function(project_dir, **arguments)``,
    its result turned into the outcome by ``answer``. The module is imported at the first call, so
    listing the tools (``tools/list``, the CLI's parser) imports no library code."""

    def call(start: Path | None, args: dict[str, Any]) -> ToolOutcome:
        assert start is not None, f"{function} takes project_dir"
        return answer(getattr(importlib.import_module(module), function)(start, **args))

    return call


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
            fix = close_choice(None, choices)
            raise ArgumentError(f"{self.name} の `{value}` は{_spaced(self.refused[value])}ので、{fix}")
        raise ArgumentError(f"{self.name} の `{value}` は{_spaced(self.not_allowed)}ので、{close_choice(value, choices)}")

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


def add_cli_argument(parser: argparse.ArgumentParser, param: Param) -> None:
    cli = param.cli
    assert cli is not None, f"{param.name} has no CLI form"
    if cli.flags == ():
        parser.add_argument(param.name, help=cli.help, **cli.options)
    else:
        flags = cli.flags or ("--" + param.name.replace("_", "-"),)
        parser.add_argument(*flags, dest=param.name, help=cli.help, **cli.options)


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


CONFIG = string("使う設定ファイルのパス（相対パスは作業のフォルダから）。省くと作業のフォルダから上のフォルダへ順に mdmark.config.yaml を探す")

#: ``config``: every tool that reads a project takes it, and so does every command (``--config``).
CONFIG_PARAM = Param(
    "config", CONFIG, cli=CliArg("使う設定ファイル。省くと今のフォルダから上へ mdmark.config.yaml を探す", options={"metavar": "PATH"})
)

FORMAT_CLI = CliArg("markdown（既定）・json・toon", options={"default": None})

FORMAT = {
    "type": "string",
    "enum": list(FORMATS),
    "default": "markdown",
    "description": "結果の形式。markdown（既定）は Markdown のテキストだけを返し、json は structuredContent と text に同じ JSON を入れる。"
    "toon は json と同じ中身を TOON v4 のテキストだけで返す（同じキーの要素の並びは `docs[2]{id,title}:` の見出しに 1 要素 1 行の表、無い値は null）",
}

#: What a TOON answer looks like, for the descriptions of the tools that answer one.
TOON_NOTE = (
    "format が toon のときは、json と同じ中身を TOON v4 のテキストだけで返す（structuredContent は無い）。"
    "TOON は `キー: 値` の行と字下げで入れ子を書き、並びは `名前[件数]: a,b`、キーのそろったオブジェクトの並びは "
    "`名前[件数]{キー,キー}:` の見出しの下に 1 要素 1 行の表にし、無い値は null と書くので列はそろう。"
)

STRINGS = {"type": "array", "items": {"type": "string"}}

OUT_AND_WARNINGS: dict[str, dict[str, Any]] = {
    "out": {"type": "string", "description": "書き出した HTML の絶対パス"},
    "warnings": {"type": "array", "items": {"type": "string"}, "description": "警告の文の並び。空なら警告は無い"},
}


def checked(params: tuple[Param, ...], **values: Any) -> dict[str, Any]:
    """The arguments of a library call checked by its declared parameters: a library function checks
    what it is given, so that the CLI and a direct call say the MCP tool's sentences."""
    return check_arguments(params, values)
