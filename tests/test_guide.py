"""The guide (使い方集): a clean mdmark document set, the user manual, and its examples run for real.

The guide is the reference the MCP contract points to, so these tests hold it to the code: every
config key, index key, CLI option, exit code, drift kind and notation element is on its page, and
the examples (YAML, JSON, the check example set, the CLI transcripts, the systemd unit, the
launchd agent, the Sphinx conf.py) are run or parsed rather than trusted.
"""

from __future__ import annotations

import argparse
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_mdmark as run
from html_helpers import script_problems

from mdmark.cli.main import build_parser
from mdmark.config.main import CONFIG_SCHEMA
from mdmark.config.myst import myst_extensions
from mdmark.declare.schema import Record, validate
from mdmark.core.diagnostics import DRIFT_KINDS
from mdmark.guide.reader import MAX_GUIDE_CHARS, guide_entries, page_text, read_guide
from mdmark.index.model import (
    DOC,
    RELATION,
    RELATION_TYPES,
    REVERSE_TYPES,
    TAG,
    TAG_REF,
    TERM,
    index_problems,
)

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "mdmark" / "guide"

REQUIRED_PAGES = {
    "install": "プラグインを入れる",
    "mcp-tools": "MCP のツールを使う",
    "serve": "MCPサーバーを起動する",
    "config": "設定",
    "index": "索引",
    "cli": "CLI",
    "notation": "記法",
    "extension": "Sphinx 拡張",
    "sphinx-project": "既にある Sphinx のプロジェクトで使う",
    "export": "文書を書き出す",
    "build": "文書を1枚にまとめる",
    "check": "点検する",
    "write-index": "索引と用語集を書く",
}

# --- reading the pages -------------------------------------------------------------------------


@dataclass
class Block:
    """A fenced code block: the info string (``yaml``, ``{code-block} yaml``), options, body, line."""

    info: str
    options: dict[str, str]
    body: str
    line: int

    @property
    def lang(self) -> str:
        words = self.info.split()
        if words and words[0] == "{code-block}":
            return words[1] if len(words) > 1 else ""
        return words[0] if words else ""


_FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")


def blocks(page: str) -> list[Block]:
    """The top-level fenced blocks of a page (a longer outer fence keeps inner fences as text)."""
    found: list[Block] = []
    lines = text_of(page).splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info = match.group(1), match.group(2).strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not (
            lines[i].startswith(fence[0] * len(fence)) and lines[i].strip(fence[0]) == ""
        ):
            body.append(lines[i])
            i += 1
        options: dict[str, str] = {}
        if info.startswith("{"):
            while body and (opt := re.match(r"^:([\w-]+):\s*(.*)$", body[0])):
                options[opt.group(1)] = opt.group(2)
                body.pop(0)
            if body and body[0] == "":
                body.pop(0)
        found.append(Block(info, options, "\n".join(body) + "\n", start + 1))
        i += 1
    return found


def text_of(page: str) -> str:
    """The page as readers get it (``mdmark guide``, read_guide): its tables of drift kinds filled in."""
    return page_text(GUIDE / f"{page}.md", f"guide/{page}.md")


def section(page: str, heading: str) -> str:
    """The text of one section, up to the next heading of the same or a higher level.

    Lines inside fenced blocks are never headings (the check example holds Markdown files).
    """
    level = 0
    out: list[str] = []
    fence: str | None = None
    for line in text_of(page).splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and line.startswith(fence) and line.strip(fence[0]) == "":
            fence = None
        elif fence is None and (head := re.match(r"^(#+) (.*)$", line)):
            if level and len(head.group(1)) <= level:
                break
            if not level and head.group(2) == heading:
                level = len(head.group(1))
                continue
        if level:
            out.append(line)
    assert level, f"{page}.md has no heading {heading!r}"
    return "\n".join(out) + "\n"


