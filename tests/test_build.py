"""mdmark build / build_site: order, navigation, unique ids, cross-document links, warnings, refusals."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from html_helpers import page_problems, png
from mdmark.builders.build import build_site
from mdmark.core.errors import MdmarkError
from mdmark.html.links import doc_id
from mdmark.project.main import Project

CONFIG = """\
index: index.yaml
build:
  title: 設計文書集
  include: ["docs/**/*.md"]
  exclude: ["docs/drafts/**"]
  out: dist/docs.html
html:
  lang: ja
  css: [extra.css]
"""

INDEX = """\
docs:
  - {id: b, path: docs/b.md, title: 文書 B}
  - {id: a, path: docs/a.md, title: 文書 A}
"""

SAME_PARTS = """
## 共通の節

脚注[^1]。

::::{tab-set}
:::{tab-item} 一
タブの中身 __NAME__
:::
:::{tab-item} 二
二つ目 __NAME__
:::
::::

[^1]: 脚注 __NAME__。
"""

DOCS = {
    "docs/a.md": "# 文書 A\n\n[B へ](b.md)、[B の詳細](b.md#b-の詳細)、[C のラベル](c.md#c-label)、{ref}`c-label`。\n\n"
    "[無い](missing.md) と [無い節](b.md#無い節)。\n\n::::{grid} 1\n:::{grid-item-card} B のカード\n:link: b\n:link-type: doc\n\n本文\n:::\n::::\n"
    + SAME_PARTS.replace("__NAME__", "A"),
    "docs/b.md": "# 文書 B\n\n## B の詳細\n\n[A へ戻る](a.md#共通の節)。\n\n![p](pic.png)\n" + SAME_PARTS.replace("__NAME__", "B"),
    "docs/c.md": "# 文書 C\n\n(c-label)=\n## C のラベルの節\n\n本文。\n\n```{glossary}\n索引\n  文書の一覧。\n```\n"
    + SAME_PARTS.replace("__NAME__", "C"),
    "docs/sub/d.md": "# 文書 D\n\n[A](../a.md) と [下書き](../drafts/x.md)。{term}`索引` を見る。[](#c-label)\n",
    "docs/drafts/x.md": "# 下書き\n",
}


def make_project(root: Path, config: str = CONFIG) -> Path:
    (root / "mdmark.config.yaml").write_text(config, encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "extra.css").write_text(".extra-rule { color: teal; }\n", encoding="utf-8")
    for rel, text in DOCS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "docs" / "pic.png").write_bytes(png())
    return root


class _Tree(HTMLParser):
    """Which document section each id and each local link sits in."""

    VOID = {"input", "img", "br", "hr", "meta", "link", "source", "col", "wbr", "area", "base", "embed", "track"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str | None] = []
        self.doc_of_id: dict[str, str | None] = {}
        self.links: list[tuple[str | None, str, str]] = []  # (doc, href, text)
        self._open_link: list[tuple[str | None, str]] = []
        self._text: list[str] = []

    def _doc(self) -> str | None:
        for item in reversed(self.stack):
            if item is not None:
                return item
        return None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        doc = found.get("data-source") if tag == "section" and "mdmark-doc" in (found.get("class") or "") else None
        if tag not in self.VOID:
            self.stack.append(doc)
        if found.get("id"):
            self.doc_of_id[str(found["id"])] = doc or self._doc()
        if tag == "a":
            self._open_link.append((self._doc(), str(found.get("href") or "")))
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if tag == "a" and self._open_link:
            doc, href = self._open_link.pop()
            self.links.append((doc, href, "".join(self._text).strip()))
        if self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self._text.append(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, str]:
    root = make_project(tmp_path_factory.mktemp("build"))
    result = build_site(root)
    return root, result, Path(result["out"]).read_text(encoding="utf-8")


def test_result(built: tuple[Path, dict, str]) -> None:
    root, result, _ = built
    assert result["out"] == str((root / "dist" / "docs.html").resolve())
    assert result["docs"] == 4


def test_order_index_then_path(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    sources = re.findall(r'<section class="mdmark-doc" id="[^"]*" data-source="([^"]*)"', page)
    assert sources == ["docs/b.md", "docs/a.md", "docs/c.md", "docs/sub/d.md"]


def test_page_invariants(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    assert page_problems(page) == []
    # the same headings, footnotes and tab sets in three documents still give unique ids
    assert page.count("タブの中身") == 3


def test_tab_groups_are_per_document(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    names = re.findall(r'<input[^>]*type="radio"[^>]*>', page)
    groups = {re.search(r'name="([^"]*)"', tag).group(1) for tag in names}  # type: ignore[union-attr]
    assert len(groups) == 3


def test_navigation_reaches_every_document(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    nav = page[page.index('<nav id="mdmark-nav"') : page.index("</nav>")]
    for docname, title in [("docs/b", "文書 B"), ("docs/a", "文書 A"), ("docs/c", "文書 C"), ("docs/sub/d", "文書 D")]:
        assert f'href="#{doc_id(docname)}">{title}</a>' in nav
    assert "B の詳細" in nav and "C のラベルの節" in nav


def test_cross_document_links_land_in_the_right_document(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    tree = _Tree()
    tree.feed(page)
    landed = {}
    for doc, href, text in tree.links:
        if doc and href.startswith("#"):
            target = href[1:]
            assert target in tree.doc_of_id, f"{href} has no target"
            landed[(doc, text)] = (tree.doc_of_id[target], target)
    assert landed[("docs/a.md", "B へ")] == ("docs/b.md", doc_id("docs/b"))
    assert landed[("docs/a.md", "B の詳細")][0] == "docs/b.md"
    assert landed[("docs/a.md", "C のラベル")][0] == "docs/c.md"
    assert landed[("docs/a.md", "C のラベルの節")][0] == "docs/c.md"  # {ref} takes the section title
    assert landed[("docs/b.md", "A へ戻る")] == ("docs/a.md", f"{doc_id('docs/a')}:共通の節")
    assert landed[("docs/sub/d.md", "A")] == ("docs/a.md", doc_id("docs/a"))
    assert landed[("docs/a.md", "b")][0] == "docs/b.md"  # the card's stretched link
    assert landed[("docs/sub/d.md", "索引")][0] == "docs/c.md"  # a glossary term in another document
    assert landed[("docs/sub/d.md", "C のラベルの節")][0] == "docs/c.md"  # [](#label) of another document


def test_broken_references_are_warnings_with_file_and_line(built: tuple[Path, dict, str]) -> None:
    project, result, page = built
    assert result["warnings"] == [
        "docs/a.md:5: リンク先のファイル `missing.md` が無いので、パスを直すか、リンクを消してください。",
        "docs/a.md:5: リンク `b.md#無い節` の `無い節` に当たる見出し・ラベルが `docs/b.md` に無いので、見出しかラベルを足すか、リンクを直してください。",
        "docs/sub/d.md:3: リンク先の文書 `../drafts/x.md` は build の include に当たらず 1 枚に入っていないので、include に加えてください。",
    ]
    assert '<span class="reference internal mdmark-unresolved"><span class="xref myst">無い</span></span>' in page  # the text stays, without a link
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", page) == []  # never an <a> that goes nowhere
    # Every reference warning of the build is a check drift at the same file and line, same sentence.
    from mdmark.check.collect import check

    drifts = {f"{i['file']}:{i['where']}: {i['message']}" for i in check(project)["issues"]}
    references = [w for w in result["warnings"] if "include に加えて" not in w]
    assert all(w in drifts for w in references)


def test_title_lang_css_and_images(built: tuple[Path, dict, str]) -> None:
    _, _, page = built
    assert "<title>設計文書集</title>" in page
    assert '<html lang="ja">' in page
    assert ".extra-rule { color: teal; }" in page
    assert 'src="data:image/png;base64,' in page


def test_rebuild_with_one_change_renders_one_document(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    build_site(root)
    pipeline = Project.open(root).pipeline
    before = pipeline.parse_count
    doc = root / "docs" / "c.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\n追記した段落。\n", encoding="utf-8")
    seen: list[tuple[int, int]] = []
    result = build_site(root, progress=lambda done, total: seen.append((done, total)))
    # Three documents come from the cache; the changed one is parsed and rendered in one trip to a
    # worker (its facts come back with its fragment), never parsed here.
    assert seen == [(3, 4), (4, 4)]
    assert pipeline.parse_count == before
    assert "追記した段落。" in Path(result["out"]).read_text(encoding="utf-8")


def _fresh_build(root: Path, where: Path) -> str:
    """The page a cold ``mdmark build`` (a new process, a copy of the project with no cache) writes."""
    import shutil

    from conftest import run_mdmark

    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, where, ignore=shutil.ignore_patterns(".mdmark_cache", "dist"))
    done = run_mdmark("build", cwd=where, env={"XDG_CACHE_HOME": str(where.parent / f"{where.name}-cache")})
    assert done.returncode == 0, done.stderr
    return (where / "dist" / "docs.html").read_text(encoding="utf-8")


def _replace_once(path: Path, old: str, new: str) -> None:
    """An edit of a document as a writer saves it: ``old`` must be there, its first copy replaced."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_rebuild_keeps_sections_and_equals_a_cold_build(tmp_path: Path) -> None:
    """A rebuild after each edit makes only the sections whose inputs changed, and writes the very
    bytes a cold build of the edited project writes: a paragraph appended, a heading another
    document links to renamed (that document's section must change too) and named back, a label
    added that another document refers to."""
    (tmp_path / "proj").mkdir()
    root = make_project(tmp_path / "proj")
    build_site(root)
    kept = next(iter(Project.open(root).workspace.page_sections.values()))

    def edit(rel: str, old: str, new: str) -> None:
        _replace_once(root / rel, old, new)

    steps = [
        lambda: edit("docs/c.md", "本文。", "本文。\n\n追記した段落。"),
        lambda: edit("docs/b.md", "## B の詳細", "## B の詳しい話"),
        lambda: edit("docs/b.md", "## B の詳しい話", "## B の詳細"),
        lambda: edit("docs/sub/d.md", "[A](../a.md)", "[A](../a.md)、{ref}`d-new`"),
        lambda: edit("docs/c.md", "## C のラベルの節", "(d-new)=\n## 新しいラベルの節\n\n## C のラベルの節"),
    ]
    made = []
    for number, step in enumerate(steps):
        step()
        result = build_site(root)
        made.append(kept.made)
        rebuilt = Path(result["out"]).read_text(encoding="utf-8")
        assert rebuilt == _fresh_build(root, tmp_path / f"fresh{number}"), f"step {number}"
    # c's paragraph: c and a (it links into c); b's heading, twice: b and a (it links to that
    # heading); d's new reference: d alone (no document reads d); a new label: every section (labels
    # are the project's, any reference may land on it).
    assert made == [2, 2, 2, 1, 4]
    assert '<span class="xref std std-ref">新しいラベルの節</span>' in rebuilt


