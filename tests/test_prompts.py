"""The MCP prompts of ``mdmark serve`` through the SDK's own client, over HTTP and stdio.

Every prompt text is read back from a real server and held to ``tools/list``: each tool it names,
each argument it passes, and each enum value it uses must be the server's own, so a renamed tool
cannot leave a stale prompt. The per-kind fixes of ``fix_drift`` must be the guide's.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from test_mcp import Served, connect, start_server, stop_server

from mdmark.config.main import CONFIG_SCHEMA
from mdmark.declare.schema import Key, ListOf, Record
from mdmark.core.diagnostics import DRIFT_KINDS
from mdmark.guide.reader import page_text
from mdmark.index.model import INDEX_SCHEMA, RELATION_TYPES, REVERSE_TYPES
from mdmark.server.prompts import (
    PROMPTS,
    guide_fixes,
    reading_tools,
    render_prompt,
    split_tags,
    tool_call,
)
from mdmark.tools.registry import TOOLS_BY_NAME
from mdmark.declare.tool import ToolSpec

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parent.parent
PROMPT_NAMES = ["write_doc", "fix_drift", "review_change", "explain_doc"]
ARGUMENTS = {
    "write_doc": [("topic", True), ("tags", False)],
    "fix_drift": [("kind", False)],
    "review_change": [("base", True)],
    "explain_doc": [("id", True)],
}
#: Valid arguments for each prompt: every optional one given once and left out once.
VALID: list[tuple[str, dict[str, str]]] = [
    ("write_doc", {"topic": "解析のキャッシュ"}),
    ("write_doc", {"topic": "解析のキャッシュ", "tags": "設計,性能"}),
    ("fix_drift", {}),
    ("fix_drift", {"kind": "title_mismatch"}),
    ("review_change", {"base": "origin/main"}),
    ("explain_doc", {"id": "arch"}),
]
JAPANESE = re.compile(r"[ぁ-んァ-ン一-龥]")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = start_server(tmp_path_factory.mktemp("prompts"))
    yield served
    assert stop_server(served) == 0, served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()


# -- what a prompt text mentions --------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """A tool as tools/list shows it: its argument schemas and the required ones."""

    properties: dict[str, Any]
    required: list[str]


def listed_from_specs(specs: Mapping[str, ToolSpec]) -> dict[str, Listed]:
    return {name: Listed(spec.input_schema()["properties"], list(spec.required)) for name, spec in specs.items()}


def _record_keys(record: Record) -> Iterator[str]:
    for name, key in record.keys.items():
        yield name
        yield from _spec_keys(key)


def _spec_keys(key: Key) -> Iterator[str]:
    spec = key.spec
    while isinstance(spec, ListOf):
        spec = spec.item
    if isinstance(spec, Record):
        yield from _record_keys(spec)
    for option in getattr(spec, "options", ()):
        if isinstance(option, Record):
            yield from _record_keys(option)


def _schema_keys(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for name, value in schema.get("properties", {}).items():
            yield name
            yield from _schema_keys(value)
        yield from _schema_keys(schema.get("items"))


def vocabulary(tools: Mapping[str, Listed], output_schemas: list[Any]) -> set[str]:
    """Identifiers a prompt may show in backticks without being a tool or one of its arguments:
    drift kinds, relation types, index and config keys, tool result fields."""
    words = set(DRIFT_KINDS) | set(RELATION_TYPES) | set(REVERSE_TYPES.values())
    words |= set(_record_keys(INDEX_SCHEMA)) | set(_record_keys(CONFIG_SCHEMA))
    for schema in output_schemas:
        words |= set(_schema_keys(schema))
    # find_docs's relations (it declares no output schema: its markdown results carry none).
    words |= {"relations", "direction", "outgoing", "incoming"}
    return words


_SPAN = re.compile(r"`([^`\n]+)`")
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*) (\{.*\})$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_mentions(text: str, tools: Mapping[str, Listed], words: set[str], values: Mapping[str, str]) -> list[str]:
    """Assert every tool call and identifier in ``text`` exists; return the tools it calls."""
    called: list[str] = []
    arguments = {name for tool in tools.values() for name in tool.properties}
    for span in _SPAN.findall(text):
        call = _CALL.match(span)
        if call:
            name, args = call.group(1), json.loads(call.group(2))
            assert name in tools, (name, span)
            tool = tools[name]
            assert set(args) <= set(tool.properties), (span, sorted(tool.properties))
            assert set(tool.required) <= set(args), (span, tool.required)
            for key, value in args.items():
                enum = tool.properties[key].get("enum") or tool.properties[key].get("items", {}).get("enum")
                shown = value if isinstance(value, list) else [value]
                if enum:
                    assert all(v in enum for v in shown if not str(v).startswith("<")), (span, key, enum)
            called.append(name)
        elif _IDENT.match(span):
            assert span in tools or span in arguments or span in words or span in values.values(), (span, text)
    return called


# -- prompts/list ---------------------------------------------------------------------------------


async def test_prompts_list(server: Served) -> None:
    async with connect(server) as client:
        assert client.server_capabilities.prompts is not None
        prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == PROMPT_NAMES
    for prompt in prompts:
        assert prompt.title and JAPANESE.search(prompt.title)
        assert prompt.description and JAPANESE.search(prompt.description)
        assert prompt.arguments is not None
        assert [(a.name, bool(a.required)) for a in prompt.arguments] == ARGUMENTS[prompt.name]
        for argument in prompt.arguments:
            assert argument.description and JAPANESE.search(argument.description), (prompt.name, argument.name)


# -- prompts/get and the tools it names -----------------------------------------------------------


async def _texts(client: Client) -> list[tuple[str, dict[str, str], str]]:
    found = []
    for name, arguments in VALID:
        result = await client.get_prompt(name, arguments)
        assert result.description and JAPANESE.search(result.description)
        (message,) = result.messages
        assert message.role == "user"
        assert message.content.type == "text"
        found.append((name, arguments, message.content.text))
    return found


async def test_every_tool_a_prompt_names_is_in_tools_list(server: Served) -> None:
    async with connect(server) as client:
        listed_tools = (await client.list_tools()).tools
        texts = await _texts(client)
    tools = {t.name: Listed(t.input_schema["properties"], t.input_schema.get("required", [])) for t in listed_tools}
    words = vocabulary(tools, [t.output_schema for t in listed_tools if t.output_schema])
    called: dict[str, set[str]] = {}
    for name, arguments, text in texts:
        assert JAPANESE.search(text)
        assert "Traceback" not in text
        called.setdefault(name, set()).update(check_mentions(text, tools, words, arguments))
        for value in arguments.values():
            if name != "write_doc":
                assert value in text, (name, value)
    # The descriptions of prompts/list name tools too (in plain text): no unknown snake_case name.
    async with connect(server) as client:
        prompts = (await client.list_prompts()).prompts
    known = set(tools) | {name for tool in tools.values() for name in tool.properties} | words
    for prompt in prompts:
        for part in [prompt.description or "", *(a.description or "" for a in prompt.arguments or [])]:
            for word in re.findall(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+", part):
                assert word in known, (prompt.name, word)
    assert called["write_doc"] >= {"read_guide", "list_tags", "find_docs", "update_index", "check"}
    assert called["fix_drift"] >= {"check", "update_index", "read_guide"}
    assert called["review_change"] >= {"check", "find_docs"}
    assert "find_docs" in called["explain_doc"]


async def test_prompt_texts_follow_the_arguments(server: Served) -> None:
    async with connect(server) as client:
        texts = {(name, json.dumps(args, ensure_ascii=False)): text for name, args, text in await _texts(client)}
    write = texts[("write_doc", '{"topic": "解析のキャッシュ", "tags": "設計,性能"}')]
    assert '`find_docs {"text": "解析のキャッシュ", "view": "full"}`' in write
    assert '`find_docs {"any_tags": ["設計", "性能"], "include": ["path"]}`' in write
    assert '"type": "change_together"' not in write  # the pair is described, never prefilled
    assert '`check {"base": "origin/main"}`' in texts[("review_change", '{"base": "origin/main"}')]
    assert '`find_docs {"related_to": "arch", "view": "full"}`' in texts[("explain_doc", '{"id": "arch"}')]
    every = texts[("fix_drift", "{}")]
    one = texts[("fix_drift", '{"kind": "title_mismatch"}')]
    for kind in DRIFT_KINDS:
        assert f"   - `{kind}`: " in every, kind
        assert (f"   - `{kind}`: " in one) is (kind == "title_mismatch"), kind
    assert "check.disable" in every  # named to be refused, never to be used


def test_fix_drift_gives_the_guides_fix_for_each_kind() -> None:
    """The fix column of the check page's table, link for link, is in the prompt."""
    page = page_text(REPO / "mdmark" / "guide" / "check.md", "guide/check.md")
    fixes = guide_fixes()
    assert list(fixes) == list(DRIFT_KINDS)
    _spec, text = render_prompt("fix_drift", {})
    for kind, fix in fixes.items():
        row = next(line for line in page.splitlines() if line.startswith(f"| `{kind}` |"))
        guide_fix = row.strip().strip("|").split("|")[2].strip()
        assert re.sub(r"（使い方集の [a-z-]+）", "", fix) == re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", guide_fix)
        assert f"   - `{kind}`: {fix}。" in text


