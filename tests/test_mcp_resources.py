"""The MCP resources of ``mdmark serve`` (documents, sections, the guide, the drift list) and the
completion of their templates, through the SDK's client against a running server over HTTP (the
project named by the ``X-Mdmark-Project`` header) and over stdio (the working folder or
``--project``); hostile URIs each refused with one sentence.
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import ResourceTemplateReference
from test_mcp import Served, anyio_backend, call, server  # noqa: F401
from test_plugin import CLAUDE, claude, claude_env, installed, marketplace, mcp_list, needs_claude  # noqa: F401

from mdmark.guide.reader import guide_entries, read_guide
from mdmark.tools.resources import CHECK_URI, DOC_TEMPLATE, MAX_COMPLETIONS, SECTION_TEMPLATE

pytestmark = pytest.mark.anyio

CONFIG = """\
index: index.yaml
docs:
  include: ["docs/**/*.md"]
"""

INDEX = """\
docs:
  - id: arch
    path: docs/arch.md
    title: アーキテクチャ
    description: 全体の構成
  - id: cli
    path: docs/cli.md
    title: CLI の引数
  - id: leak
    path: docs/leak.md
    title: 外へのリンク
"""

ARCH = """\
# アーキテクチャ

全体の構成。

## 層の向き

下の層だけを使う。

### 例外

無い。

## 配り方

