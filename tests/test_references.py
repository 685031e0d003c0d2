"""Golden files for toctrees and references in check, export and build (one project, every option).

``tests/fixtures/references/project`` uses every toctree option (maxdepth, caption, hidden, glob,
numbered, titlesonly, reversed, name, ``Title <doc>``, a URL, ``self``, a missing entry, an empty
glob) and every reference kind ({ref}, {numref}, {doc}, {term}, {eq}, {download}, Markdown links
to documents, anchors, labels and files), good and broken. The three outputs are compared with
golden files, and the rule that ties them is asserted: every reference warning of export and
build is a check drift at the same file and line, with the same sentence.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_golden, run_mdmark

HERE = FIXTURES / "references"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("references") / "project"
    shutil.copytree(HERE / "project", root)
    return root


def _sections(page: str) -> str:
    """The documents' sections of a built page (the layout around them has its own tests)."""
    return "".join(m.group(0) + "\n" for m in re.finditer(r'<section class="mdmark-doc".*?</section>', page, re.S))


def _article(page: str) -> str:
    match = re.search(r'<article class="mdmark-doc">.*?</article>', page, re.S)
    assert match is not None
    return match.group(0) + "\n"


def _drifts(project: Path) -> set[str]:
    result = run_mdmark("check", cwd=project)
    assert result.returncode == 1, result.stderr
    return {re.sub(r"^(\S+?):(\d+): \w+: ", r"\1:\2: ", line) for line in result.stdout.splitlines()}


def test_check(project: Path) -> None:
    result = run_mdmark("check", cwd=project)
    assert result.returncode == 1
    assert_golden(result.stdout, HERE / "check.txt")


def test_build(project: Path) -> None:
    result = run_mdmark("build", cwd=project)
    assert result.returncode == 0, result.stderr
    page = (project / "dist" / "docs.html").read_text(encoding="utf-8")
    assert_golden(_sections(page), HERE / "build.html")
    warnings = [line for line in result.stderr.splitlines() if re.match(r"^docs/\S+:\d+: ", line)]
    assert_golden("\n".join(warnings) + "\n", HERE / "build-warnings.txt")
    assert set(warnings) <= _drifts(project)


@pytest.mark.parametrize("doc", ["index", "guide"])
def test_export(project: Path, doc: str) -> None:
    result = run_mdmark("export", f"docs/{doc}.md", cwd=project)
    assert result.returncode == 0, result.stderr
    page = (project / "docs" / f"{doc}.html").read_text(encoding="utf-8")
    assert_golden(_article(page), HERE / f"export-{doc}.html")
    warnings = [line for line in result.stderr.splitlines() if re.match(r"^docs/\S+:\d+: ", line)]
    assert set(warnings) <= _drifts(project)
    if doc == "guide":
        assert len(warnings) == 9