# -- errors ----------------------------------------------------------------------------------------

MISSING = {
    "write_doc": "プロンプト write_doc の必須の引数 `topic` が無いので、書く文書の主題（空白を入れない 1 語。例: 解析のキャッシュ）を渡してください。",
    "review_change": "プロンプト review_change の必須の引数 `base` が無いので、比べる基準の git の ref（例: origin/main）を渡してください。",
    "explain_doc": "プロンプト explain_doc の必須の引数 `id` が無いので、説明する文書の ID（索引の docs の id）を渡してください。",
}
BAD: list[tuple[str, dict[str, str], str]] = [
    ("write_doc", {}, MISSING["write_doc"]),
    ("write_doc", {"topic": "  ", "tags": "設計"}, MISSING["write_doc"]),
    ("review_change", {}, MISSING["review_change"]),
    ("explain_doc", {"id": ""}, MISSING["explain_doc"]),
    ("explain_doc", {"doc": "arch"}, "引数 `doc` はプロンプト explain_doc に無いので、外してください（使える引数: `id`）。"),
    (
        "fix_drift",
        {"kind": "title_mismatc"},
        "kind の `title_mismatc` はずれの種類に無いので、"
        + "・".join(f"`{k}`" for k in DRIFT_KINDS)
        + " のどれかを渡すか、省いてください（近い名前: `title_mismatch`）。",
    ),
    (
        "write_docs",
        {"topic": "x"},
        "プロンプト `write_docs` は mdmark に無いので、`write_doc`・`fix_drift`・`review_change`・`explain_doc` "
        "のどれかを指定してください（近い名前: `write_doc`）。",
    ),
]


