"""The language server's answers where a user expects what marksman gives: go to definition on a
broken link finds nothing (not the top of the file it is written in), find references on a
document's title heading lists the links to the document. Asked of the query modules the
handlers call, over a real check run of a small project."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmark.check.collect import check_texts
from mdmark.queries.navigation.definition import definition
from mdmark.queries.navigation.navigator import Navigator
from mdmark.queries.navigation.references import references


#: The small project: a broken link and a link in a.md, a link to a's title in b.md, {doc} in c.md.
FILES = {
    "mdmark.config.yaml": "index: index.yaml\n",
    "index.yaml": (
        "docs:\n"
        "  - id: a\n    path: docs/a.md\n    title: 文書 A\n"
        "  - id: b\n    path: docs/b.md\n    title: 文書 B\n    related:\n      - to: a\n        type: references\n"
        "        when: A を変えたとき\n"
        "  - id: c\n    path: docs/c.md\n    title: 文書 C\n"
    ),
    "docs/a.md": "# 文書 A\n\n[壊れた](nowhere.md) と [B](b.md) を見る。\n",
    "docs/b.md": "# 文書 B\n\n本文。\n\n## 節\n\n[A の題](a.md#文書-a)。\n",
    "docs/c.md": "# 文書 C\n\n{doc}`a` と {doc}`b`。\n",
}


@pytest.fixture
def nav(tmp_path: Path) -> Navigator:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    ctx, _ = check_texts(tmp_path, {})
    return Navigator(ctx)


def test_definition_on_a_broken_link_is_nothing(nav: Navigator) -> None:
    a = (nav.srcdir / "docs" / "a.md").resolve()
    line = "[壊れた](nowhere.md) と [B](b.md) を見る。"
    assert nav.at(a, 3, line.index("nowhere") + 2) is None
    found = nav.at(a, 3, line.index("b.md") + 1)
    assert found is not None
    assert [(s.path.name, s.line) for s in definition(nav, found)] == [("b.md", 1)]


def test_references_on_a_title_heading_list_the_links_to_the_document(nav: Navigator) -> None:
    a = (nav.srcdir / "docs" / "a.md").resolve()
    found = nav.at(a, 1, 3)
    assert found is not None and found.thing.kind == "anchor"
    where = {(s.path.name, s.line) for s in references(nav, found, include_definition=False)}
    # {doc}`a` in c.md, the link to its title's anchor in b.md, and the index's related entry
    assert {("c.md", 3), ("b.md", 7), ("index.yaml", 9)} <= where
    # a section heading stays the section's own: nothing links to it
    b = (nav.srcdir / "docs" / "b.md").resolve()
    section = nav.at(b, 5, 4)
    assert section is not None and references(nav, section, include_definition=False) == []


def test_a_term_of_the_index_resolves_as_check_resolves_it(tmp_path: Path) -> None:
    """``{term}`` of a term (or alias) the index defines and no document's glossary does: no drift
    from check (the Sphinx extension's glossary page holds it), text in the page mdmark writes, and
    go to definition lands on the index's entry. A term nobody defines stays a drift."""
    from conftest import run_mdmark

    (tmp_path / "docs").mkdir()
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(
        "docs:\n  - id: a\n    path: docs/a.md\n    title: 文書 A\n"
        "terms:\n  - id: token\n    term: トークン\n    aliases: [token]\n    definition: 認証に使う文字列。\n",
        encoding="utf-8",
    )
    text = "# 文書 A\n\n{term}`トークン` と {term}`Token` と {term}`無い語`。\n"
    (tmp_path / "docs" / "a.md").write_text(text, encoding="utf-8")
    done = run_mdmark("check", cwd=tmp_path)
    assert done.stdout.splitlines() == [
        "docs/a.md:3: broken_anchor: 用語 `無い語` が用語集（glossary）に無いので、用語の綴りを直すか、glossary に加えてください。"
    ]
    exported = run_mdmark("export", "docs/a.md", "-o", "a.html", cwd=tmp_path)
    assert exported.returncode == 0 and "トークン" not in exported.stderr and "Token" not in exported.stderr
    ctx, _ = check_texts(tmp_path, {})
    nav = Navigator(ctx)
    a = (tmp_path / "docs" / "a.md").resolve()
    line = text.splitlines()[2]
    for written in ("トークン", "Token"):
        found = nav.at(a, 3, line.index(written) + 1)
        assert found is not None and found.thing.kind == "term", written
        assert [(s.path.name, s.line) for s in definition(nav, found)] == [("index.yaml", 7)], written