def test_a_rebuild_after_files_come_and_go_equals_a_cold_build(tmp_path: Path) -> None:
    """What a rebuild keeps from paths alone (the page's files, the model's documents, the index's
    files) and the kept navigation and relation drawing follow a document added, linked to, listed in
    the index, retitled and removed: each rebuild writes the bytes of a cold build."""
    (tmp_path / "proj").mkdir()
    root = make_project(tmp_path / "proj")
    build_site(root)

    def write(rel: str, text: str) -> None:
        (root / rel).write_text(text, encoding="utf-8")

    steps = [
        lambda: write("docs/sub/e.md", "# 文書 E\n\n## E の節\n\n[B へ](../b.md)。\n"),
        lambda: write("docs/a.md", DOCS["docs/a.md"] + "\n[E へ](sub/e.md#e-の節)。\n"),
        lambda: write("index.yaml", INDEX + "  - {id: e, path: docs/sub/e.md, title: 文書 E, related: [a]}\n"),
        lambda: write("docs/sub/e.md", "# 文書 E の新しい題\n\n## E の別の節\n\n本文。\n"),
        lambda: (root / "docs/sub/e.md").unlink(),
    ]
    for number, step in enumerate(steps):
        step()
        result = build_site(root)
        rebuilt = Path(result["out"]).read_text(encoding="utf-8")
        assert rebuilt == _fresh_build(root, tmp_path / f"fresh{number}"), f"step {number}"


