"""The library under the language server: checking unsaved text and one edited document, and
navigation answers, without a client (tests/test_lsp.py drives the same over LSP)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from mdmark.check.collect import check_document, check_texts, collect
from mdmark.project import Project
from mdmark.queries.navigate import Navigator

CHECK_PROJECTS = sorted(p.name for p in (FIXTURES / "check").iterdir() if (p / "mdmark.config.yaml").is_file())


@pytest.mark.parametrize("name", CHECK_PROJECTS)
def test_check_texts_without_texts_is_check(name: str) -> None:
    root = FIXTURES / "check" / name
    _ctx, found = check_texts(root, {})
    assert found == collect(Project.open(root))


@pytest.mark.parametrize("name", CHECK_PROJECTS)
def test_one_document_gives_what_the_whole_check_gives_for_it(name: str) -> None:
    root = (FIXTURES / "check" / name).resolve()
    ctx, found = check_texts(root, {})
    for document in ctx.documents:
        one = check_document(ctx, document.path, {})
        assert one is not None
        assert one[1] == [d for d in found if d.file == document.file], document.file


def test_unsaved_text_is_checked_and_nothing_is_written(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "references" / "project", root)
    guide = (root / "docs" / "guide.md").resolve()
    before = guide.read_bytes()
    texts = {guide: guide.read_text(encoding="utf-8") + "\n{ref}`zz-gone`\n"}
    ctx, found = check_texts(root, texts)
    assert any("`zz-gone`" in d.message and d.kind == "broken_anchor" for d in found)
    one = check_document(ctx, guide, texts)
    assert one is not None and [d for d in one[1] if "zz-gone" in d.message]
    assert guide.read_bytes() == before


def test_index_and_config_from_text(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "check" / "title_mismatch", root)
    index = next(root.rglob("index.yaml")).resolve()
    _ctx, found = check_texts(root, {index: index.read_text(encoding="utf-8") + "\nbogus: 1\n"})
    assert any(d.kind == "index_schema" for d in found)
    config = (root / "mdmark.config.yaml").resolve()
    _ctx, found = check_texts(root, {config: config.read_text(encoding="utf-8") + "\nbogus: 1\n"})
    assert any(d.kind == "config_key" for d in found)


def test_navigator_reference_spans_find_the_written_target() -> None:
    root = (FIXTURES / "references" / "project").resolve()
    ctx, _ = check_texts(root, {})
    nav = Navigator(ctx)
    path = root / "docs" / "guide.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    for link, span in nav.reference_spans("docs/guide"):
        written = lines[span.line - 1][span.start : span.end]
        assert written in (link.target, link.target.lstrip("#")) or link.target.endswith(written), (link, written)
