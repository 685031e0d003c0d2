"""The MCP server (`mdmark serve`) through the SDK's own client, against a real server subprocess.

One server per module serves every test; each test gets its own project folder (``project_dir``),
so tests that write (export_html, update_index) never see each other's files.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

TOOL_NAMES = ["read_guide", "export_html", "build_site", "check", "find_docs", "list_tags", "update_index", "outline", "read_doc"]
PROJECT_TOOLS = [name for name in TOOL_NAMES if name != "read_guide"]

CONFIG = """\
index: index.yaml
docs:
  include: ["docs/**/*.md"]
build:
  title: テスト文書
  include: ["docs/**/*.md"]
  out: dist/docs.html
"""

INDEX = """\
# 索引のコメントは書き換えで残る
docs:
  - id: arch
    path: docs/arch.md
    title: アーキテクチャ
    description: 全体の構成と依存の向き
    tags:
      - {name: 設計, main: true}
    related:
      - {to: cli, type: references, when: CLI の引数を説明するとき}
  - id: cli
    path: docs/cli.md
    title: CLI
    description: コマンドの引数
    tags: [設計, 操作]
tags:
  - name: 設計
    description: 設計の文書
    aliases: [design]
  - name: 操作
    description: 使い方の文書
  - name: 空き
    description: 文書の付いていないタグ
