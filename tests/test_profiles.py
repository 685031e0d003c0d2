"""The read profiles (mdmark.host.profiles): a read without what the facts skip, and the render
that runs what only the fragments need, give the facts and fragments of a full Sphinx read.

Every golden extraction project (tests/fixtures/extract) and every notation case of the export
golden (tests/fixtures/notation.md) is read and rendered twice in this process — with the table,
and with an empty one (every Sphinx transform and listener at read) — and the facts and the HTML
fragments must be byte-identical."""

from __future__ import annotations

import os
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


#: A translated project's documents and their German catalogs (``gettext_compact``: the folder's
#: documents share the folder's catalog), as ``sphinx-intl`` leaves them: the .po and the .mo.
TRANSLATED = {
    "index.md": "# Hello\n\n(sec)=\n## Section one\n\nSome text with **bold**.\n\n- [The section](#sec)\n- [The page](guide/page.md)\n\n```{note}\nA note.\n```\n",
    "guide/page.md": "# A page\n\nIts only paragraph.\n\n| Term | Meaning |\n|---|---|\n| cat | an animal |\n",
}
MESSAGES = {
    "index": {"Hello": "Hallo", "Section one": "Abschnitt eins", "Some text with **bold**.": "Etwas Text mit **fett**.",
              "[The section](#sec)": "[Der Abschnitt](#sec)", "A note.": "Eine Notiz."},
    "guide": {"A page": "Eine Seite", "Its only paragraph.": "Ihr einziger Absatz.", "an animal": "ein Tier"},
}


def _write_catalog(root: Path, domain: str, messages: dict[str, str]) -> None:
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import write_po

    catalog = Catalog(locale="de")
    for source, translated in messages.items():
        catalog.add(source, translated)
    folder = root / "locales" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{domain}.po", "wb") as po:
        write_po(po, catalog)
    with open(folder / f"{domain}.mo", "wb") as mo:
        write_mo(mo, catalog)


def _translated(tmp_path: Path) -> Path:
    root = tmp_path / "translated"
    for rel, text in TRANSLATED.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "conf.py").write_text("extensions = ['myst_parser']\nlanguage = 'de'\nlocale_dirs = ['locales']\n", encoding="utf-8")
    for domain, messages in MESSAGES.items():
        _write_catalog(root, domain, messages)
    return root


def _translated_pipeline(root: Path, cache: Path | None = None) -> Pipeline:
    # A bare digest as the trust: conf.py runs (untrusted, its locale_dirs would not be read).
    return Pipeline(root, MarkdownSettings(), cache, conf=root / "conf.py", trusted="test-trust", runner=run_here)


def _facts_and_fragments(pipeline: Pipeline, root: Path) -> dict[str, tuple[str, str]]:
    paths = sorted(root.rglob("*.md"))
    seen: dict[str, tuple[str, str]] = {}
    for path, facts in zip(paths, pipeline.facts_many(paths), strict=True):
        assert facts.error is None, facts.error
        seen[path.relative_to(root).as_posix()] = (repr(facts.to_json()), render_document(pipeline, path, facts, "de").html)
    return seen


def test_a_translated_project_reads_translated_under_the_profiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``language`` and ``locale_dirs`` set: the facts (titles, headings, text) and the fragments are
    the translation's, so i18n's ``Locale`` is not one the facts' read may skip — and they are the
    same with the table and without it."""
    root = _translated(tmp_path)
    pipeline = _translated_pipeline(root)
    profiled = _facts_and_fragments(pipeline, root)
    # This application reads catalogs, so it keeps i18n's transforms that an untranslated one skips.
    registered = {f"{t.__module__}.{t.__qualname__}" for t in pipeline.app.registry.transforms}
    untranslated = {row.name for row in profiles.SKIPS if row.untranslated_only}
    assert "sphinx.transforms.i18n.Locale" in untranslated and untranslated <= registered
    monkeypatch.setattr(profiles, "SKIPS", ())
    full = _facts_and_fragments(_translated_pipeline(root), root)
    assert profiled == full
    index_facts, index_page = profiled["index.md"]
    assert "'title': 'Hallo'" in index_facts and "Abschnitt eins" in index_facts
    assert "Etwas Text mit <strong>fett</strong>." in index_page and "Eine Notiz." in index_page
    assert "Der Abschnitt" in index_page and "Hello" not in index_page
    page_facts, page_html = profiled["guide/page.md"]
    assert "'title': 'Eine Seite'" in page_facts and "ein Tier" in page_html


def test_an_edited_catalog_reads_the_documents_again(tmp_path: Path) -> None:
    """The catalog is an input of its documents' parse: edited, the next run (and the same
    long-lived reader) reads them again with the new translation, not the cached one."""
    root = _translated(tmp_path)
    cache = tmp_path / "cache"
    pipeline = _translated_pipeline(root, cache)
    assert "'title': 'Hallo'" in _facts_and_fragments(pipeline, root)["index.md"][0]
    deps = pipeline.facts_many([root / "index.md"])[0].deps
    assert [rel for rel, _stamp in deps] == ["locales/de/LC_MESSAGES/index.mo"]
    mo = root / "locales" / "de" / "LC_MESSAGES" / "index.mo"
    for n, title in enumerate(("Guten Tag", "Servus"), start=1):  # the second: after a read that purged the first
        _write_catalog(root, "index", {**MESSAGES["index"], "Hello": title})
        os.utime(mo, (mo.stat().st_atime, mo.stat().st_mtime + 5 * n))  # a later stamp, whatever the clock's grain
        again = _facts_and_fragments(pipeline, root)
        assert f"'title': '{title}'" in again["index.md"][0] and title in again["index.md"][1]
        assert "'title': 'Eine Seite'" in again["guide/page.md"][0]  # the other catalog's documents are kept
    fresh = _facts_and_fragments(_translated_pipeline(root, cache), root)
    assert fresh == again