async def _error(client: Client, name: str, arguments: dict[str, str]) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.get_prompt(name, arguments)
    return caught.value


@pytest.mark.parametrize(("name", "arguments", "message"), BAD)
async def test_prompts_get_errors(server: Served, name: str, arguments: dict[str, str], message: str) -> None:
    async with connect(server) as client:
        error = await _error(client, name, arguments)
    assert error.code == -32602  # invalid params, as the MCP specification asks of prompts/get
    assert error.message == message


async def test_legacy_handshake_client_gets_the_prompts(server: Served) -> None:
    """Claude Code speaks the handshake era: the same list, texts and errors."""
    async with connect(server, mode="legacy") as client:
        prompts = (await client.list_prompts()).prompts
        texts = await _texts(client)
        error = await _error(client, "write_doc", {})
    async with connect(server) as client:
        assert [p.model_dump() for p in prompts] == [p.model_dump() for p in (await client.list_prompts()).prompts]
        assert texts == await _texts(client)
    assert (error.code, error.message) == (-32602, MISSING["write_doc"])


async def test_stdio_serves_the_same_prompts(server: Served, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mdmark", "serve", "--stdio"], cwd=str(tmp_path))
    async with Client(params, read_timeout_seconds=120) as client:
        assert client.server_capabilities.prompts is not None
        stdio_prompts = (await client.list_prompts()).prompts
        stdio_texts = await _texts(client)
        errors = [await _error(client, name, {}) for name in MISSING]
    async with connect(server) as client:
        http_prompts = (await client.list_prompts()).prompts
        http_texts = await _texts(client)
    assert [p.model_dump(by_alias=True) for p in stdio_prompts] == [p.model_dump(by_alias=True) for p in http_prompts]
    assert stdio_texts == http_texts
    assert [(e.code, e.message) for e in errors] == [(-32602, message) for message in MISSING.values()]


# -- the registry decides what a prompt names ----------------------------------------------------


def _reading_tool(name: str, properties: list[str], required: tuple[str, ...]) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=name,
        description="結果は見出しの索引。",
        properties={key: {"type": "string", "description": "説明"} for key in properties},
        required=required,
    )