"""

ARCH = "# アーキテクチャ\n\n全体の構成。[CLI](cli.md) の引数はそちらを見る。\n"
CLI_DOC = "# CLI\n\nコマンドの引数を並べる。\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "docs" / "arch.md").write_text(ARCH, encoding="utf-8")
    (root / "docs" / "cli.md").write_text(CLI_DOC, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


# -- the server process -------------------------------------------------------------------------


@dataclass
class Served:
    proc: subprocess.Popen[bytes]
    port: int
    errfile: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stderr(self) -> str:
        return self.errfile.read_text(encoding="utf-8", errors="replace")


def start_server(folder: Path, *extra: str, env: dict[str, str] | None = None) -> Served:
    """``mdmark serve --port 0`` (the system picks a free port; the startup line names it)."""
    folder.mkdir(parents=True, exist_ok=True)
    errfile = folder / "serve.err"
    with errfile.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mdmark", "serve", "--port", "0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=folder,
            env={**os.environ, **(env or {})},
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", errfile.read_text(encoding="utf-8", errors="replace"))
        if found:
            return Served(proc, int(found.group(1)), errfile)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"mdmark serve did not start: {errfile.read_text(encoding='utf-8', errors='replace')}")


def stop_server(served: Served) -> int:
    if served.proc.poll() is None:
        served.proc.send_signal(signal.SIGTERM)
    try:
        return served.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        served.proc.kill()
        raise


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = start_server(tmp_path_factory.mktemp("server"))
    yield served
    code = stop_server(served)
    assert code == 0, served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()


@asynccontextmanager
async def connect(served: Served, mode: str = "auto") -> AsyncIterator[Client]:
    async with Client(served.url, mode=mode, read_timeout_seconds=120) as client:  # type: ignore[arg-type]
        yield client


@dataclass
class Result:
    texts: list[str]
    structured: Any
    is_error: bool

    @property
    def text(self) -> str:
        assert len(self.texts) == 1, self.texts
        return self.texts[0]


async def call(client: Client, name: str, arguments: dict[str, Any]) -> Result:
    result = await client.call_tool(name, arguments)
    texts = []
    for block in result.content:
        assert block.type == "text"
        texts.append(block.text)
    return Result(texts, result.structured_content, result.is_error)


async def call_in(client: Client, project: Path, name: str, **arguments: Any) -> Result:
    return await call(client, name, {**arguments, "project_dir": str(project)})


def assert_error(result: Result, *parts: str) -> str:
    """An isError result with one Japanese sentence (no traceback, no structured content)."""
    assert result.is_error, result
    assert result.structured is None
    text = result.text
    assert "Traceback" not in text
    assert text.endswith("。"), text
    for part in parts:
        assert part in text, (part, text)
    return text


def assert_json(result: Result) -> dict[str, Any]:
    assert not result.is_error, result.texts
    data = json.loads(result.text)
    assert result.structured == data
    return data  # type: ignore[no-any-return]


def cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mdmark", *args], cwd=project, capture_output=True, text=True, timeout=300
    )


# -- tools/list --------------------------------------------------------------------------------


EXPECTED_PROPERTIES: dict[str, dict[str, Any]] = {
    "read_guide": {"names": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "export_html": {"file": {"type": "string"}, "out": {"type": "string"}, "config": {"type": "string"}},
    "build_site": {"config": {"type": "string"}},
    "check": {"config": {"type": "string"}, "base": {"type": "string"}},
    "find_docs": {
        "text": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "any_tags": {"type": "array", "items": {"type": "string"}},
        "related_to": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "cursor": {"type": "string"},
        "view": {"type": "string", "enum": ["brief", "standard", "full"]},
        "include": {"type": "array", "items": {"type": "string", "enum": ["path", "aliases", "related", "referenced_by"]}},
        "exclude": {"type": "array", "items": {"type": "string", "enum": ["path", "aliases", "related", "referenced_by"]}},
        "count_only": {"type": "boolean"},
        "format": {"type": "string", "enum": ["markdown", "json", "toon"]},
        "config": {"type": "string"},
    },
    "list_tags": {
        "query": {"type": "string"},
        "format": {"type": "string", "enum": ["markdown", "json", "toon"]},
        "config": {"type": "string"},
    },
    "update_index": {
        "kind": {"type": "string", "enum": ["doc", "term", "tag"]},
        "id": {"type": "string", "minLength": 1},
        "item": {"type": ["object", "null"]},
        "config": {"type": "string"},
    },
    "outline": {
        "target": {"type": "string"},
        "format": {"type": "string", "enum": ["markdown", "json", "toon"]},
        "config": {"type": "string"},
    },
    "read_doc": {
        "target": {"type": "string"},
        "section": {"type": "string"},
        "lines": {"type": "string"},
        "max_images": {"type": "integer", "minimum": 0, "maximum": 50},
        "config": {"type": "string"},
    },
}
EXPECTED_REQUIRED = {
    "read_guide": ["names"],
    "export_html": ["file"],
    "update_index": ["kind", "id", "item"],
    "outline": ["target"],
    "read_doc": ["target"],
}
WITH_OUTPUT_SCHEMA = {"export_html", "build_site", "check", "update_index"}
READ_ONLY = {"read_guide", "check", "find_docs", "list_tags", "outline", "read_doc"}


async def test_tools_list(server: Served) -> None:
    async with connect(server) as client:
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == TOOL_NAMES
    for tool in tools:
        schema = tool.input_schema
        assert schema["type"] == "object"
        properties = schema["properties"]
        assert list(properties) == list(EXPECTED_PROPERTIES[tool.name])
        for name, expected in EXPECTED_PROPERTIES[tool.name].items():
            got = properties[name]
            for key, value in expected.items():
                assert got[key] == value, (tool.name, name, key)
            assert re.search(r"[ぁ-んァ-ン一-龥]", got["description"]), (tool.name, name)
        assert schema.get("required", []) == EXPECTED_REQUIRED.get(tool.name, [])
        assert "project_dir" not in json.dumps(tool.model_dump(by_alias=True), ensure_ascii=False)
        assert tool.description and re.search(r"[ぁ-んァ-ン一-龥]", tool.description)
        # Say what the result looks like and what an empty result means.
        assert "結果は" in tool.description
        assert (tool.output_schema is not None) == (tool.name in WITH_OUTPUT_SCHEMA), tool.name
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name in READ_ONLY), tool.name
        if tool.name not in READ_ONLY:
            assert tool.annotations.destructive_hint is True
            assert tool.annotations.idempotent_hint is True
    by_name = {tool.name: tool for tool in tools}
    assert by_name["check"].output_schema is not None
    assert by_name["check"].output_schema["required"] == ["issues"]
    assert by_name["export_html"].output_schema["required"] == ["out", "warnings"]  # type: ignore[index]
    assert by_name["build_site"].output_schema["required"] == ["out", "docs", "warnings"]  # type: ignore[index]
    assert by_name["update_index"].output_schema["required"] == ["action", "index"]  # type: ignore[index]
    for name in ("check", "find_docs", "list_tags"):
        assert "空" in (by_name[name].description or ""), name


async def test_legacy_handshake_client(server: Served, project: Path) -> None:
    """A handshake-era client (what Claude Code speaks today) gets the same tools and results."""
    async with connect(server, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        assert [tool.name for tool in tools] == TOOL_NAMES
        data = assert_json(await call_in(client, project, "list_tags", format="json"))
        assert assert_json(await call_in(client, project, "check")) == {"issues": []}
        assert_error(await call(client, "check", {}), "project_dir")
        markdown = await call_in(client, project, "find_docs")
        assert not markdown.is_error and markdown.structured is None
    assert [tag["name"] for tag in data["tags"]] == ["設計", "操作", "空き"]


# -- read_guide --------------------------------------------------------------------------------


def guide_names() -> list[str]:
    from mdmark.guide.reader import guide_entries

    return [entry.name for entry in guide_entries()]


def guide_pages() -> dict[str, Path]:
    from mdmark.guide.reader import guide_dir

    folder = guide_dir()
    data = yaml.safe_load((folder / "index.yaml").read_text(encoding="utf-8")) if (folder / "index.yaml").is_file() else {}
    return {doc["id"]: folder / doc["path"] for doc in (data or {}).get("docs", [])}


async def test_read_guide(server: Served) -> None:
    names = guide_names()
    if not names:
        pytest.skip("the packaged guide has no pages yet")
    from mdmark.guide.reader import guide_dir

    first = names[0]
    async with connect(server) as client:
        result = await call(client, "read_guide", {"names": [first, first]})
    assert not result.is_error, result.texts
    assert result.structured is None
    assert len(result.texts) == 1
    assert result.text.startswith(f"# {first}\n\n")
    if len(names) >= 2:
        async with connect(server) as client:
            result = await call(client, "read_guide", {"names": [names[1], names[0]]})
        if not result.is_error:
            assert [text.split("\n", 1)[0] for text in result.texts] == [f"# {names[1]}", f"# {names[0]}"]
    assert guide_dir().is_dir()


async def test_read_guide_errors(server: Served) -> None:
    async with connect(server) as client:
        known = guide_names()
        unknown = await call(client, "read_guide", {"names": [*known[:1], "notatoin-zz"]})
        text = assert_error(unknown, "notatoin-zz")
        assert len(unknown.texts) == 1 and "\n# " not in text
        assert_error(await call(client, "read_guide", {"names": ["x"], "project_dir": "/tmp"}), "`project_dir`", "read_guide")
        assert_error(await call(client, "read_guide", {"names": ["x"], "nmes": ["y"]}), "`nmes`")
        assert_error(await call(client, "read_guide", {}), "names")
        assert_error(await call(client, "read_guide", {"names": "install"}), "names")
        assert_error(await call(client, "read_guide", {"names": ["install", 3]}), "names", "2 番目")
        assert_error(await call(client, "read_guide", {"names": []}), "names")
        pages = guide_pages()
        if pages and all(path.is_file() for path in pages.values()):
            everything = await call(client, "read_guide", {"names": list(pages)})
            total = sum(len(path.read_text(encoding="utf-8")) for path in pages.values())
            if total > 50_000:
                # Every name's size, and not one page.
                text = assert_error(everything, "50,000")
                assert len(everything.texts) == 1
                assert all(name in text for name in pages)
            else:
                assert not everything.is_error, everything.texts
                assert [t.split("\n", 1)[0] for t in everything.texts] == [f"# {name}" for name in pages]


# -- export_html / build_site --------------------------------------------------------------------


async def test_export_html(server: Served, project: Path) -> None:
    async with connect(server) as client:
        data = assert_json(await call_in(client, project, "export_html", file="docs/arch.md"))
        assert data["out"] == str(project / "docs" / "arch.html")
        assert isinstance(data["warnings"], list)
        html = (project / "docs" / "arch.html").read_text(encoding="utf-8")
        assert "アーキテクチャ" in html
        data = assert_json(await call_in(client, project, "export_html", file="docs/cli.md", out="out/cli.html"))
        assert data["out"] == str(project / "out" / "cli.html")
        assert (project / "out" / "cli.html").is_file()
        # Overwrites the HTML at the output path.
        data = assert_json(await call_in(client, project, "export_html", file=str(project / "docs" / "cli.md"), out="out/cli.html"))
        assert data["out"] == str(project / "out" / "cli.html")


async def test_export_html_errors(server: Served, project: Path, tmp_path: Path) -> None:
    async with connect(server) as client:
        assert_error(await call_in(client, project, "export_html", file="docs/missing.md"), "missing.md")
        assert not (project / "docs" / "missing.html").exists()
        assert_error(await call_in(client, project, "export_html"), "`file`")
        assert_error(await call_in(client, project, "export_html", file=5), "file")
        assert_error(await call_in(client, project, "export_html", file="docs/arch.md", config="nothere.yaml"), "nothere.yaml")
        (project / "bad.yaml").write_text("index: [unclosed\n", encoding="utf-8")
        assert_error(await call_in(client, project, "export_html", file="docs/arch.md", config="bad.yaml"))
        # Files are written only inside project_dir or the config folder.
        outside = tmp_path / "elsewhere" / "arch.html"
        assert_error(await call_in(client, project, "export_html", file="docs/arch.md", out=str(outside)))
        assert not outside.exists()
        # An output path that holds something other than an HTML file is not overwritten.
        (project / "notes.txt").write_text("keep me", encoding="utf-8")
        assert_error(await call_in(client, project, "export_html", file="docs/arch.md", out="notes.txt"))
        assert (project / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert not (project / "docs" / "arch.html").exists()


async def test_export_html_writes_only_inside_the_project(server: Served, project: Path, tmp_path: Path) -> None:
    """A document, a config or a default output outside project_dir cannot carry the output out (issue 37)."""
    other = tmp_path / "other"
    (other / "sub").mkdir(parents=True)
    (other / "x.md").write_text("# 外\n", encoding="utf-8")
    (other / "sub" / "mdmark.config.yaml").write_text("markdown: {}\n", encoding="utf-8")
    (other / "sub" / "y.md").write_text("# 外\n", encoding="utf-8")
    (project / "docs" / "out-link").symlink_to(other, target_is_directory=True)
    attempts = [
        {"file": str(other / "x.md")},  # the default output beside a document outside
        {"file": str(other / "x.md"), "out": str(other / "evil.html")},  # defaults rooted at the document's folder
        {"file": "docs/arch.md", "out": str(other / "sub" / "evil.html"), "config": str(other / "sub" / "mdmark.config.yaml")},
        {"file": str(other / "sub" / "y.md"), "out": str(other / "sub" / "evil.html")},  # the config found from the document
        {"file": "docs/arch.md", "out": "docs/out-link/evil.html"},  # through a link in the project
        {"file": "docs/arch.md", "out": "../other/evil.html"},
    ]
    async with connect(server) as client:
        for arguments in attempts:
            text = assert_error(await call_in(client, project, "export_html", **arguments))
            assert "外" in text and text.count("。") == 1, text
        # Inside project_dir all the same: a document of the project, written where the agent says.
        inside = assert_json(await call_in(client, project, "export_html", file="docs/arch.md", out="site/arch.html"))
        assert inside["out"] == str((project / "site" / "arch.html").resolve())
    assert sorted(p.name for p in other.rglob("*")) == ["mdmark.config.yaml", "sub", "x.md", "y.md"]
    # The CLI's -o still writes where its user says.
    done = cli(project, "export", str(other / "x.md"), "-o", str(other / "mine.html"))
    assert done.returncode == 0, done.stderr
    assert (other / "mine.html").is_file()


async def test_export_html_same_sentence_as_cli(server: Served, project: Path) -> None:
    async with connect(server) as client:
        result = await call_in(client, project, "export_html", file="docs/missing.md")
    completed = cli(project, "export", "docs/missing.md")
    assert completed.returncode == 1
    assert assert_error(result) == completed.stderr.strip()


async def test_build_site(server: Served, project: Path) -> None:
    async with connect(server) as client:
        data = assert_json(await call_in(client, project, "build_site"))
    assert data["out"] == str(project / "dist" / "docs.html")
    assert data["docs"] == 2
    assert isinstance(data["warnings"], list)
    assert (project / "dist" / "docs.html").is_file()


async def test_build_site_errors(server: Served, project: Path) -> None:
    (project / "nobuild.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (project / "empty.yaml").write_text(
        'index: index.yaml\nbuild:\n  title: 空\n  include: ["nothing/**/*.md"]\n  out: dist/empty.html\n', encoding="utf-8"
    )
    async with connect(server) as client:
        no_build = assert_error(await call_in(client, project, "build_site", config="nobuild.yaml"), "build")
        assert_error(await call_in(client, project, "build_site", config="empty.yaml"))
        assert_error(await call_in(client, project, "build_site", config="nothere.yaml"), "nothere.yaml")
        assert_error(await call_in(client, project, "build_site", confg="x"), "`confg`", "`config`")
    assert not (project / "dist").exists()
    completed = cli(project, "build", "--config", "nobuild.yaml")
    assert completed.returncode == 1
    assert completed.stderr.strip() == no_build


# -- check ---------------------------------------------------------------------------------------


async def test_check(server: Served, project: Path) -> None:
    async with connect(server) as client:
        clean = assert_json(await call_in(client, project, "check"))
        assert clean == {"issues": []}
        (project / "docs" / "cli.md").unlink()
        data = assert_json(await call_in(client, project, "check"))
    kinds = [issue["kind"] for issue in data["issues"]]
    assert "missing_doc" in kinds
    for issue in data["issues"]:
        assert set(issue) == {"file", "where", "kind", "message"}
    completed = cli(project, "check", "--format", "json")
    assert json.loads(completed.stdout) == data


async def test_check_errors(server: Served, project: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    async with connect(server) as client:
        no_config = assert_error(await call_in(client, bare, "check"), "mdmark init")
        (project / "broken.yaml").write_text("index: [unclosed\n  docs: x\n", encoding="utf-8")
        assert_error(await call_in(client, project, "check", config="broken.yaml"))
        bad_base = assert_error(await call_in(client, project, "check", base="no-such-ref"))
        assert_error(await call_in(client, project, "check", base=3), "base")
    completed = cli(bare, "check")
    assert completed.returncode == 2
    assert completed.stderr.strip() == no_config
    completed = cli(project, "check", "--base", "no-such-ref")
    assert completed.returncode == 2
    assert completed.stderr.strip() == bad_base


async def test_warm_second_check_reuses_the_server(server: Served, project: Path) -> None:
    async with connect(server) as client:
        first = assert_json(await call_in(client, project, "check"))
        second = assert_json(await call_in(client, project, "check"))
        (project / "docs" / "arch.md").write_text("# 別の題\n\n本文。\n", encoding="utf-8")
        third = assert_json(await call_in(client, project, "check"))
    assert first == second
    # A changed file is parsed again: the cache never hides an edit.
    assert "title_mismatch" in [issue["kind"] for issue in third["issues"]]


# -- find_docs / list_tags ----------------------------------------------------------------------


async def test_find_docs(server: Served, project: Path) -> None:
    async with connect(server) as client:
        markdown = await call_in(client, project, "find_docs")
        assert not markdown.is_error
        assert markdown.structured is None
        assert markdown.text.startswith("総件数 2 件")
        data = assert_json(await call_in(client, project, "find_docs", tags=["design"], format="json", include=["path"]))
        assert data["total"] == 2
        assert [doc["id"] for doc in data["docs"]] == ["arch", "cli"]
        assert data["docs"][0]["path"] == "docs/arch.md"
        page = assert_json(await call_in(client, project, "find_docs", limit=1, format="json"))
        assert page["returned"] == 1 and page["next_cursor"]
        rest = assert_json(await call_in(client, project, "find_docs", limit=1, cursor=page["next_cursor"], format="json"))
        assert [doc["id"] for doc in rest["docs"]] == ["cli"] and rest["next_cursor"] is None
        related = assert_json(await call_in(client, project, "find_docs", related_to="cli", format="json"))
        assert [doc["id"] for doc in related["docs"]] == ["arch"]
        none = assert_json(await call_in(client, project, "find_docs", text="存在しない語", format="json"))
        assert none["total"] == 0 and none["docs"] == []
        counted = assert_json(await call_in(client, project, "find_docs", count_only=True, format="json"))
        assert counted["total"] == 2 and "docs" not in counted
        nulls = assert_json(await call_in(client, project, "find_docs", cursor=None, format="json"))
        assert nulls["total"] == 2
    completed = cli(project, "find")
    assert completed.returncode == 0
    # The same answer; the CLI names its own options where the tool names its arguments.
    shell = markdown.text.replace("・next_cursor: null", "")
    shell = re.sub(r'（include: \["(\w+)"\]）', r"（--include \1）", shell)
    assert completed.stdout.strip() == shell.strip()


async def test_find_docs_errors(server: Served, project: Path) -> None:
    (project / "noindex.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\n', encoding="utf-8")
    async with connect(server) as client:
        limit0 = assert_error(await call_in(client, project, "find_docs", limit=0), "limit")
        assert_error(await call_in(client, project, "find_docs", limit=101), "limit")
        assert_error(await call_in(client, project, "find_docs", limit="5"), "limit")
        bad_view = assert_error(await call_in(client, project, "find_docs", view="fulll"), "view")
        assert_error(await call_in(client, project, "find_docs", format="yaml"), "format")
        assert_error(await call_in(client, project, "find_docs", include=["pathh"]), "include")
        assert_error(await call_in(client, project, "find_docs", exclude=["title"]), "exclude")
        assert_error(await call_in(client, project, "find_docs", tags="設計"), "tags")
        assert_error(await call_in(client, project, "find_docs", count_only="yes"), "count_only")
        assert_error(await call_in(client, project, "find_docs", tag=["設計"]), "`tag`", "`tags`")
        assert_error(await call_in(client, project, "find_docs", cursor="!!not-a-cursor"), "cursor")
        page = assert_json(await call_in(client, project, "find_docs", limit=1, format="json"))
        assert_error(await call_in(client, project, "find_docs", limit=1, text="CLI", cursor=page["next_cursor"]), "cursor")
        no_index = assert_error(await call_in(client, project, "find_docs", config="noindex.yaml"), "index")
        assert_error(await call_in(client, project, "find_docs", config="nothere.yaml"), "nothere.yaml")
    # The same sentences as the CLI.
    for args, sentence in (
        (("--limit", "0"), limit0),
        (("--view", "fulll"), bad_view),
        (("--config", "noindex.yaml"), no_index),
    ):
        completed = cli(project, "find", *args)
        assert completed.returncode != 0
        assert completed.stderr.strip() == sentence, args


async def test_list_tags(server: Served, project: Path) -> None:
    (project / "noindex.yaml").write_text("build:\n  title: x\n  include: [\"docs/*.md\"]\n  out: o.html\n", encoding="utf-8")
    async with connect(server) as client:
        markdown = await call_in(client, project, "list_tags")
        assert not markdown.is_error and markdown.structured is None
        assert "空き" in markdown.text
        data = assert_json(await call_in(client, project, "list_tags", format="json"))
        assert [(tag["name"], tag["docs"]) for tag in data["tags"]] == [("設計", 2), ("操作", 1), ("空き", 0)]
        found = assert_json(await call_in(client, project, "list_tags", query="DESIGN", format="json"))
        assert [tag["name"] for tag in found["tags"]] == ["設計"]
        empty = assert_json(await call_in(client, project, "list_tags", query="無い語", format="json"))
        assert empty == {"tags": []}
        assert_error(await call_in(client, project, "list_tags", config="noindex.yaml"), "index")
        assert_error(await call_in(client, project, "list_tags", format="xml"), "format")
        assert_error(await call_in(client, project, "list_tags", query=["a"]), "query")
        assert_error(await call_in(client, project, "list_tags", limit=3), "`limit`")
    completed = cli(project, "tags")
    assert completed.stdout.strip() == markdown.text.strip()


# -- update_index --------------------------------------------------------------------------------


async def test_update_index(server: Served, project: Path) -> None:
    index = project / "index.yaml"
    async with connect(server) as client:
        added = assert_json(
            await call_in(client, project, "update_index", kind="term", id="serve", item={"term": "常駐サーバー", "definition": "mdmark serve。"})
        )
        assert added == {"action": "added", "index": "index.yaml"}
        replaced = assert_json(
            await call_in(client, project, "update_index", kind="doc", id="cli", item={"path": "docs/cli.md", "title": "CLI", "tags": ["操作"]})
        )
        assert replaced == {"action": "replaced", "index": "index.yaml"}
        removed = assert_json(await call_in(client, project, "update_index", kind="tag", id="空き", item=None))
        assert removed == {"action": "removed", "index": "index.yaml"}
    text = index.read_text(encoding="utf-8")
    assert text.startswith("# 索引のコメントは書き換えで残る\n")
    data = yaml.safe_load(text)
    assert [term["id"] for term in data["terms"]] == ["serve"]
    assert data["docs"][1] == {"id": "cli", "path": "docs/cli.md", "title": "CLI", "tags": ["操作"]}
    assert [tag["name"] for tag in data["tags"]] == ["設計", "操作"]


async def test_update_index_errors(server: Served, project: Path) -> None:
    index = project / "index.yaml"
    before = index.read_bytes()
    async with connect(server) as client:
        schema = await call_in(
            client, project, "update_index", kind="doc", id="arch", item={"path": "docs/arch.md", "title": "A", "related": [{"to": "cli", "type": "uses"}]}
        )
        assert schema.is_error and schema.structured is None
        assert "docs[0].related[0]" in schema.text
        assert_error(await call_in(client, project, "update_index", kind="doc", id="nope", item=None), "nope")
        assert_error(await call_in(client, project, "update_index", kind="page", id="x", item=None), "kind")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="", item=None), "id")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="x", item=[1]), "item")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="x"), "`item`")
        assert_error(await call_in(client, project, "update_index", kind="doc", item=None), "`id`")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="x", item=None, force=True), "`force`")
        (project / "noindex.yaml").write_text("build:\n  title: x\n  include: [\"docs/*.md\"]\n  out: o.html\n", encoding="utf-8")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="arch", item=None, config="noindex.yaml"), "index")
        assert_error(await call_in(client, project, "update_index", kind="doc", id="arch", item=None, config="nothere.yaml"), "nothere.yaml")
    assert index.read_bytes() == before


# -- project_dir and unknown tools ---------------------------------------------------------------


@pytest.mark.parametrize("tool", PROJECT_TOOLS)
async def test_project_dir_errors(server: Served, project: Path, tool: str) -> None:
    required: dict[str, Any] = {"export_html": {"file": "docs/arch.md"}, "update_index": {"kind": "doc", "id": "arch", "item": None}}
    args = required.get(tool, {})
    before = (project / "index.yaml").read_bytes()
    async with connect(server) as client:
        assert_error(await call(client, tool, args), "project_dir")
        assert_error(await call(client, tool, {**args, "project_dir": None}), "project_dir")
        assert_error(await call(client, tool, {**args, "project_dir": "proj"}), "project_dir", "絶対パス")
        assert_error(await call(client, tool, {**args, "project_dir": ""}), "project_dir")
        assert_error(await call(client, tool, {**args, "project_dir": str(project / "gone")}), "project_dir", "gone")
        assert_error(await call(client, tool, {**args, "project_dir": str(project / "index.yaml")}), "project_dir")
        assert_error(await call(client, tool, {**args, "project_dir": 3}), "project_dir")
    assert (project / "index.yaml").read_bytes() == before
    assert not (project / "docs" / "arch.html").exists()


async def test_unknown_tool_is_a_jsonrpc_error(server: Served) -> None:
    """The MCP spec: a call of a tool the server does not have is a protocol error (-32602)."""
    from mcp.shared.exceptions import MCPError

    async with connect(server) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("find_doc", {})
    assert raised.value.code == -32602
    message = raised.value.message
    assert message.startswith("ツール `find_doc` は mdmark に無いので、") and "`find_docs`" in message
    assert message.endswith("。")
    # the same over raw JSON-RPC, with the sentence the library says
    from mdmark.tools.registry import unknown_tool_message

    status, _headers, body = raw_post(
        server.port, {}, {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "find_doc", "arguments": {}}}
    )
    assert status == 200, body
    answer = _rpc_result(body)
    assert "result" not in answer
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"] == unknown_tool_message("find_doc")


def raw_request(port: int, method: str, path: str = "/mcp") -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_get_mcp_is_405_on_the_stateless_server(server: Served) -> None:
    status, headers, body = raw_request(server.port, "GET")
    assert status == 405
    assert headers["allow"] == "POST"
    assert body.decode("utf-8").strip().endswith("。")
    assert "POST" in body.decode("utf-8")


async def test_instructions_state_the_project_dir_rule_and_the_guide(server: Served) -> None:
    from mdmark.guide.reader import guide_entries

    async with connect(server) as client:
        instructions = client.instructions or ""
    assert "project_dir" in instructions and "read_guide 以外のツール" in instructions
    assert "絶対パス" in instructions
    for entry in guide_entries():
        assert f"- {entry.name}: {entry.title}" in instructions


# -- HTTP rules ----------------------------------------------------------------------------------


def raw_post(port: int, headers: dict[str, str], body: dict[str, Any] | None = None) -> tuple[int, dict[str, str], bytes]:
    message = body or {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("POST", "/mcp", skip_host=True, skip_accept_encoding=True)
        base = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        for key, value in {**base, **headers}.items():
            connection.putheader(key, value)
        data = json.dumps(message).encode()
        connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def _rpc_result(body: bytes) -> dict[str, Any]:
    """The JSON-RPC message of a plain JSON or a one-event SSE answer."""
    text = body.decode("utf-8")
    if not text.lstrip().startswith("{"):
        text = next(line[len("data:"):] for line in text.splitlines() if line.startswith("data:"))
    message: dict[str, Any] = json.loads(text)
    return message


def test_integral_json_numbers_are_integers(server: Served, project: Path) -> None:
    """JSON Schema counts 5.0 as an integer: raw JSON-RPC with ``"limit": 5.0`` is taken as 5."""
    call_message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "find_docs", "arguments": {"project_dir": str(project), "limit": 5.0, "format": "json"}}}
    assert b'"limit": 5.0' in json.dumps(call_message).encode()
    status, _headers, body = raw_post(server.port, {}, call_message)
    assert status == 200, body
    result = _rpc_result(body)["result"]
    assert result.get("isError") is not True, result
    assert len(result["structuredContent"]["docs"]) <= 5
    for bad, shown in ((5.5, "小数"), (True, "真偽値")):
        call_message["params"]["arguments"]["limit"] = bad  # type: ignore[index]
        status, _headers, body = raw_post(server.port, {}, call_message)
        result = _rpc_result(body)["result"]
        assert result["isError"] is True
        assert result["content"][0]["text"] == f"limit は 1 以上 100 以下の整数で渡してください（いまは{shown}です）。"


def test_http_loopback_hosts_and_stateless(server: Served) -> None:
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"[::1]:{server.port}", "localhost"):
        status, headers, body = raw_post(server.port, {"Host": host})
        assert status == 200, (host, body)
        assert "mcp-session-id" not in headers
        assert json.loads(body)["result"]["serverInfo"]["name"] == "mdmark"


def test_http_foreign_host_is_421(server: Served) -> None:
    for host in ("evil.example", f"evil.example:{server.port}", f"192.168.1.5:{server.port}", f"127.0.0.1.evil.example:{server.port}"):
        status, _headers, body = raw_post(server.port, {"Host": host})
        assert status == 421, host
        assert "127.0.0.1" in body.decode()


def test_http_any_origin_is_403(server: Served) -> None:
    for origin in (f"http://127.0.0.1:{server.port}", "http://localhost:3000", "https://evil.example", "null"):
        status, _headers, _body = raw_post(server.port, {"Origin": origin})
        assert status == 403, origin


def test_http_allow_origin(tmp_path: Path) -> None:
    served = start_server(tmp_path, "--allow-origin", "http://localhost:5173")
    try:
        status, headers, _body = raw_post(served.port, {"Origin": "http://localhost:5173"})
        assert status == 200
        assert headers.get("access-control-allow-origin") == "http://localhost:5173"
        status, _headers, _body = raw_post(served.port, {"Origin": "http://localhost:5174"})
        assert status == 403
        status, _headers, _body = raw_post(served.port, {"Host": "evil.example", "Origin": "http://localhost:5173"})
        assert status == 421
    finally:
        assert stop_server(served) == 0


# -- concurrency ---------------------------------------------------------------------------------


async def test_concurrent_clients(server: Served, project: Path) -> None:
    """8 sessions at once mixing reads, a check, exports and index writes: nothing lost, nothing blocked."""
    results: dict[int, list[Result]] = {}

    async def session(n: int) -> None:
        async with connect(server) as client:
            got = [
                await call_in(client, project, "find_docs", format="json"),
                await call_in(client, project, "update_index", kind="term", id=f"t{n}", item={"term": f"用語{n}", "definition": f"定義 {n}。"}),
                await call_in(client, project, "check"),
                await call_in(client, project, "export_html", file="docs/arch.md", out=f"out/arch-{n}.html"),
                await call_in(client, project, "update_index", kind="doc", id=f"d{n}", item={"path": "docs/cli.md", "title": f"CLI {n}"}),
                await call_in(client, project, "find_docs", text=f"CLI {n}", format="json"),
            ]
            results[n] = got

    async with anyio.create_task_group() as group:
        for n in range(8):
            group.start_soon(session, n)

    assert sorted(results) == list(range(8))
    for n, got in results.items():
        for result in got:
            assert not result.is_error, (n, result.texts)
        assert (project / "out" / f"arch-{n}.html").is_file()
    data = yaml.safe_load((project / "index.yaml").read_text(encoding="utf-8"))
    assert sorted(term["id"] for term in data["terms"]) == [f"t{n}" for n in range(8)]
    assert sorted(doc["id"] for doc in data["docs"][2:]) == sorted(f"d{n}" for n in range(8))
    async with connect(server) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == TOOL_NAMES
        final = assert_json(await call_in(client, project, "find_docs", format="json", limit=100))
    assert final["total"] == 10


async def test_a_long_call_does_not_block_others(server: Served, tmp_path: Path) -> None:
    """A cold check of many documents runs in its worker thread while another session's queries answer."""
    big = make_project(tmp_path / "big")
    entries = []
    for n in range(120):
        (big / "docs" / f"n{n:03d}.md").write_text(
            f"# 文書 {n}\n\n" + "".join(f"段落 {p} の本文。[CLI](cli.md) を見る。\n\n" for p in range(30)), encoding="utf-8"
        )
        entries.append(f"  - id: n{n:03d}\n    path: docs/n{n:03d}.md\n    title: 文書 {n}\n")
    text = (big / "index.yaml").read_text(encoding="utf-8").replace("tags:\n  - name: 設計", "".join(entries) + "tags:\n  - name: 設計", 1)
    (big / "index.yaml").write_text(text, encoding="utf-8")
    finished: list[str] = []
    check_started = anyio.Event()

    async def long_check() -> None:
        async with connect(server) as client:
            check_started.set()
            result = await call_in(client, big, "check")
            assert not result.is_error, result.texts
            finished.append("check")

    async def quick_queries() -> None:
        await check_started.wait()
        await anyio.sleep(0.2)
        async with connect(server) as client:
            for _ in range(3):
                assert not (await call_in(client, big, "list_tags")).is_error
                assert not (await call_in(client, big, "find_docs", text="文書 7")).is_error
        finished.append("queries")

    async with anyio.create_task_group() as group:
        group.start_soon(long_check)
        group.start_soon(quick_queries)
    assert finished == ["queries", "check"]


