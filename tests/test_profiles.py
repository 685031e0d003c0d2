"""The read profiles (mdmark.host.profiles): a read without what the facts skip, and the render
that runs what only the fragments need, give the facts and fragments of a full Sphinx read.

Every golden extraction project (tests/fixtures/extract) and every notation case of the export
golden (tests/fixtures/notation.md) is read and rendered twice in this process — with the table,
and with an empty one (every Sphinx transform and listener at read) — and the facts and the HTML
fragments must be byte-identical."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from html_helpers import FIXTURES, png, read_cases

from mdmark.config.main import MarkdownSettings
from mdmark.host import profiles
from mdmark.html.render import render_document
from mdmark.pipeline.pipeline import Pipeline
from mdmark.pipeline.tasks import run_here

EXTRACT = Path(__file__).resolve().parent / "fixtures" / "extract"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for case in sorted(p for p in EXTRACT.iterdir() if p.is_dir()):
        shutil.copytree(case, root / case.name)
    notation = root / "notation"
    notation.mkdir()
    (notation / "other.md").write_text("# 他の文書\n\n## 他の節\n\n本文。\n", encoding="utf-8")
    (notation / "pic.png").write_bytes(png())
    for number, case in enumerate(read_cases(FIXTURES / "notation.md")):
        (notation / f"case{number:02d}.md").write_text(case.source, encoding="utf-8")
    # What the skipped transforms act on: translatable inline nodes (a version change, a button).
    (notation / "translatable.md").write_text(
        "# 版\n\n```{versionadded} 1.2\n足した **機能**。\n```\n\n```{deprecated} 2.0\n古い。\n```\n\n"
        "```{button-ref} other\n:color: primary\n\n他へ **行く**\n```\n\n- [他](other.md)\n- [他の節](other.md#他の節)\n",
        encoding="utf-8",
    )
    return root


def _read_and_render(root: Path) -> dict[str, tuple[str, str]]:
    """Facts (as JSON) and fragment of every document, read and rendered in this process."""
    # Read and render here (as a worker's own pipeline does), so the table patched below is the one that reads.
    pipeline = Pipeline(root, MarkdownSettings(), runner=run_here)
    paths = sorted(root.rglob("*.md"))
    seen: dict[str, tuple[str, str]] = {}
    for path, facts in zip(paths, pipeline.facts_many(paths), strict=True):
        fragment = render_document(pipeline, path, facts, "ja").html if facts.error is None else ""
        seen[path.relative_to(root).as_posix()] = (repr(facts.to_json()), fragment)
    return seen


def test_facts_and_fragments_are_the_same_under_the_profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _project(tmp_path)
    profiled = _read_and_render(root)
    monkeypatch.setattr(profiles, "SKIPS", ())
    full = _read_and_render(root)
    assert len(full) > 40
    assert [name for name in full if full[name][0] != profiled[name][0]] == [], "facts differ"
    assert [name for name in full if full[name][1] != profiled[name][1]] == [], "fragments differ"


def test_the_table_lists_only_sphinx_s_own_work_each_row_registered() -> None:
    """An extension's transforms and listeners always run; a row that names nothing Sphinx has is stale."""
    import tempfile

    for row in profiles.SKIPS:
        assert row.name.startswith("sphinx."), row.name
        assert row.skipped_by in (profiles.BOTH, frozenset({profiles.FACTS})), row.name
    registered: set[str] = set()
    with tempfile.TemporaryDirectory() as folder:
        from mdmark.host.app import _create_app

        app, _info = _create_app(Path(folder), MarkdownSettings(), None, Path(folder) / "work")
        registered |= {f"{t.__module__}.{t.__qualname__}" for t in app.registry.transforms}
    kept = {row.name for row in profiles.SKIPS if row.kind == "transform"} & registered
    assert kept == set(), f"read still runs {kept}"
    assert {t.__qualname__ for t in profiles.render_transforms()} == {
        row.name.rpartition(".")[2] for row in profiles.SKIPS if row.skipped_by == frozenset({profiles.FACTS})
    }
