"""Each MCP tool is declared once (mdmark.server.tools): its input schema, the options of the
matching ``mdmark`` command and the argument checks all come from the one list of parameters."""

from __future__ import annotations

import argparse

import pytest

from mdmark.cli import build_parser
from mdmark.server.tools import TOOLS, TOOLS_BY_NAME, ToolSpec, parse_arguments

COMMANDS = {
    "read_guide": ("guide",),
    "export_html": ("export",),
    "build_site": ("build",),
    "check": ("check",),
    "find_docs": ("find",),
    "list_tags": ("tags",),
    "update_index": ("index", "set"),
    "outline": ("outline",),
    "read_doc": ("read",),
}


def _command(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = build_parser()
    for name in path:
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[name]
    return parser


def test_every_tool_has_a_command() -> None:
    assert set(COMMANDS) == set(TOOLS_BY_NAME)


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_schema_and_checks_come_from_the_parameters(spec: ToolSpec) -> None:
    assert spec.handler is not None
    assert spec.input_schema()["properties"] == {p.name: p.schema for p in spec.params}
    assert spec.required == tuple(p.name for p in spec.params if p.required is not None)
    assert set(spec.required_what) == set(spec.required)


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_command_options_come_from_the_parameters(spec: ToolSpec) -> None:
    command = _command(COMMANDS[spec.name])
    by_dest = {a.dest: a for a in command._actions}
    for param in spec.params:
        assert param.cli is not None, f"{spec.name}.{param.name} has no CLI form"
        action = by_dest[param.name]
        assert action.help == param.cli.help
        if param.cli.flags == ():
            assert action.option_strings == []
        else:
            assert action.option_strings == list(param.cli.flags or ("--" + param.name.replace("_", "-"),))


def test_a_declared_parameter_is_checked_by_its_schema() -> None:
    from mdmark.server.tools import ArgumentError

    with pytest.raises(ArgumentError, match="names の 1 番目は文字列"):
        parse_arguments(TOOLS_BY_NAME["read_guide"], {"names": [1]})