@pytest.mark.parametrize("target", ["id", "doc"])
def test_explain_doc_uses_the_reading_tools_once_registered(target: str) -> None:
    registry = {
        **TOOLS_BY_NAME,
        "outline": _reading_tool("outline", [target, "format", "config"], (target,)),
        "read_doc": _reading_tool("read_doc", [target, "section", "lines", "max_images", "config"], (target,)),
    }
    assert reading_tools(registry) == (target, target, "section")
    _spec, text = render_prompt("explain_doc", {"id": "arch"}, registry)
    assert f'`outline {{"{target}": "arch"}}`' in text
    assert f'`read_doc {{"{target}": "arch", "section": "<最初の節の見出し>"}}`' in text
    assert '"view": "standard"' not in text  # no fallback to reading the index for the path
    tools = listed_from_specs(registry)
    called = check_mentions(text, tools, vocabulary(tools, []), {"id": "arch"})
    assert called == ["find_docs", "outline", "read_doc"]


def test_explain_doc_falls_back_to_find_docs() -> None:
    # The real registry has both reading tools (the text using them is checked above); without them:
    without = {name: spec for name, spec in TOOLS_BY_NAME.items() if name not in ("outline", "read_doc")}
    assert reading_tools(without) is None
    _spec, text = render_prompt("explain_doc", {"id": "arch"}, without)
    assert "outline" not in text and "read_doc" not in text
    assert '`find_docs {"view": "standard", "limit": 100}`' in text
    # outline without read_doc: the headings from outline, the rest from relations.
    registry = {**without, "outline": _reading_tool("outline", ["path"], ())}
    _spec, text = render_prompt("explain_doc", {"id": "arch"}, registry)
    assert '`outline {"path": "arch"}`' in text and "read_doc" not in text


def test_a_renamed_tool_or_argument_fails_the_rendering() -> None:
    renamed = {("search_docs" if name == "find_docs" else name): spec for name, spec in TOOLS_BY_NAME.items()}
    for name, arguments in VALID:
        if name != "fix_drift" or arguments:
            with pytest.raises(LookupError, match="find_docs"):
                render_prompt(name, arguments, renamed)
    with pytest.raises(LookupError, match="without required"):
        tool_call(TOOLS_BY_NAME, "update_index", {"kind": "doc", "id": "x"})
    with pytest.raises(LookupError, match="unknown"):
        tool_call(TOOLS_BY_NAME, "check", {"ref": "main"})


def test_split_tags() -> None:
    assert split_tags("設計,性能、 MCP ,,") == ["設計", "性能", "MCP"]
    assert split_tags("") == []


# -- where a user meets the prompts ------------------------------------------------------------------