def table_first_column(text: str, nth: int = 0) -> list[str]:
    """The first cells of the ``nth`` Markdown table in ``text`` (header included), backticks removed."""
    tables: list[list[str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("| "):
            if not inside:
                tables.append([])
                inside = True
            if not re.match(r"^\| :?-", line):
                tables[-1].append(line.split("|")[1].strip().strip("`"))
        else:
            inside = False
    return tables[nth] if nth < len(tables) else []


# --- a copy of the guide to run mdmark on (the package folder stays untouched) ------------------


@pytest.fixture(scope="module")
def guide_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("guide") / "guide"
    shutil.copytree(GUIDE, target, ignore=shutil.ignore_patterns("__pycache__", "__init__.py", "dist", ".mdmark_cache"))
    return target


# --- the document set ---------------------------------------------------------------------------


def test_the_required_pages_have_their_titles() -> None:
    entries = {e.name: e for e in guide_entries()}
    for name, title in REQUIRED_PAGES.items():
        assert entries[name].title == title
        assert entries[name].description
        first = text_of(name).splitlines()[0]
        assert first == f"# {title}"


def test_every_page_is_in_the_index_and_every_entry_has_a_page() -> None:
    pages = {p.stem for p in GUIDE.glob("*.md")}
    assert pages == {e.name for e in guide_entries()}


def test_each_page_can_be_read_alone() -> None:
    for entry in guide_entries():
        (text,) = read_guide([entry.name])
        assert text.startswith(f"# {entry.name}\n\n# {entry.title}\n")
        assert len(text) < MAX_GUIDE_CHARS


def test_every_guide_file_is_package_data() -> None:
    import fnmatch
    import tomllib

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["mdmark.guide"]
    shipped = [
        p.name
        for p in GUIDE.iterdir()
        if p.is_file() and p.suffix != ".py" and not p.name.startswith(".")
    ]
    assert {"index.yaml", "mdmark.config.yaml", "notation.md", "pipeline.svg", "graph.svg"} <= set(shipped)
    for name in shipped:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def test_the_guide_index_fits_the_schema() -> None:
    data = yaml.safe_load((GUIDE / "index.yaml").read_text(encoding="utf-8"))
    assert index_problems(data) == []
    used = {t if isinstance(t, str) else t["name"] for d in data["docs"] for t in d.get("tags", [])}
    assert used <= {t["name"] for t in data["tags"]}
    for doc in data["docs"]:
        assert sum(1 for t in doc["tags"] if isinstance(t, dict) and t.get("main")) == 1, doc["id"]
        assert any(isinstance(r, dict) and r.get("type") for r in doc.get("related", [])) or doc["id"] == "notation"


def test_mdmark_check_finds_no_drift_in_the_guide(guide_copy: Path) -> None:
    done = run("check", cwd=guide_copy)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "ずれは見つかりませんでした。\n")


def test_mdmark_check_json_on_the_guide_is_empty(guide_copy: Path) -> None:
    done = run("check", "--format", "json", cwd=guide_copy)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"issues": []}


def test_mdmark_build_writes_the_manual_as_one_html(guide_copy: Path) -> None:
    done = run("build", cwd=guide_copy)
    out = guide_copy / "dist" / "mdmark-guide.html"
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout == f"{len(guide_entries())} 件の文書を {out} にまとめました。\n"
    html = out.read_text(encoding="utf-8")
    assert "<title>mdmark 使い方集</title>" in html
    for entry in guide_entries():
        assert entry.title in html
    # One self-contained page: nothing is loaded from elsewhere.
    assert not re.search(r"<(?:script|img|link)[^>]+(?:src|href)=\"(?:https?:)?//", html)
    assert "<link" not in html


