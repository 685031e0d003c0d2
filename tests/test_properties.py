"""Property-based tests (issue 28): random tool arguments and random MyST documents through a real
``mdmark serve``: never a traceback, never an internal-error sentence, never a hang, refusals in
Japanese, and nothing in the server's log for inputs it refused.

The arguments are drawn from the declarations in :mod:`mdmark.tools.registry` (every declared
parameter of every tool gets any JSON value, or a value its schema allows); the documents from
MyST's building blocks (directives, roles, front matter, substitutions, includes). The example
counts are bounded so the module takes about a minute or two.
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mcp import Served, make_project, start_server, stop_server

from mdmark.tools.registry import TOOLS, ToolSpec

#: Seconds one call may take before it counts as a hang (cold parses in a fresh worker included).
HANG_SECONDS = 60
LIMITS_ENV = {"MDMARK_PARSE_TIMEOUT": "20", "MDMARK_CALL_TIMEOUT": "50"}

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, Path]]:
    folder = tmp_path_factory.mktemp("properties")
    server = start_server(folder / "server", env={**LIMITS_ENV, "XDG_CACHE_HOME": str(folder / "cache")})
    project = make_project(folder / "project")
    (project / "docs" / "part.md").write_text("取り込まれる段落。\n", encoding="utf-8")
    yield server, project
    assert stop_server(server) == 0, server.stderr()
    log = server.stderr()
    assert "Traceback" not in log, log[-3000:]
    assert "ERROR" not in log, log[-3000:]


_id = iter(range(10**9))


def call_tool(served: Served, name: str, arguments: Any, method: str = "tools/call") -> tuple[bool, str]:
    """One ``tools/call`` (or ``prompts/get``) as raw JSON-RPC over HTTP: (is error, text of the
    answer). A JSON-RPC error of the protocol (arguments that are no object: the SDK refuses them
    before mdmark sees them) comes back as (False, its message): no tool answered."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": next(_id), "method": method, "params": {"name": name, "arguments": arguments}}
    )
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=HANG_SECONDS)
    try:
        connection.request(
            "POST",
            "/mcp",
            body=body.encode(),
            headers={
                "Host": f"127.0.0.1:{served.port}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        response = connection.getresponse()
        raw = response.read().decode("utf-8", "replace")
    finally:
        connection.close()
    assert response.status in (200, 400), (response.status, raw[:500])
    answer = json.loads(raw)
    if "error" in answer:
        message = str(answer["error"].get("message", ""))
        # mdmark's own refusals of prompt arguments are INVALID_PARAMS with a Japanese sentence.
        return bool(_JAPANESE.search(message)), message
    result = answer["result"]
    if "messages" in result:
        return False, json.dumps(result, ensure_ascii=False)
    texts = [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
    return bool(result.get("isError")), "\n".join(texts)


def assert_sound(is_error: bool, text: str, where: str) -> None:
    assert "Traceback" not in text, f"{where}: {text[-2000:]}"
    assert "内部のエラー" not in text and "内部エラー" not in text, f"{where}: {text[:1000]}"
    if is_error:
        assert _JAPANESE.search(text), f"{where}: a refusal not in Japanese: {text[:500]}"


# -- tool arguments ------------------------------------------------------------------------------------

_scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=40)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


def _allowed(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the parameter's schema allows (so the call gets past the checks into the library)."""
    kind = schema.get("type")
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if kind == "string":
        paths = st.sampled_from(["docs/arch.md", "docs/cli.md", "arch", "cli", ".", "docs", "../x.md", "/etc/passwd", "1-3"])
        return paths | st.text(max_size=30)
    if kind == "integer":
        return st.integers(schema.get("minimum", -5) - 2, schema.get("maximum", 200) + 2)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        items = schema.get("items", {})
        return st.lists(st.sampled_from(items["enum"]) if "enum" in items else st.text(max_size=12), max_size=4)
    return _json


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[ToolSpec, dict[str, Any]]:
    spec = draw(st.sampled_from(TOOLS))
    arguments: dict[str, Any] = {}
    for param in spec.params:
        choice = draw(st.sampled_from(["omit", "allowed", "allowed", "any"]))
        if choice == "allowed":
            arguments[param.name] = draw(_allowed(param.schema))
        elif choice == "any":
            arguments[param.name] = draw(_json)
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(st.text(min_size=1, max_size=8))] = draw(_json)
    return spec, arguments


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(call=tool_calls())
def test_any_tool_arguments_get_an_answer(served: tuple[Served, Path], call: tuple[ToolSpec, dict[str, Any]]) -> None:
    server, project = served
    spec, arguments = call
    if spec.takes_project_dir:
        arguments = {**arguments, "project_dir": str(project)}
    is_error, text = call_tool(server, spec.name, arguments)
    assert_sound(is_error, text, f"{spec.name} {arguments!r}")


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(arguments=_json)
def test_arguments_that_are_no_object_get_an_answer(served: tuple[Served, Path], arguments: Any) -> None:
    server, project = served
    is_error, text = call_tool(server, "check", arguments)
    assert_sound(is_error, text, f"check {arguments!r}")


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(name=st.sampled_from(["write_doc", "fix_drift", "review_change", "explain_doc", "nosuch"]) | st.text(max_size=12), arguments=_json)
def test_any_prompt_arguments_get_an_answer(served: tuple[Served, Path], name: str, arguments: Any) -> None:
    server, _project = served
    if isinstance(arguments, dict):
        arguments = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
    is_error, text = call_tool(server, name, arguments, method="prompts/get")
    assert_sound(is_error, text, f"prompt {name} {arguments!r}")


# -- documents ---------------------------------------------------------------------------------------------

_words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
_name = st.sampled_from(["x", "title", "名前", "a.b", "", "{{x}}", "__class__"])
_directive = st.sampled_from(
    [
        "note", "warning", "admonition", "code-block", "include", "literalinclude", "image", "figure",
        "csv-table", "list-table", "table", "toctree", "tab-set", "tab-item", "dropdown", "card", "grid",
        "grid-item", "eval-rst", "raw", "math", "glossary", "only", "epigraph", "topic", "sidebar",
        "mdmark-docs", "mdmark-related", "nosuch",
    ]
)
_option = st.sampled_from(
    [":file: part.md", ":parser: myst_parser.sphinx_", ":start-line: 1", ":widths: 1 2", ":header-rows: 1",
     ":maxdepth: 2", ":class: x", ":name: lab", ":format: html", ":delim: ,", ":caption: 題", ":glob:", ":x: y"]
)
_argument = st.sampled_from(["", "part.md", "../part.md", "docs/part.md", "arch", "題", "x.png", "/etc/hostname"])
_role = st.sampled_from(["ref", "doc", "sub-ref", "math", "abbr", "term", "download", "kbd", "nosuch", "raw-html"])


@st.composite
def directive_blocks(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(_directive)
    fence = "`" * (3 + 2 - depth) if draw(st.booleans()) else ":" * (3 + 2 - depth)
    options = "\n".join(draw(st.lists(_option, max_size=3)))
    body = draw(_words)
    if depth < 2 and draw(st.booleans()):
        body += "\n\n" + draw(directive_blocks(depth + 1))
    return f"{fence}{{{name}}} {draw(_argument)}\n{options}\n\n{body}\n{fence}\n"


@st.composite
def front_matter(draw: st.DrawFn) -> str:
    keys = {
        "title": draw(_words),
        "tags": draw(st.lists(_words, max_size=3)),
        "myst": draw(
            st.sampled_from(
                [
                    {"substitutions": {"x": "置換", "y": "{{ x }}"}},
                    {"enable_extensions": ["substitution", "colon_fence", "deflist"]},
                    {"substitutions": {"x": "{{ cycler.__init__ }}"}},
                    {"html_meta": {"refresh": "0"}},
                    {},
                ]
            )
        ),
    }
    chosen = {k: v for k, v in keys.items() if draw(st.booleans())}
    if not chosen:
        return ""
    return "---\n" + json.dumps(chosen, ensure_ascii=False) + "\n---\n"


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = [draw(front_matter()), f"# {draw(_words) or '題'}\n"]
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            parts.append(draw(directive_blocks()))
        elif kind == 1:
            parts.append(f"{draw(_words)} {{{draw(_role)}}}`{draw(_words)}` {draw(_words)}\n")
        elif kind == 2:
            parts.append(f"{{{{ {draw(_name)} }}}} {draw(_words)}\n")
        elif kind == 3:
            parts.append(f"{'#' * draw(st.integers(1, 7))} {draw(_words)}\n")
        elif kind == 4:
            parts.append(f"({draw(_name)})=\n[{draw(_words)}]({draw(_argument)}) ![画像]({draw(_argument)})\n")
        else:
            parts.append(draw(_words) + "\n")
    return "\n".join(parts)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(text=documents())
def test_any_document_gets_an_answer(served: tuple[Served, Path], text: str) -> None:
    server, project = served
    (project / "docs" / "arch.md").write_text(text, encoding="utf-8")
    for name, arguments in (("check", {}), ("export_html", {"file": "docs/arch.md", "out": "out/arch.html"})):
        is_error, answer = call_tool(server, name, {**arguments, "project_dir": str(project)})
        assert_sound(is_error, answer, f"{name} on {text!r}")