ROOT_DOCS = {
    "index.md": "# 手引き\n\n```{toctree}\n:maxdepth: 2\n\nguide/one\nguide/two\n```\n",
    "guide/one.md": "# 一の題\n\n## 一の節\n\n本文。\n",
    "guide/two.md": "# 二の題\n\n[一へ](one.md#一の節)、[どこか](appndix)。\n",
    "guide/three.md": "# 三の題\n\n[どこか](appndix)。\n",
}


def _fresh_build_warnings(root: Path, where: Path) -> tuple[str, list[str]]:
    """:func:`_fresh_build` of a project whose page is ``dist/docs.html``, and the warnings it printed."""
    import shutil

    from conftest import run_mdmark

    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(root, where, ignore=shutil.ignore_patterns(".mdmark_cache", "dist"))
    done = run_mdmark("build", cwd=where, env={"XDG_CACHE_HOME": str(where.parent / f"{where.name}-cache")})
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith(("index.md:", "guide/"))]
    return (where / "dist" / "docs.html").read_text(encoding="utf-8"), said


def test_a_rebuild_keeps_what_a_save_leaves_unread(tmp_path: Path) -> None:
    """A section depends on what it read of other documents, not on their content: a paragraph
    added to a listed document leaves the root toctree's section, the section linking to it and the
    one whose broken link has a close-name hint over every heading as they were; its title or a
    heading changed remakes them (a heading's slug is in the hint's pool); a heading whose slug is
    close to the broken link's name changes the hint. Each rebuild equals a cold build, warnings too."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "mdmark.config.yaml").write_text('build:\n  include: ["**/*.md"]\n  out: dist/docs.html\n', encoding="utf-8")
    for rel, text in ROOT_DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    build_site(root)
    kept = next(iter(Project.open(root).workspace.page_sections.values()))

    def edit(rel: str, old: str, new: str) -> None:
        _replace_once(root / rel, old, new)

    steps = [
        # Read by nobody: one.md alone.
        lambda: edit("guide/one.md", "本文。", "本文。\n\n足した段落。"),
        # Its title: the root's toctree shows it, two.md's link reads it.
        lambda: edit("guide/one.md", "# 一の題", "# 一の新しい題"),
        # A heading two.md links to: the root's toctree lists it (maxdepth 2), two.md links to it.
        lambda: edit("guide/one.md", "## 一の節", "## 一の別の節"),
        # A heading whose slug is close to two.md's broken name: two.md's hint names it.
        lambda: edit("guide/one.md", "足した段落。", "足した段落。\n\n## appendix"),
    ]
    made: list[set[str]] = []
    for number, step in enumerate(steps):
        before = {name: section for name, section in kept.finished.items()}
        step()
        result = build_site(root)
        made.append({name for name, section in kept.finished.items() if before.get(name) is not section})
        page, said = _fresh_build_warnings(root, tmp_path / f"fresh{number}")
        assert Path(result["out"]).read_text(encoding="utf-8") == page, f"step {number}"
        assert result["warnings"] == said, f"step {number}"
    every = {"guide/one", "guide/two", "guide/three", "index"}
    assert made == [{"guide/one"}, every, every, every]
    assert any("`appendix`" in warning for warning in said)


def test_many_documents_parallel(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text(
        "build:\n  include: [\"d/*.md\"]\n  out: out.html\n", encoding="utf-8"
    )
    (tmp_path / "d").mkdir()
    for i in range(30):
        (tmp_path / "d" / f"n{i:02d}.md").write_text(
            f"# 文書 {i}\n\n## 節\n\n[次](n{(i + 1) % 30:02d}.md#節)\n\n::::{{tab-set}}\n:::{{tab-item}} t\n{i}\n:::\n::::\n",
            encoding="utf-8",
        )
    seen: list[tuple[int, int]] = []
    result = build_site(tmp_path, progress=lambda done, total: seen.append((done, total)))
    assert result["docs"] == 30 and result["warnings"] == []
    assert seen[-1] == (30, 30)
    page = Path(result["out"]).read_text(encoding="utf-8")
    assert page_problems(page) == []
    assert f'href="#{doc_id("d/n01")}:節"' in page


# -- refusals ---------------------------------------------------------------------------------------


def _refused(root: Path, config: str) -> str:
    (root / "mdmark.config.yaml").write_text(config, encoding="utf-8")
    with pytest.raises(MdmarkError) as info:
        build_site(root)
    assert info.value.exit_code == 1
    assert "\n" not in info.value.message and info.value.message.endswith("。")
    assert not (root / "dist" / "docs.html").exists()
    return info.value.message


def test_no_build_section(tmp_path: Path) -> None:
    make_project(tmp_path)
    assert "build" in _refused(tmp_path, "index: index.yaml\n")


def test_zero_matches(tmp_path: Path) -> None:
    make_project(tmp_path)
    message = _refused(tmp_path, 'build:\n  include: ["nothing/**/*.md"]\n  out: dist/docs.html\n')
    assert "`nothing/**/*.md`" in message


def test_unwritable_output(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "dist").write_text("a file where the folder should be\n", encoding="utf-8")
    (tmp_path / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    with pytest.raises(MdmarkError) as info:
        build_site(tmp_path)
    assert info.value.exit_code == 1 and "dist/docs.html" in info.value.message
    assert (tmp_path / "dist").read_text(encoding="utf-8") == "a file where the folder should be\n"


def test_output_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    make_project(root)
    _refused(root, 'build:\n  include: ["docs/**/*.md"]\n  out: ../out.html\n')
    assert not (tmp_path / "out.html").exists()


def test_output_that_is_not_html(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "keep.py").write_text("x = 1\n", encoding="utf-8")
    assert "`keep.py`" in _refused(tmp_path, 'build:\n  include: ["docs/**/*.md"]\n  out: keep.py\n')
    assert (tmp_path / "keep.py").read_text(encoding="utf-8") == "x = 1\n"


def test_unreadable_document(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "docs" / "bad.md").write_bytes(b"# \x82\xa0\n")
    message = _refused(tmp_path, CONFIG)
    assert "docs/bad.md" in message and "UTF-8" in message


def test_cli(tmp_path: Path, mdmark_cli) -> None:
    make_project(tmp_path)
    done = mdmark_cli("build", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4 件の文書" in done.stdout
    assert done.stderr.splitlines()[0].startswith("docs/a.md:5: リンク先のファイル `missing.md`")
    assert "\r" not in done.stderr  # no progress when stderr is not a terminal
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    done = mdmark_cli("build", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.count("\n") == 1


def test_changed_image_is_not_served_from_the_cache(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    first = Path(build_site(root)["out"]).read_text(encoding="utf-8")
    (root / "docs" / "pic.png").write_bytes(png(8, 2))
    second = Path(build_site(root)["out"]).read_text(encoding="utf-8")
    pictures = lambda page: re.findall(r'src="(data:image/png;base64,[^"]*)"', page)  # noqa: E731
    assert pictures(first) != pictures(second)


def test_progress_on_a_terminal(tmp_path: Path) -> None:
    from conftest import mdmark_on_a_terminal

    make_project(tmp_path)
    code, _, text = mdmark_on_a_terminal("build", cwd=tmp_path)
    assert code == 0
    assert "\r文書を読んで書き出しています 4/4" in text
    assert "docs/a.md:5: リンク先のファイル `missing.md`" in text


def test_the_guide_builds_into_one_clean_page(tmp_path: Path) -> None:
    """The packaged guide (its notation page lists every element) builds with no warning and a clean page."""
    import shutil

    import mdmark

    guide = Path(mdmark.__file__).parent / "guide"
    if not (guide / "mdmark.config.yaml").is_file():
        pytest.skip("the guide has no mdmark.config.yaml")
    shutil.copytree(guide, tmp_path / "guide", ignore=shutil.ignore_patterns("__pycache__", "dist", ".mdmark_cache"))
    result = build_site(tmp_path / "guide")
    assert result["warnings"] == []
    page = Path(result["out"]).read_text(encoding="utf-8")
    assert page_problems(page) == []
    assert result["docs"] >= 12


def test_the_streamed_page_equals_the_page_given_whole(tmp_path: Path) -> None:
    """The page is written in pieces (never one string); its bytes are those of the whole text a
    ``write`` callback (``mdmark preview``) receives, and those of the page given the body joined."""
    from mdmark.html.page import NavEntry, page_chunks

    root = make_project(tmp_path)
    result = build_site(root)
    served: list[str] = []
    build_site(root, write=lambda out, text, shown: served.append(text))
    assert Path(result["out"]).read_bytes() == served[0].encode("utf-8")

    parts = ["<p>一</p>\n", "", "<p>二 &amp; 三</p>\n"]
    given = {"mode": "build", "lang": "ja", "title": "題 <&>", "css": "p{}", "nav": [NavEntry("一", "#a")], "data": "<i>d</i>"}
    chunks = list(page_chunks(body=parts, scripts=["void 0;"], **given))  # type: ignore[arg-type]
    assert "".join(chunks) == "".join(page_chunks(body="".join(parts), scripts=["void 0;"], **given))  # type: ignore[arg-type]
    assert "mdmark-body-" not in "".join(chunks)


def test_a_write_failing_midway_leaves_the_old_page_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mdmark.util.files
    from mdmark.util.files import atomic_write_chunks

    root = make_project(tmp_path)
    out = Path(build_site(root)["out"])
    old = out.read_bytes()
    (root / "docs" / "a.md").write_text("# 文書 A\n\n書き換えた。\n", encoding="utf-8")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(mdmark.util.files.os, "replace", broken_replace)
        with pytest.raises(MdmarkError) as info:
            build_site(root)
    assert "dist/docs.html" in info.value.message and "No space left on device" in info.value.message
    assert out.read_bytes() == old
    assert [p.name for p in out.parent.iterdir()] == [out.name]

    def pieces() -> Iterator[str]:
        yield "<!DOCTYPE html>\n"
        raise RuntimeError("the page could not be made")

    with pytest.raises(RuntimeError):
        atomic_write_chunks(out, pieces())
    assert out.read_bytes() == old
    assert [p.name for p in out.parent.iterdir()] == [out.name]