wheel で配る。
"""
CLI_DOC = "# CLI の引数\n\nコマンドの引数を並べる。[アーキ](arch.md)\n"


def make_project(root: Path) -> Path:
    files = {"mdmark.config.yaml": CONFIG, "index.yaml": INDEX, "docs/arch.md": ARCH, "docs/cli.md": CLI_DOC}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    # A link out of the project: the index names it, the read must refuse it.
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text("# 外\n\nSECRET-TEXT\n", encoding="utf-8")
    (root / "docs" / "leak.md").symlink_to(outside / "secret.md")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "プロジェクト")


@asynccontextmanager
async def over_http(served: Served, project: Path | None, via: str = "query") -> AsyncIterator[Client]:
    """A client whose every request names ``project``: in the URL's query as the plugin's
    ``.mcp.json`` makes it (Claude Code percent-encodes a Japanese folder name), or in the
    ``X-Mdmark-Project`` header."""
    url, headers = served.url, {}
    if project is not None and via == "query":
        url += "?project=" + quote(str(project), safe="/")
    elif project is not None:
        headers["X-Mdmark-Project"] = str(project)
    http = create_mcp_http_client(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client:
        yield client


@asynccontextmanager
async def over_stdio(cwd: Path, *extra: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mdmark", "serve", "--stdio", *extra], cwd=str(cwd))
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


async def read_text(client: Client, uri: str) -> tuple[str, str]:
    result = await client.read_resource(uri)
    (content,) = result.contents
    assert content.uri == uri
    return content.mime_type or "", getattr(content, "text")


async def refused(client: Client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    error = caught.value
    assert error.code in (-32602, -32002), error
    assert_one_sentence(error.message)
    return error


def assert_one_sentence(message: str) -> None:
    assert "Traceback" not in message and "SECRET" not in message, message
    assert message.endswith("。") and message.count("。") == 1, message
    assert len(message) < 600, message


# -- listing ------------------------------------------------------------------------------------


async def check_lists(client: Client) -> None:
    listed = {r.uri: r for r in (await client.list_resources()).resources}
    for entry in guide_entries():
        assert f"mdmark://guide/{entry.name}" in listed
    assert listed["mdmark://docs/arch"].title == "アーキテクチャ"
    assert listed["mdmark://docs/arch"].mime_type == "text/markdown"
    assert listed["mdmark://docs/cli"].name == "cli"
    assert listed[CHECK_URI].mime_type == "application/json"
    templates = {t.uri_template: t for t in (await client.list_resource_templates()).resource_templates}
    assert set(templates) == {DOC_TEMPLATE, SECTION_TEMPLATE}
    assert all(t.mime_type == "text/markdown" for t in templates.values())


async def check_reads(client: Client, project: Path) -> None:
    assert await read_text(client, "mdmark://docs/arch") == ("text/markdown", ARCH)
    assert await read_text(client, "mdmark://docs/cli") == ("text/markdown", CLI_DOC)
    mime, section = await read_text(client, "mdmark://docs/arch/sections/層の向き")
    assert section == "## 層の向き\n\n下の層だけを使う。\n\n### 例外\n\n無い。\n\n"
    # the anchor percent-encoded, as a client builds it from the template
    assert (await read_text(client, "mdmark://docs/arch/sections/%E9%85%8D%E3%82%8A%E6%96%B9"))[1] == "## 配り方\n\nwheel で配る。\n"
    mime, page = await read_text(client, "mdmark://guide/mcp-tools")
    assert mime == "text/markdown"
    assert page == read_guide(["mcp-tools"])[0].removeprefix("# mcp-tools\n\n")
    mime, drift = await read_text(client, CHECK_URI)
    assert mime == "application/json"
    tool = await call(client, "check", {"project_dir": str(project)})
    assert json.loads(drift) == json.loads(tool.text)


async def check_completion(client: Client) -> None:
    doc = ResourceTemplateReference(uri=DOC_TEMPLATE)
    assert (await client.complete(doc, {"name": "id", "value": "a"})).completion.values == ["arch"]
    assert (await client.complete(doc, {"name": "id", "value": "アーキ"})).completion.values == ["arch"]
    assert (await client.complete(doc, {"name": "id", "value": "ｃｌｉ"})).completion.values == ["cli"]
    everything = (await client.complete(doc, {"name": "id", "value": ""})).completion
    assert everything.values == ["arch", "cli", "leak"] and everything.total == 3 and not everything.has_more
    section = ResourceTemplateReference(uri=SECTION_TEMPLATE)
    found = await client.complete(section, {"name": "anchor", "value": "層"}, {"id": "arch"})
    assert found.completion.values == ["層の向き"]
    assert (await client.complete(section, {"name": "anchor", "value": ""}, {"id": "nope"})).completion.values == []


async def test_http_lists_reads_and_completes_the_headers_project(server: Served, project: Path) -> None:
    async with over_http(server, project) as client:
        await check_lists(client)
        await check_reads(client, project)
        await check_completion(client)


async def test_http_header_names_an_ascii_project(server: Served, tmp_path: Path) -> None:
    project = make_project(tmp_path / "ascii")
    async with over_http(server, project, via="header") as client:
        assert (await read_text(client, "mdmark://docs/arch"))[1] == ARCH
        found = await call(client, "find_docs", {"text": "構成", "format": "json"})
        assert [d["id"] for d in json.loads(found.text)["docs"]] == ["arch"]


async def test_unexpanded_configuration_counts_as_no_project(server: Served, project: Path) -> None:
    """A client that could not expand ``${PWD}`` sends it as written: no project, the hook's
    project_dir still works."""
    async with Client(server.url + "?project=${PWD}", read_timeout_seconds=120) as client:
        assert "SECRET" not in str((await client.list_resources()).resources)
        error = await refused(client, "mdmark://docs/arch")
        assert "?project=" in error.message
        found = await call(client, "find_docs", {"project_dir": str(project), "text": "構成"})
        assert not found.is_error


async def test_stdio_in_the_project_folder(project: Path) -> None:
    async with over_stdio(project / "docs") as client:
        await check_lists(client)
        await check_reads(client, project)
        await check_completion(client)
        # the tools take the working folder when project_dir is left out
        found = await call(client, "find_docs", {"text": "構成", "format": "json"})
        assert not found.is_error, found.texts
        assert [d["id"] for d in json.loads(found.text)["docs"]] == ["arch"]
        assert "project_dir を省くと" in (client.instructions or "")


async def test_stdio_project_option(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with over_stdio(elsewhere, "--project", str(project)) as client:
        assert (await read_text(client, "mdmark://docs/arch"))[1] == ARCH
        outline = await call(client, "outline", {"target": "cli"})
        assert not outline.is_error and "CLI の引数" in outline.text
        # an explicit project_dir still wins
        other = make_project(tmp_path / "other")
        (other / "docs" / "arch.md").write_text("# アーキテクチャ\n\n別\n", encoding="utf-8")
        read = await call(client, "read_doc", {"target": "arch", "project_dir": str(other)})
        assert read.text == "# アーキテクチャ\n\n別\n"


async def test_without_a_project_only_the_guide_is_listed(server: Served, tmp_path: Path) -> None:
    async with over_http(server, None) as client:
        uris = [r.uri for r in (await client.list_resources()).resources]
        assert uris == [f"mdmark://guide/{e.name}" for e in guide_entries()]
        error = await refused(client, "mdmark://docs/arch")
        assert "?project=" in error.message and "--project" in error.message
        assert (await client.complete(ResourceTemplateReference(uri=DOC_TEMPLATE), {"name": "id", "value": ""})).completion.values == []
        # the tools keep the project_dir rule
        result = await call(client, "find_docs", {})
        assert result.is_error and "project_dir" in result.text
    async with over_stdio(tmp_path) as client:  # no config here or above: no default project
        result = await call(client, "check", {})
        assert result.is_error and "project_dir" in result.text
        assert [r.uri for r in (await client.list_resources()).resources] == uris


# -- hostile URIs -------------------------------------------------------------------------------

HOSTILE = [
    ("mdmark://docs/..%2F..%2Fetc%2Fpasswd", "索引の文書の ID に無い"),
    ("mdmark://docs/../../etc/passwd", "資源の形に当たらない"),
    ("mdmark://docs/%2Fetc%2Fpasswd", "索引の文書の ID に無い"),
    ("mdmark:///etc/passwd", "資源の形に当たらない"),
    ("file:///etc/passwd", "mdmark の資源ではない"),
    ("mdmark://docs/docs%2Farch.md", "索引の文書の ID に無い"),
    ("mdmark://docs/arc", "近い ID: `arch`"),
    ("mdmark://docs/leak", "外"),
    ("mdmark://docs/" + "a" * 5000, "上限"),
    ("mdmark://docs/" + "あ" * 300, "上限（256 文字）"),
    ("mdmark://docs/%FF%FE", "UTF-8"),
    ("mdmark://docs/arch%00", "制御文字"),
    ("mdmark://docs/arch?x=1", "パーセント符号化"),
    ("mdmark://docs/arch/sections/nowhere", "アンカーにも見出しの文にも当たらない"),
    ("mdmark://docs/arch/sections/", "空"),
    ("mdmark://guide/..%2F..%2Fsetup.py", "使い方集"),
    ("mdmark://guide/mcp-tool", "mcp-tools"),
    ("mdmark://checks", "資源の形に当たらない"),
]


@pytest.mark.parametrize(("uri", "part"), HOSTILE)
async def test_hostile_uris_are_refused_with_one_sentence(server: Served, project: Path, uri: str, part: str) -> None:
    async with over_http(server, project) as client:
        error = await refused(client, uri)
    assert part in error.message, error.message


async def test_hostile_uris_over_stdio(project: Path) -> None:
    async with over_stdio(project) as client:
        for uri, part in HOSTILE[:8]:
            error = await refused(client, uri)
            assert part in error.message, (uri, error.message)


async def test_a_header_naming_no_folder_is_one_sentence(server: Served, tmp_path: Path) -> None:
    cases = [(tmp_path / "none", "フォルダが無い", "query"), (Path("relative/dir"), "絶対パスではない", "header")]
    for value, part, via in cases:
        async with over_http(server, value, via) as client:
            error = await refused(client, "mdmark://docs/arch")
            assert part in error.message, error.message
            result = await call(client, "find_docs", {})
            assert result.is_error and part in result.text


async def test_completion_is_bounded(server: Served, tmp_path: Path) -> None:
    root = tmp_path / "many"
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    lines = ["docs:"]
    for n in range(150):
        lines += [f"  - id: d{n:03}", f"    path: docs/d{n:03}.md", f"    title: 文書 {n}"]
        (root / "docs" / f"d{n:03}.md").write_text(f"# 文書 {n}\n", encoding="utf-8")
    (root / "index.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    async with over_http(server, root) as client:
        found = (await client.complete(ResourceTemplateReference(uri=DOC_TEMPLATE), {"name": "id", "value": "d"})).completion
        assert len(found.values) == MAX_COMPLETIONS and found.total == 150 and found.has_more
        by_title = (await client.complete(ResourceTemplateReference(uri=DOC_TEMPLATE), {"name": "id", "value": "文書 14"})).completion
        assert by_title.values == ["d014"] + [f"d{n}" for n in range(140, 150)]
        with pytest.raises(MCPError) as caught:
            await client.complete(ResourceTemplateReference(uri=DOC_TEMPLATE), {"name": "anchor", "value": ""})
        assert_one_sentence(caught.value.message)
        with pytest.raises(MCPError) as caught:
            await client.list_resources(cursor="next-please")
        assert_one_sentence(caught.value.message)
        assert "nextCursor" in caught.value.message


def test_serve_project_option_refuses_a_missing_folder(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mdmark", "serve", "--stdio", "--project", "nowhere"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        env={**os.environ},
    )
    assert done.returncode == 1, done.stderr
    assert "--project の `nowhere` というフォルダが無い" in done.stderr
    assert "Traceback" not in done.stderr


# -- the real claude CLI ------------------------------------------------------------------------
# claude -p with a fake key reaches no model, but it connects to the plugin's MCP server first and
# asks for resources/list. A recording proxy between claude and a real mdmark serve shows which
# project claude named (the plugin's .mcp.json puts ${PWD} in the URL) and what mdmark answered.


class _Recorder(http.server.BaseHTTPRequestHandler):
    target = 0
    seen: list[tuple[str, dict[str, Any], str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        connection = http.client.HTTPConnection("127.0.0.1", self.target, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        connection.request("POST", self.path, body, {**headers, "Host": f"127.0.0.1:{self.target}"})
        response = connection.getresponse()
        answer = response.read()
        try:
            message = json.loads(body)
        except ValueError:
            message = {}
        type(self).seen.append((self.path, message, answer.decode("utf-8", "replace")))
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


class _NoModel(http.server.BaseHTTPRequestHandler):
    """The model API: every request refused as a wrong key."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        data = json.dumps({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[int]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def _listed() -> bool:
    return any(message.get("method") == "resources/list" for _, message, _ in _Recorder.seen)


