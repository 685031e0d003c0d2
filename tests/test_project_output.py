"""What a project's own code prints never becomes mdmark's answer (issue 27, items 5 and 6).

A conf.py that prints from Python and from a subprocess, and an extension whose ``setup()`` prints
to stdout and stderr: every front-end still answers cleanly — the CLI's ``--format json`` and
``--format github`` (stdout parses / is annotations only, the output is notes on stderr) and the
MCP server over stdio (the SDK's own client talks to it through a real ``mdmark serve --stdio``).
And conf.py runs once per digest: a warm check never executes it, whatever the source folder holds.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import run_mdmark, trust_project

CONFIG = """\
docs:
  include: ["**/*.md"]
build:
  title: printing
  include: ["**/*.md"]
  out: dist/docs.html
sphinx:
  conf: conf.py
"""

CONF = """\
import os, sys, pathlib
sys.path.insert(0, os.path.dirname(__file__))
print("hello from conf.py")
os.system("echo hello from a subprocess")
pathlib.Path(__file__).with_name("ran.txt").open("a").write("ran\\n")
extensions = ["myst_parser", "noisy"]
exclude_patterns = ["_build", "drafts/*"]
"""

NOISY = """\
import sys


def setup(app):
    print("hello from setup()")
    print("hello on stderr", file=sys.stderr)
    return {"parallel_read_safe": True}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "printing"
    (root / "drafts").mkdir(parents=True)
    (root / "_build").mkdir()
    (root / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "noisy.py").write_text(NOISY, encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "index.md").write_text("# Home\n\n```{toctree}\nother\n```\n\n[gone](missing.md)\n", encoding="utf-8")
    (root / "other.md").write_text("# Other\n\nText.\n", encoding="utf-8")
    # What a warm check must not run conf.py for: an excluded document, an .rst file, a build folder.
    (root / "drafts" / "d.md").write_text("# Draft\n", encoding="utf-8")
    (root / "page.rst").write_text("Page\n====\n", encoding="utf-8")
    (root / "_build" / "b.md").write_text("# Built\n", encoding="utf-8")
    trust_project(root / "mdmark.config.yaml")
    return root


PRINTED = ("hello from conf.py", "hello from a subprocess", "hello from setup()", "hello on stderr")


def test_check_json_parses_and_the_output_is_notes_on_stderr(project: Path) -> None:
    result = run_mdmark("check", "--format", "json", cwd=project)
    assert result.returncode == 1, result.stderr
    issues = json.loads(result.stdout)["issues"]
    assert [(i["file"], i["kind"]) for i in issues] == [("index.md", "broken_link")]
    for text in PRINTED:
        assert text not in result.stdout
        assert f"プロジェクトのコード（conf.py・拡張・文書）が出力しました: {text}" in result.stderr


def test_check_github_is_annotations_only(project: Path) -> None:
    result = run_mdmark("check", "--format", "github", cwd=project)
    assert result.returncode == 1, result.stderr
    assert all(line.startswith(("::error ", "::warning ")) for line in result.stdout.splitlines()), result.stdout
    assert result.stdout.strip()


def test_outline_json_parses(project: Path) -> None:
    result = run_mdmark("outline", "index.md", "--format", "json", cwd=project)
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)


def test_build_and_export_keep_the_output_off_stdout(project: Path) -> None:
    for args in (("build",), ("export", "other.md", "-o", "other.html")):
        result = run_mdmark(*args, cwd=project)
        assert result.returncode == 0, result.stderr
        assert not any(text in result.stdout for text in PRINTED), result.stdout


@pytest.mark.anyio
async def test_stdio_channel_stays_clean(project: Path) -> None:
    # The server sees the trust the fixture recorded (the SDK passes only a few variables on).
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mdmark", "serve", "--stdio"], cwd=str(project), env=dict(os.environ)
    )
    async with Client(params, read_timeout_seconds=120) as client:
        result = await client.call_tool("check", {"project_dir": str(project)})
        assert not result.is_error, result.content
        text = "".join(block.text for block in result.content if block.type == "text")
        assert [i["kind"] for i in json.loads(text)["issues"]] == ["broken_link"]


def test_a_warm_check_never_runs_conf_py(project: Path) -> None:
    marker = project / "ran.txt"
    first = run_mdmark("check", cwd=project)
    assert first.returncode == 1, first.stderr
    runs = marker.read_text(encoding="utf-8").count("ran")
    assert runs >= 1
    for _ in range(2):
        again = run_mdmark("check", cwd=project)
        assert again.returncode == 1, again.stderr
        assert again.stdout == first.stdout
        assert "hello from conf.py" not in again.stderr
    assert marker.read_text(encoding="utf-8").count("ran") == runs
