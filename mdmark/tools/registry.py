"""The MCP tools, one module each (:mod:`mdmark.tools.find_docs`, …), gathered here: the tool list,
the CLI options that come from the declarations, argument parsing and dispatch.

Each tool is declared once (:meth:`~mdmark.declare.tool.ToolSpec.declare`): its parameters, its
handler and its output schema. The input schema, the missing-argument sentences and the options of
the matching ``mdmark`` command (:func:`add_cli_arguments`) all come from that declaration. Adding a
tool is one module in this package and one line in :data:`TOOLS`.

Nothing here knows about MCP transports: :func:`call_tool` takes a tool name and the raw JSON
arguments and returns a :class:`~mdmark.declare.tool.ToolOutcome` (texts, structured content, error
flag), so the server module only wraps it in protocol types. Every failure, from a wrong argument
type to a library :class:`~mdmark.core.errors.MdmarkError` or an unexpected exception, becomes an error
outcome with one Japanese sentence; no exception leaves :func:`call_tool`.

The argument checks come from the declarations too: :meth:`~mdmark.declare.tool.Param.check` (JSON
type, enum, range, blank) is the one validator of tool arguments. :func:`parse_arguments` runs it on
an MCP call (after unknown keys, missing required keys and ``project_dir``), and the library
functions run it on the values they are given (:func:`~mdmark.declare.tool.checked` with the
parameters they declare), so the CLI, a direct call and the MCP tool say the same sentence for the
same mistake. Checks that need the project (an unknown id, a section that is not there) stay in
the library functions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.declare.schema import type_name
from mdmark.core.errors import MdmarkError
from mdmark.tools import build_site, check, export_html, find_docs, list_tags, outline, read_doc, read_guide, update_index
from mdmark.declare.tool import PROJECT_DIR, ArgumentError, ToolOutcome, ToolSpec, add_cli_argument, error
from mdmark.util.bounds import check_path
from mdmark.util.sentences import close_note
from mdmark.util.text import quote_list

if TYPE_CHECKING:
    import argparse


#: The tools as ``tools/list`` shows them: the seven of the customer's specification, then the two reading tools.
TOOLS: tuple[ToolSpec, ...] = (
    read_guide.SPEC,
    export_html.SPEC,
    build_site.SPEC,
    check.SPEC,
    find_docs.SPEC,
    list_tags.SPEC,
    update_index.SPEC,
    outline.SPEC,
    read_doc.SPEC,
)

TOOLS_BY_NAME: dict[str, ToolSpec] = {tool.name: tool for tool in TOOLS}


def add_cli_arguments(parser: argparse.ArgumentParser, tool: str, names: Sequence[str] | None = None) -> None:
    """Add to ``parser`` the CLI forms of ``tool``'s parameters: those ``names`` in that order, else
    every parameter that has one, in the declaration's order."""
    spec = TOOLS_BY_NAME[tool]
    by_name = {param.name: param for param in spec.params}
    for name in names if names is not None else [p.name for p in spec.params if p.cli is not None]:
        add_cli_argument(parser, by_name[name])


def cli_arguments(args: argparse.Namespace, tool: str, names: Sequence[str] | None = None) -> dict[str, Any]:
    """The keyword arguments of ``tool``'s library call from the options :func:`add_cli_arguments`
    made (the same ``names``): each parameter's value as parsed, a flag not given left out (the
    tool's default then holds, as when an MCP call omits it)."""
    spec = TOOLS_BY_NAME[tool]
    by_name = {param.name: param for param in spec.params}
    out: dict[str, Any] = {}
    for name in names if names is not None else [p.name for p in spec.params if p.cli is not None]:
        value = getattr(args, name)
        cli = by_name[name].cli
        if value is False and cli is not None and cli.options.get("action") == "store_true":
            continue
        out[name] = value
    return out


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
        named = "・".join(f"`{key}`" + close_note(key, known) for key in unknown)
        raise ArgumentError(
            f"引数 {named} は {spec.name} に無いので、外して呼んでください（使える引数: {quote_list(known)}）。"
        )
    project_dir = _project_dir(spec.name, given) if spec.takes_project_dir else None
    given.pop(PROJECT_DIR, None)
    if project_dir is not None and isinstance(given.get("config"), str):
        from mdmark.project.main import require_config_inside

        require_config_inside(project_dir, given["config"])
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


def unknown_tool_message(name: str) -> str:
    """The one sentence for a tool name mdmark does not have (the server answers it as a JSON-RPC error)."""
    return (
        f"ツール `{name}` は mdmark に無いので、{quote_list(TOOLS_BY_NAME)} のどれかを呼んでください"
        f"{close_note(name, TOOLS_BY_NAME)}。"
    )


def call_tool(name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome:
    """Run one tool call to completion (blocking: the server runs it in a worker thread)."""
    spec = TOOLS_BY_NAME.get(name)
    if spec is None:
        return error(unknown_tool_message(name))
    try:
        start, args = parse_arguments(spec, arguments)
        assert spec.handler is not None  # every tool of TOOLS is declared with its handler
        return spec.handler(start, args)
    except ArgumentError as exc:
        return error(str(exc))
    except MdmarkError as exc:
        return error(exc.message)
    except Exception as exc:  # a traceback in front of an agent is a bug: log it, answer one sentence
        import logging  # only here: every CLI command imports this module

        logging.getLogger("mdmark.server").exception("tool %s failed", name)
        return error(internal_error_message(exc))