# -- stdio, signals, port in use ------------------------------------------------------------------


async def test_stdio_lists_the_same_tools(server: Served, project: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mdmark", "serve", "--stdio"], cwd=str(project))
    async with Client(params, read_timeout_seconds=120) as client:
        stdio_tools = (await client.list_tools()).tools
        data = assert_json(await call_in(client, project, "list_tags", format="json"))
        # started in the project: the working folder is the default project (issue 34)
        assert assert_json(await call(client, "check", {})) == {"issues": []}
    async with connect(server) as client:
        http_tools = (await client.list_tools()).tools
    assert [t.model_dump(by_alias=True) for t in stdio_tools] == [t.model_dump(by_alias=True) for t in http_tools]
    assert [tag["name"] for tag in data["tags"]] == ["設計", "操作", "空き"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_cleanly(tmp_path: Path, signum: int) -> None:
    served = start_server(tmp_path)
    status, _headers, _body = raw_post(served.port, {})
    assert status == 200
    served.proc.send_signal(signum)
    assert served.proc.wait(timeout=30) == 0
    assert "Traceback" not in served.stderr()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stdio_signal_stops_cleanly(tmp_path: Path, signum: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mdmark", "serve", "--stdio"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    try:
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(request) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["result"]["serverInfo"]["name"] == "mdmark"
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == 0
        assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
    finally:
        if proc.poll() is None:
            proc.kill()
        if proc.stdin:
            proc.stdin.close()


def test_port_in_use(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        completed = subprocess.run(
            [sys.executable, "-m", "mdmark", "serve", "--port", str(port)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        env_completed = subprocess.run(
            [sys.executable, "-m", "mdmark", "serve"],
            cwd=tmp_path, capture_output=True, text=True, timeout=60, env={**os.environ, "MDMARK_PORT": str(port)},
        )
    for done in (completed, env_completed):
        assert done.returncode == 1
        message = done.stderr.strip()
        assert "\n" not in message and "Traceback" not in message
        assert f"ポート {port}" in message and message.endswith("。")


def test_bad_port_value(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "mdmark", "serve"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env={**os.environ, "MDMARK_PORT": "eighty"},
    )
    assert completed.returncode == 2
    assert "MDMARK_PORT" in completed.stderr and "Traceback" not in completed.stderr
