"""Each MCP tool is declared once (mdmark.tools.registry): its input schema, the options of the
matching ``mdmark`` command and the argument checks all come from the one list of parameters."""

from __future__ import annotations

import argparse

import pytest

from mdmark.cli.main import build_parser
from mdmark.tools.registry import TOOLS, TOOLS_BY_NAME, parse_arguments
from mdmark.declare.tool import ToolSpec

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
    from mdmark.declare.tool import ArgumentError

    with pytest.raises(ArgumentError, match="names の 1 番目は文字列"):
        parse_arguments(TOOLS_BY_NAME["read_guide"], {"names": [1]})


# -- the one validator: every argument check of the tools and commands comes from the declarations --


def _both(tool: str, **args: object) -> str:
    """The sentence of the MCP path and of the library path (the CLI's), which must be the same."""
    from mdmark.tools.registry import tool_arguments
    from mdmark.declare.tool import ArgumentError

    with pytest.raises(ArgumentError) as by_library:
        tool_arguments(tool, **args)
    arguments = {p: "x" for p in TOOLS_BY_NAME[tool].required} | dict(args)
    spec = TOOLS_BY_NAME[tool]
    with pytest.raises(ArgumentError) as by_mcp:
        parse_arguments(spec, arguments | ({"project_dir": "/"} if spec.takes_project_dir else {}))
    assert by_mcp.value.message == by_library.value.message
    return by_library.value.message


@pytest.mark.parametrize(
    ("tool", "args", "sentence"),
    [
        ("find_docs", {"limit": "x"}, "limit は 1 以上 100 以下の整数で渡してください（いまは文字列です）。"),
        ("find_docs", {"limit": 101}, "limit の 101 は範囲の外なので、1 以上 100 以下の整数にしてください。"),
        ("find_docs", {"limit": True}, "limit は 1 以上 100 以下の整数で渡してください（いまは真偽値です）。"),
        ("find_docs", {"view": "ful"}, "view の `ful` は使えないので、近い `full` か、`brief`・`standard`・`full` のどれかにしてください。"),
        ("find_docs", {"view": 3}, "view は文字列で渡してください（いまは整数です）。"),
        ("find_docs", {"tags": "x"}, "tags は文字列の並びで渡してください（いまは文字列です）。"),
        ("find_docs", {"any_tags": ["x", 2]}, "any_tags の 2 番目は文字列で渡してください（いまは整数です）。"),
        ("find_docs", {"include": ["pth"]}, "include の `pth` は項目の名前ではないので、近い `path` か、`path`・`aliases`・`related`・`referenced_by` のどれかにしてください。"),
        ("find_docs", {"exclude": ["id"]}, "exclude の `id` は brief の項目で除けないので、`path`・`aliases`・`related`・`referenced_by` のどれかにしてください。"),
        ("find_docs", {"count_only": "yes"}, "count_only は真偽値（true か false）で渡してください（いまは文字列です）。"),
        ("list_tags", {"format": "yaml"}, "format の `yaml` は使えないので、`markdown`・`json`・`toon` のどれかにしてください。"),
        ("update_index", {"kind": "docs", "id": "a", "item": {}}, "kind の `docs` は使えないので、近い `doc` か、`doc`・`term`・`tag` のどれかにしてください。"),
        ("update_index", {"kind": "doc", "id": " ", "item": {}}, "id が空なので、文書か用語の ID（kind が tag のときはタグの name）を渡してください。"),
        ("update_index", {"kind": "doc", "id": None, "item": {}}, "id は文字列で渡してください（いまはnullです）。"),
        ("update_index", {"kind": "doc", "id": "a", "item": []}, "item はキーと値の組（項目を消すときは null）で渡してください（いまは並びです）。"),
        ("read_doc", {"target": "a", "max_images": 51}, "max_images の 51 は範囲の外なので、0 以上 50 以下の整数にしてください。"),
        ("read_guide", {"names": [1]}, "names の 1 番目は文字列で渡してください（いまは整数です）。"),
        ("export_html", {"file": "a.md", "out": 3}, "out は文字列で渡してください（いまは整数です）。"),
    ],
)
def test_one_validator_one_sentence(tool: str, args: dict[str, object], sentence: str) -> None:
    assert _both(tool, **args) == sentence


def test_checked_values_take_the_declared_defaults() -> None:
    from mdmark.tools.registry import tool_arguments

    assert tool_arguments("find_docs", limit=5.0, view=None) == {
        "text": None, "tags": None, "any_tags": None, "related_to": None, "limit": 5, "cursor": None, "view": "brief",
        "include": None, "exclude": None, "count_only": False, "format": "markdown", "config": None,
    }
    assert tool_arguments("read_doc", target="a")["max_images"] == 10
    # null is a value only where the schema allows it: item of update_index means "remove".
    assert tool_arguments("update_index", kind="doc", id="a", item=None)["item"] is None


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_every_declared_check_has_its_sentence(spec: ToolSpec) -> None:
    """Each parameter's check is driven by its schema: a bad value of each JSON type is refused."""
    wrong = {"string": 1, "integer": "1", "boolean": "1", "array": "1", ("object", "null"): 1}
    for param in spec.params:
        kind = param.schema["type"]
        with pytest.raises(Exception, match=f"^{param.name} は"):
            param.check(wrong[tuple(kind) if isinstance(kind, list) else kind])
        # A parameter that may not be blank says what to pass instead.
        assert (param.schema.get("minLength") == 1) == (param.blank is not None)


def test_library_modules_leave_argument_checks_to_the_declarations() -> None:
    """No library module writes its own type or range sentence for a tool argument."""
    import re
    from pathlib import Path

    import mdmark

    root = Path(mdmark.__file__).parent
    sentence = re.compile(r"は(?:文字列|整数|真偽値|文字列の並び|[^\"]*以下の整数)で渡してください（いまは")
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.as_posix() != (root / "declare" / "tool.py").as_posix() and sentence.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
