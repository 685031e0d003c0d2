"""The library under the language server: checking unsaved text and one edited document, and
navigation answers, without a client (tests/test_lsp.py drives the same over LSP)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from mdmark.check.collect import check_document, check_texts, collect
from mdmark.project.main import Project
from mdmark.queries.navigation import completion, fixes, rename, symbols
from mdmark.queries.navigation.navigator import Navigator

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


def test_a_long_editing_session_checks_as_the_whole_check(tmp_path: Path) -> None:
    # An editor checks each keystroke against the project the last one left: past Python's
    # recursion limit of edits, each answer still the whole check's, other documents' too.
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "references" / "project", root)
    guide = (root / "docs" / "guide.md").resolve()
    chapter = (root / "docs" / "chapter2.md").resolve()
    base = guide.read_text(encoding="utf-8")
    texts_of = [{guide: base + "\n{ref}`zz-one`\n"}, {guide: base + "\n{ref}`tbl-sizes`\n"}]
    ctx, _ = check_texts(root, {})
    for turn in range(1100):
        found = check_document(ctx, guide, texts_of[turn % 2])
        assert found is not None
        ctx = found[0]
    for texts in texts_of:
        _whole, want = check_texts(root, texts)
        found = check_document(ctx, guide, texts)
        assert found is not None
        ctx = found[0]
        assert found[1] == [d for d in want if d.file == "docs/guide.md"]
        other = check_document(ctx, chapter, texts)
        assert other is not None and other[1] == [d for d in want if d.file == "docs/chapter2.md"]


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


def _apply(texts: dict[Path, str], edits: list) -> dict[Path, str]:  # type: ignore[type-arg]
    """The files' text with the edits made (each edit's span on the text as it was)."""
    from mdmark.queries.navigation.navigator import whole_file_text

    out = dict(texts)
    for path in {e.span.path for e in edits}:
        text = out.get(path) or path.read_text(encoding="utf-8")
        whole = [e for e in edits if e.span.path == path and whole_file_text(e) is not None]
        if whole:
            out[path] = whole_file_text(whole[0]) or ""
            continue
        lines = text.split("\n")
        for e in sorted((e for e in edits if e.span.path == path), key=lambda e: (e.span.line, e.span.start), reverse=True):
            line = lines[e.span.line - 1]
            lines[e.span.line - 1] = line[: e.span.start] + e.text + line[e.span.end :]
        out[path] = "\n".join(lines)
    return out


def test_rename_a_heading_anchor_keeps_every_reference_working(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "references" / "project", root)
    guide = (root / "docs" / "guide.md").resolve()
    ctx, before = check_texts(root, {})
    nav = Navigator(ctx)
    found = rename.rename_target(nav, guide, 10, 4)  # the heading 参照の種類
    assert found is not None
    edits = rename.rename(nav, found, "kinds")
    texts = _apply({}, edits)
    assert "(kinds)=" in texts[guide] and "(#kinds)" in texts[guide]
    _ctx, after = check_texts(root, texts)
    assert [d.message for d in after] == [d.message for d in before]


@pytest.mark.parametrize("name", ["title_mismatch", "unindexed_doc", "broken_anchor", "missing_doc", "unknown_tag"])
def test_quick_fixes_remove_their_drift(tmp_path: Path, name: str) -> None:
    root = tmp_path / name
    shutil.copytree(FIXTURES / "check" / name, root)
    ctx, found = check_texts(root, {})
    nav = Navigator(ctx)
    from mdmark.queries.navigation.places import drift_span

    fixed = 0
    for drift in found:
        path = (root / drift.file).resolve()
        for fix in fixes.fixes(nav, drift, drift_span(nav, path, drift)):
            texts = _apply({}, list(fix.edits))
            _ctx, after = check_texts(root, texts)
            assert drift not in after, (fix.title, drift)
            fixed += 1
    assert fixed, [d.message for d in found]


def test_index_completion_and_workspace_symbols_match_find_docs() -> None:
    from mdmark.queries.find import find_docs

    root = (FIXTURES.parent / "roots" / "test-glossary").resolve()
    ctx, _ = check_texts(root, {})
    nav = Navigator(ctx)
    index = root / "index.yaml"
    text = index.read_text(encoding="utf-8") + "    related:\n      - {to: \n"
    lines = text.splitlines()
    got = completion.complete(nav, index, len(lines), len(lines[-1]), text=text)
    assert {c.label for c in got} == {"top", "words"}
    docs = {s.name for s in symbols.workspace_symbols(nav, "用語") if s.kind == "doc"}
    found = find_docs(root, text="用語", format="json")
    assert isinstance(found, dict)
    assert docs == {d["title"] for d in found["docs"]}