NOTATION_MARKERS = {
    "heading anchors": 'id="段落と文字の飾り"',
    "label": 'id="label-example"',
    "emphasis": "<em>斜体</em>",
    "strong": "<strong>太字</strong>",
    "subscript": "<sub>下付き</sub>",
    "superscript": "<sup>上付き</sup>",
    "kbd": "<kbd",
    "abbr": "<abbr",
    "attrs_inline": "sd-text-danger",
    "doc role (title as text)": 'std-doc">CLI</span>',
    "link to another page": 'href="cli.html#終了コード"',
    "blockquote": "<blockquote>",
    "thematic break": "<hr",
    "nested list": "入れ子の番号",
    "task list": 'type="checkbox"',
    "definition list": "<dl",
    "table": "<table",
    "list-table caption": "終了コード</span>",
    "highlighted code": "highlight-python",
    "line numbers": "linenos",
    "emphasized line": "hll",
    "code caption": "code-block-caption",
    "note": "admonition note",
    "warning": "admonition warning",
    "tip": "admonition tip",
    "custom admonition": "題を付けた注記",
    "footnote": "footnote",
    "image as data URI": 'src="data:image/svg+xml',
    "figure": "<figure",
    "figure caption": "<figcaption",
    "math (MathML)": "<math",
    "substitution": "mdmark の既定のポートは 8782 です。",
    "grid": "sd-container-fluid",
    "grid-item-card": "sd-card",
    "card header": "sd-card-header",
    "card footer": "sd-card-footer",
    "tab-set": "sd-tab-set",
    "tab-item": "sd-tab-label",
    "dropdown": "<details",
    "dropdown open": 'open="open"',
    "badge": "sd-badge",
    "badge outline": "sd-outline-danger",
    "button-link": 'href="https://sphinx-design.readthedocs.io/"',
    "button-ref": "sd-btn-secondary",
    "octicon": "sd-octicon-check-circle",
    "ref with its own text": 'std-ref">見出しへ</span>',
    "numref (default format)": "std-numref docutils literal notranslate\"><span class=\"pre\">図 1</span>",
    "numref with %s": "流れの図（1）</span>",
    "doc role with its own text": 'std-doc">設定のページ</span>',
    "term": 'std-term">ラベル</span>',
    "glossary": "glossary",
    "download": 'href="mdmark.config.yaml"',
    "toctree": "mdmark-toctree",
    "toctree caption": 'caption-text">手順のページ</span>',
    "toctree entry (document title)": 'href="check.html">点検する</a>',
    "toctree entry (title as written)": 'href="export.html">文書を書き出す</a>',
    "toctree URL entry": 'href="https://myst-parser.readthedocs.io/">MyST の説明</a>',
    "include": "Ctrl+C で止めた",
    "literalinclude": "この使い方集の設定の build",
}


def test_mdmark_export_renders_every_notation_element(guide_copy: Path, tmp_path: Path) -> None:
    out = guide_copy / "notation-export.html"
    done = run("export", "notation.md", "-o", str(out), cwd=guide_copy)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out}\n"
    html = out.read_text(encoding="utf-8")
    missing = [name for name, marker in NOTATION_MARKERS.items() if marker not in html]
    assert missing == []
    # The comment line shows in the code block of its example but not as text after it.
    assert html.count("この行は HTML に出ません。") == 1
    # Nothing loads: no <link>, and no script but the inline ones the policy names (the copy button's).
    assert "<link" not in html and script_problems(html) == []
    assert 'button.className = "mdmark-copy"' in html
    assert done.stderr == ""


def test_every_page_exports_without_warnings(guide_copy: Path) -> None:
    for entry in guide_entries():
        out = guide_copy / "exported" / f"{entry.name}.html"
        done = run("export", f"{entry.name}.md", "-o", str(out), cwd=guide_copy)
        assert (done.returncode, done.stderr) == (0, ""), entry.name


# --- every key, option, code and kind is on its page --------------------------------------------


def _record_paths(record: Record, prefix: str = "") -> Iterator[str]:
    for name, key in record.keys.items():
        path = f"{prefix}{name}"
        if isinstance(key.spec, Record):
            yield from _record_paths(key.spec, f"{path}.")
        else:
            yield path