def test_guide_page_lists_each_prompt_as_a_slash_command() -> None:
    page = (REPO / "mdmark" / "guide" / "mcp-tools.md").read_text(encoding="utf-8")
    for prompt in PROMPTS:
        usage = " ".join(a.name if a.required else f"[{a.name}]" for a in prompt.arguments)
        assert f"`/mcp__plugin_mdmark_mdmark__{prompt.name} {usage}`" in page, prompt.name
        assert prompt.title in page


def test_session_start_hook_names_the_prompts() -> None:
    sys.path.insert(0, str(REPO / "plugin" / "hooks"))
    try:
        import session_start as hook
    finally:
        sys.path.remove(str(REPO / "plugin" / "hooks"))
    assert [(name, usage) for name, usage, _title in hook.PROMPTS] == [
        (p.name, " ".join(a.name if a.required else f"[{a.name}]" for a in p.arguments)) for p in PROMPTS
    ]
    assert [title for _name, _usage, title in hook.PROMPTS] == [p.title for p in PROMPTS]
    line = hook.prompts_line()
    for prompt in PROMPTS:
        assert prompt.slash_command in line


# -- every example call a prompt shows is valid against the tool's input schema ---------------------

_EXAMPLE_CALL = re.compile(r"`(?P<tool>[a-z_]+) (?=\{)")


def example_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Every ```tool {JSON}``` of a prompt text, parsed."""
    decoder = json.JSONDecoder()
    calls = []
    for found in _EXAMPLE_CALL.finditer(text):
        arguments, end = decoder.raw_decode(text, found.end())
        assert text[end] == "`", text[found.start() : end + 1]
        calls.append((found.group("tool"), arguments))
    return calls


#: Arguments that make each prompt show every branch of its text.
PROMPT_ARGUMENTS: list[tuple[str, dict[str, str]]] = [
    ("write_doc", {"topic": "解析のキャッシュ"}),
    ("write_doc", {"topic": "解析のキャッシュ", "tags": "設計,性能"}),
    ("fix_drift", {}),
    ("fix_drift", {"kind": "title_mismatch"}),
    ("review_change", {"base": "origin/main"}),
    ("explain_doc", {"id": "arch"}),
]


@pytest.mark.parametrize(("name", "arguments"), PROMPT_ARGUMENTS)
def test_every_example_call_fits_the_tools_input_schema(name: str, arguments: dict[str, str]) -> None:
    import jsonschema

    from mdmark.tools.registry import TOOLS_BY_NAME

    _spec, text = render_prompt(name, arguments)
    calls = example_calls(text)
    assert calls, text
    for tool, call_arguments in calls:
        schema = TOOLS_BY_NAME[tool].input_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(call_arguments)


def test_every_prompt_is_covered_by_the_schema_test() -> None:
    assert {name for name, _ in PROMPT_ARGUMENTS} == {p.name for p in PROMPTS}


async def test_prompt_arguments_are_bounded_over_mcp(server: Served) -> None:
    """A client may send any JSON: a long value, a number, a list, too many arguments — each is one
    Japanese sentence as invalid params, never the SDK's English validation error."""
    from test_mcp import _rpc_result, raw_post

    async with connect(server) as client:
        error = await _error(client, "explain_doc", {"id": "x" * 5000})
    assert error.code == -32602 and "上限" in error.message and error.message.endswith("。")
    status, headers, _ = raw_post(server.port, {})
    session = {"mcp-session-id": headers["mcp-session-id"]} if "mcp-session-id" in headers else {}
    for arguments in ({"id": 5}, ["id"], {f"k{i}": "v" for i in range(40)}, {"id": ["a"]}):
        body = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "explain_doc", "arguments": arguments}}
        status, _, raw = raw_post(server.port, session, body)
        message = _rpc_result(raw)
        assert message["error"]["code"] == -32602, message
        text = message["error"]["message"]
        assert text.endswith("。") and re.search(r"[ぁ-んァ-ン]", text), text