def _claude_until_listed(env: dict[str, str], cwd: Path) -> None:
    """``claude -p`` until it has asked for resources/list (it retries the refused model call for
    minutes; the MCP requests come first), then stopped."""
    assert CLAUDE is not None
    proc = subprocess.Popen([CLAUDE, "-p", "hello"], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            if _listed() or proc.poll() is not None:
                break
            threading.Event().wait(0.1)
    finally:
        proc.kill()
        proc.wait()


@needs_claude
def test_claude_names_the_sessions_project_in_resource_requests(
    installed: dict[str, str], server: Served, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "設計")
    _Recorder.target = server.port
    _Recorder.seen = []
    with _serving(_Recorder) as port, _serving(_NoModel) as api:
        env = {**installed, "MDMARK_PORT": str(port), "PWD": str(project)}  # PWD: as the user's shell sets it
        done = mcp_list(env, project)
        line = [ln for ln in done.stdout.splitlines() if ln.startswith("plugin:mdmark:mdmark:")]
        assert line == [f"plugin:mdmark:mdmark: http://127.0.0.1:{port}/mcp?project={project} (HTTP) - ✔ Connected"], done.stdout
        env = {**env, "ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{api}"}
        _claude_until_listed(env, project)
    lists = [(path, answer) for path, message, answer in _Recorder.seen if message.get("method") == "resources/list"]
    assert lists, [m.get("method") for _, m, _ in _Recorder.seen]
    path, answer = lists[-1]
    assert path == "/mcp?project=" + quote(str(project), safe="/")
    uris = [r["uri"] for r in json.loads(answer)["result"]["resources"]]
    assert "mdmark://docs/arch" in uris and "mdmark://check" in uris and "mdmark://guide/mcp-tools" in uris


def test_listing_pages_follow_the_cursor(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mdmark.tools import resources

    whole, nxt = resources.listed(project)
    assert nxt is None and "mdmark://docs/leak" in [e.uri for e in whole]
    monkeypatch.setattr(resources, "PAGE_SIZE", 7)
    pages, cursor = [], None
    while True:
        page, cursor = resources.listed(project, cursor)
        pages += page
        if cursor is None:
            break
    assert pages == whole


@pytest.mark.parametrize(
    ("method", "params", "part"),
    [
        ("resources/read", {"uri": 5}, "uri が文字列ではない"),
        ("resources/read", {}, "uri が文字列ではない"),
        ("completion/complete", {"ref": "x", "argument": {"name": "id", "value": ""}}, "ref"),
        ("completion/complete", {"ref": {"type": "ref/resource", "uri": DOC_TEMPLATE}, "argument": {"name": "id", "value": 3}}, "argument"),
    ],
)
def test_malformed_requests_get_one_japanese_sentence(server: Served, method: str, params: dict[str, Any], part: str) -> None:
    from test_mcp import _rpc_result, raw_post

    status, _headers, body = raw_post(server.port, {}, {"jsonrpc": "2.0", "id": 3, "method": method, "params": params})
    assert status == 200, body
    error = _rpc_result(body)["error"]
    assert error["code"] == -32602
    assert_one_sentence(error["message"])
    assert part in error["message"]