def test_config_page_lists_every_config_key() -> None:
    listed = table_first_column(section("config", "キーの一覧"))
    assert listed[1:] == list(_record_paths(CONFIG_SCHEMA))
    for name in CONFIG_SCHEMA.keys:
        assert re.search(rf"^### {name}$", text_of("config"), re.M), name


def test_config_page_lists_every_myst_extension() -> None:
    table = section("config", "markdown")
    assert [c for c in table_first_column(table) if c != "名前"] == list(myst_extensions())


def test_config_page_yaml_examples_are_valid_configs() -> None:
    examples = [b for b in blocks("config") if b.lang == "yaml"]
    assert len(examples) >= 5
    for block in examples:
        assert validate(CONFIG_SCHEMA, yaml.safe_load(block.body)) == [], block.line


def test_build_page_yaml_example_is_a_valid_config() -> None:
    for block in (b for b in blocks("build") if b.lang == "yaml"):
        assert validate(CONFIG_SCHEMA, yaml.safe_load(block.body)) == [], block.line


def test_index_page_documents_every_index_key() -> None:
    page = text_of("index")
    for title, record in (("docs（文書）", DOC), ("terms（用語集）", TERM), ("tags（タグの語彙）", TAG)):
        assert table_first_column(section("index", title))[1:] == list(record.keys), title
    assert table_first_column(section("index", "related の要素"))[1:] == list(RELATION.keys)
    for key in TAG_REF.keys:
        assert f"`{key}`" in section("index", "tags の要素")
    assert table_first_column(section("index", "related の要素"), nth=1)[1:] == list(RELATION_TYPES)
    for reverse in REVERSE_TYPES.values():
        assert f"`{reverse}`" in page


def test_index_examples_fit_the_schema() -> None:
    top_level = [
        b
        for page in ("index", "write-index")
        for b in blocks(page)
        if b.lang == "yaml" and not b.body.startswith(" ")
    ]
    assert len(top_level) >= 3
    for block in top_level:
        assert index_problems(yaml.safe_load(block.body)) == [], block.line


def _index_example_project(folder: Path) -> Path:
    example = next(b for b in blocks("index") if b.lang == "yaml")
    (folder / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (folder / "index.yaml").write_text(example.body, encoding="utf-8")
    for doc in yaml.safe_load(example.body)["docs"]:
        path = folder / doc["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {doc['title']}\n\n本文。\n", encoding="utf-8")
    return folder


def test_index_page_full_example_checks_clean(tmp_path: Path) -> None:
    """The first example of the index page, with its documents written, has no drift at all."""
    done = run("check", cwd=_index_example_project(tmp_path))
    assert (done.returncode, done.stdout) == (0, "")


def test_mcp_tools_page_examples_run_against_the_index_example(tmp_path: Path) -> None:
    """Every tool input on the mcp-tools page is accepted by the real tool; results have the tool's shape."""
    from mdmark.tools.registry import TOOLS_BY_NAME, call_tool

    project = _index_example_project(tmp_path)
    ran: list[str] = []
    for block in (b for b in blocks("mcp-tools") if b.lang == "json"):
        data = json.loads(block.body)
        heading = [h for h in re.findall(r"^## .*$", text_of("mcp-tools")[: _offset("mcp-tools", block.line)], re.M)][-1]
        names = re.findall(r"[a-z_]+", heading.split("（")[-1]) if "（" in heading else []
        specs = [TOOLS_BY_NAME[n] for n in names if n in TOOLS_BY_NAME]
        if not specs:
            continue  # e.g. the permissions settings
        as_input = [spec for spec in specs if set(data) <= set(spec.properties)]
        if as_input:
            spec = as_input[0]
            arguments = data if spec.name == "read_guide" else {**data, "project_dir": str(project)}
            outcome = call_tool(spec.name, arguments)
            assert not outcome.is_error, (block.line, outcome.texts)
            ran.append(spec.name)
            last = outcome
        else:
            shapes = [set(spec.output_schema["required"]) for spec in specs if spec.output_schema]
            assert set(data) in shapes, block.line
            if "action" in data:
                assert last.structured == data
    assert set(ran) == {"read_guide", "find_docs", "check", "update_index", "export_html", "outline", "read_doc"}


def _offset(page: str, line: int) -> int:
    return sum(len(row) + 1 for row in text_of(page).splitlines()[: line - 1])


def test_indented_index_snippets_fit_the_schema() -> None:
    # write-index shows single items (indented as inside docs:); wrapped, they must be valid too.
    snippets = [b for b in blocks("write-index") if b.lang == "yaml" and b.body.startswith("  - id:")]
    assert snippets
    for block in snippets:
        assert index_problems(yaml.safe_load("docs:\n" + block.body)) == [], block.line


def test_drift_kinds_are_on_the_cli_and_check_pages() -> None:
    assert table_first_column(section("cli", "ずれの種類"))[1:] == list(DRIFT_KINDS)
    assert table_first_column(section("check", "種類ごとの直し方"))[1:] == list(DRIFT_KINDS)


def _subcommands(parser: argparse.ArgumentParser, prefix: str = "mdmark") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"{prefix} {name}", sub
                yield from _subcommands(sub, f"{prefix} {name}")


def test_cli_page_documents_every_command_and_option() -> None:
    page = text_of("cli")
    commands = dict(_subcommands(build_parser()))
    for command, parser in commands.items():
        if command.count(" ") == 1:
            assert re.search(rf"^## {re.escape(command)}$", page, re.M), command
        for action in parser._actions:
            for option in action.option_strings:
                if option in ("-h", "--help"):
                    continue
                assert f"`{option}" in page or f"[{option}" in page, f"{command} {option}"
            if not action.option_strings and not isinstance(action, argparse._SubParsersAction):
                shown = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
                assert shown in page, f"{command} {action.dest}"
    assert "`--version`" in page or "mdmark --version" in page


def test_cli_page_lists_the_exit_codes() -> None:
    assert table_first_column(section("cli", "終了コード"))[1:] == ["0", "1", "2", "130"]


def test_json_examples_parse() -> None:
    for entry in guide_entries():
        for block in blocks(entry.name):
            if block.lang == "json":
                json.loads(block.body)


# --- examples run for real ------------------------------------------------------------------------


def _transcript(block: Block, command: str) -> str:
    """The output lines that follow ``$ command`` in a console block."""
    lines = block.body.splitlines()
    start = lines.index(f"$ {command}") + 1
    out = []
    for line in lines[start:]:
        if line.startswith("$ "):
            break
        out.append(line)
    return "\n".join(out) + "\n"


def _write_captioned_files(page: str, folder: Path, captions: list[str], within: str | None = None) -> None:
    """Write the page's code blocks captioned with a file path (those in ``within`` only) under ``folder``."""
    files = [b for b in blocks(page) if "caption" in b.options and (within is None or b.options["caption"] in within)]
    assert [b.options["caption"] for b in files] == captions
    for block in files:
        path = folder / block.options["caption"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.body, encoding="utf-8")


def test_check_page_example_gives_the_output_shown(tmp_path: Path) -> None:
    _write_captioned_files(
        "check",
        tmp_path,
        ["mdmark.config.yaml", "index.yaml", "docs/arch.md", "docs/api.md", "docs/memo.md", "docs/note.md"],
        within=section("check", "例: ずれのある文書の集まり"),
    )
    (console,) = [b for b in blocks("check") if b.lang == "console" and "$ mdmark check\nmdmark.config.yaml" in b.body]
    expected = _transcript(console, "mdmark check")
    done = run("check", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout + done.stderr == expected
    kinds = {line.split(": ")[1] for line in done.stdout.splitlines()}
    # missed_change_together needs --base; not_in_toctree a project's conf.py (sphinx.conf).
    assert kinds == set(DRIFT_KINDS) - {"missed_change_together", "not_in_toctree"}


def test_cli_page_init_transcript(tmp_path: Path) -> None:
    (block,) = [b for b in blocks("cli") if "$ mdmark init notes" in b.body]
    done = run("init", "notes", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == _transcript(block, "mdmark init notes")
    # The starter set checks clean, as the install page promises.
    done = run("check", cwd=tmp_path / "notes")
    assert (done.returncode, done.stdout) == (0, "")


def test_cli_page_usage_error_transcript(tmp_path: Path) -> None:
    (block,) = [b for b in blocks("cli") if "$ mdmark check --format yaml" in b.body]
    done = run("check", "--format", "yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == _transcript(block, "mdmark check --format yaml").split("$ echo")[0]


def test_cli_page_index_transcript(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    (block,) = [b for b in blocks("cli") if "$ mdmark index set" in b.body]
    lines = block.body.splitlines()
    set_command = lines[0][2:]
    item = set_command.split("--item ", 1)[1].strip("'")
    done = run("index", "set", "doc", "b", "--item", item, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == lines[1] + "\n"
    remove_command = lines[2][2:]
    assert remove_command == "mdmark index remove doc b --format json"
    done = run(*remove_command.split()[1:], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == lines[3] + "\n"


def test_cli_page_find_and_tags_transcripts(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    (find,) = [b for b in blocks("cli") if "$ mdmark find --tag" in b.body]
    done = run("find", "--tag", "案内", "--include", "path", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, _transcript(find, "mdmark find --tag 案内 --include path"))
    done = run("find", "--limit", "0", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, _transcript(find, "mdmark find --limit 0"))
    (tags,) = [b for b in blocks("cli") if "$ mdmark tags" in b.body]
    done = run("tags", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, _transcript(tags, "mdmark tags"))


def test_cli_page_outline_and_read_transcripts(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    (outline,) = [b for b in blocks("cli") if "$ mdmark outline welcome" in b.body]
    done = run("outline", "welcome", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, _transcript(outline, "mdmark outline welcome"))
    done = run("outline", "nothing", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, _transcript(outline, "mdmark outline nothing"))
    (read,) = [b for b in blocks("cli") if "$ mdmark read welcome" in b.body]
    done = run("read", "welcome", "--lines", "1-3", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, _transcript(read, "mdmark read welcome --lines 1-3"))
    done = run("read", "welcome", "--lines", "30-40", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, _transcript(read, "mdmark read welcome --lines 30-40"))


def test_read_and_toon_pages_transcripts(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    for page, command in (
        ("read", "mdmark outline welcome"),
        ("read", "mdmark read welcome --section 書き方"),
        ("toon", "mdmark find --format toon"),
    ):
        (block,) = [b for b in blocks(page) if f"$ {command}\n" in b.body]
        done = run(*command.split()[1:], cwd=tmp_path)
        assert (done.returncode, done.stdout) == (0, _transcript(block, command)), (page, command)
def test_cli_page_graph_transcript(tmp_path: Path) -> None:
    assert run("init", cwd=tmp_path).returncode == 0
    (block,) = [b for b in blocks("cli") if "$ mdmark graph --format dot" in b.body]
    done = run("graph", "--format", "dot", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, _transcript(block, "mdmark graph --format dot"))
    done = run("graph", "--doc", "welcom", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, _transcript(block, "mdmark graph --doc welcom"))


def test_build_page_shows_the_guides_own_graph(guide_copy: Path) -> None:
    """graph.svg on the build page is what `mdmark graph` draws for the guide as it is now."""
    from mdmark.graph.overview import DETAIL_MAX_EDGES, DETAIL_MAX_NODES

    page = section("build", "文書の関係図")
    assert "![この使い方集の文書の関係図](graph.svg)" in page
    assert f"文書が {DETAIL_MAX_NODES} 件を超える（か関係が {DETAIL_MAX_EDGES} 本を超える）" in page
    out = guide_copy / "graph-now.svg"
    done = run("graph", "-o", str(out), cwd=guide_copy)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == (GUIDE / "graph.svg").read_text(encoding="utf-8"), (
        "regenerate: cd mdmark/guide && mdmark graph -o graph.svg"
    )
    out.unlink()


def test_install_page_transcripts_match_the_commands(tmp_path: Path) -> None:
    (block,) = [b for b in blocks("install") if "$ mdmark init" in b.body]
    folder = tmp_path / "notes"
    folder.mkdir()
    done = run("init", cwd=folder)
    assert done.stdout == _transcript(block, "mdmark init")
    done = run("check", cwd=folder)
    assert (done.returncode, done.stdout) == (0, "")


def test_install_page_uses_the_marketplace_name() -> None:
    marketplace = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    plugin = json.loads((REPO / "plugin" / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    page = text_of("install")
    assert f"claude plugin install {plugin['name']}@{marketplace['name']}" in page
    assert "claude plugin marketplace add" in page
    assert "plugin:mdmark:mdmark" in page
    assert "pipx install ." in page
    assert "mdmark serve" in page


def test_mdmark_guide_lists_the_pages_in_index_order() -> None:
    done = run("guide", cwd=REPO)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert [r[0] for r in rows] == [e.name for e in guide_entries()]
    assert all(len(r) == 3 and all(r) for r in rows)


# --- the service files of the serve page ---------------------------------------------------------


def test_systemd_unit_verifies(tmp_path: Path) -> None:
    (unit,) = [b for b in blocks("serve") if b.lang == "ini"]
    assert unit.body.startswith("# ~/.config/systemd/user/mdmark.service\n")
    home = tmp_path / "home"
    bindir = home / ".local" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "mdmark").symlink_to(Path(sys.executable).parent / "mdmark")
    unit_dir = home / ".config" / "systemd" / "user"
    unit_dir.mkdir(parents=True)
    path = unit_dir / "mdmark.service"
    path.write_text(unit.body, encoding="utf-8")
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        _check_unit_syntax(unit.body)
        return
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    done = subprocess.run([analyze, "--user", "verify", str(path)], capture_output=True, text=True, env=env, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    _check_unit_syntax(unit.body)


def _check_unit_syntax(text: str) -> None:
    """Sections and keys as systemd reads them (the fallback where systemd-analyze is missing)."""
    sections: dict[str, dict[str, str]] = {}
    current = None
    for line in text.splitlines():
        if not line.strip() or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            assert line.endswith("]"), line
            current = line[1:-1]
            sections[current] = {}
            continue
        assert current is not None and "=" in line, line
        key, value = line.split("=", 1)
        sections[current][key] = value
    assert set(sections) == {"Unit", "Service", "Install"}
    assert sections["Service"]["ExecStart"].split()[1:] == ["serve"]
    assert sections["Install"]["WantedBy"] == "default.target"


def test_launchd_agent_is_a_valid_plist() -> None:
    (agent,) = [b for b in blocks("serve") if b.lang == "xml"]
    data: dict[str, Any] = plistlib.loads(agent.body.encode("utf-8"))
    assert data["Label"] == "io.mdmark.serve"
    assert Path(data["ProgramArguments"][0]).name == "mdmark"
    assert data["ProgramArguments"][1:] == ["serve"]
    assert data["EnvironmentVariables"] == {"MDMARK_PORT": "8782"}
    assert data["RunAtLoad"] is True
    assert data["KeepAlive"] == {"SuccessfulExit": False}
    assert "io.mdmark.serve.plist" in text_of("serve")
    # Round trip: what plistlib writes back reads the same (no stray keys or types).
    assert plistlib.loads(plistlib.dumps(data)) == data


def _sphinx_project_example(folder: Path) -> Path:
    """The example project of the sphinx-project page, its files written from the page's blocks."""
    captions = ["mdmark.config.yaml", "docs/conf.py", "docs/index.md", "docs/arch.md", "docs/api.md"]
    _write_captioned_files("sphinx-project", folder, captions)
    return folder


def test_sphinx_project_page_check_and_build_give_the_output_shown(tmp_path: Path) -> None:
    project = _sphinx_project_example(tmp_path / "proj")
    (trust,) = [b for b in blocks("sphinx-project") if b.lang == "console" and "$ mdmark trust" in b.body]
    done = run("trust", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout + done.stderr == _transcript(trust, "mdmark trust")
    (check,) = [b for b in blocks("sphinx-project") if b.lang == "console" and "$ mdmark check" in b.body]
    done = run("check", cwd=project)
    assert done.returncode == 1
    assert done.stdout + done.stderr == _transcript(check, "mdmark check")
    (build,) = [b for b in blocks("sphinx-project") if b.lang == "console" and "$ mdmark build" in b.body]
    done = run("build", cwd=project)
    assert done.returncode == 0, done.stderr
    shown = (done.stderr + done.stdout).replace(str(project.resolve()), "/home/user/proj")
    assert shown == _transcript(build, "mdmark build")


def test_sphinx_project_page_shows_what_sphinx_build_warns(tmp_path: Path) -> None:
    """The page's sphinx-build warnings are what sphinx-build itself says about the example."""
    project = _sphinx_project_example(tmp_path / "proj")
    (shown,) = [b for b in blocks("sphinx-project") if b.lang == "text" and "WARNING" in b.body]
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-E", "-q", "-b", "html", "docs", str(tmp_path / "out")],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = done.stderr.replace(f"{project.resolve()}/", "").replace(f"{project}/", "")
    assert sorted(said.splitlines()) == sorted(shown.body.splitlines())


def test_extension_page_conf_py_is_the_one_sphinx_builds() -> None:
    (conf,) = [b for b in blocks("extension") if b.lang == "python"]
    compile(conf.body, "conf.py", "exec")
    root = REPO / "tests" / "roots" / "test-guide-example" / "docs" / "conf.py"
    if not root.is_file():
        pytest.skip("the Sphinx extension's guide-example root is not there")
    # tests/test_sphinx_ext.py builds that root with -W; the page shows the same file.
    assert conf.body == root.read_text(encoding="utf-8")


# --- the key tables are made from the declarations ---------------------------------------------


KEY_TABLES = {
    "config": ("config", "キーの一覧"),
    "docs": ("index", "docs（文書）"),
    "docs.tags": ("index", "tags の要素"),
    "docs.related": ("index", "related の要素"),
    "terms": ("index", "terms（用語集）"),
    "tags": ("index", "tags（タグの語彙）"),
}


@pytest.mark.parametrize("place", list(KEY_TABLES))
def test_key_table_shows_every_key_with_its_help_and_default(place: str) -> None:
    """A key declared in the config or the index model is on its page, with its help and default,
    with no edit of the page: the page holds a marker, the reader writes the table."""
    from mdmark.declare.fields import leaves
    from mdmark.guide.reader import declaration_at, default_text

    page, heading = KEY_TABLES[place]
    assert f"<!-- mdmark:keys {place} -->" in (GUIDE / f"{page}.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip().strip("`"): line for line in section(page, heading).splitlines() if line.startswith("| `")}
    for path, declared in leaves(declaration_at(place)):
        row = rows[path]
        assert declared.help in row and f"| {default_text(declared)} |" in row, row
        assert declared.spec.describe() in row, row


def test_packaged_pages_hold_no_key_marker_unfilled() -> None:
    for entry in guide_entries():
        assert "<!-- mdmark:keys" not in page_text(GUIDE / f"{entry.name}.md", entry.name), entry.name
