"""East Asian line breaks (mdmark.host.linebreaks): golden fragments for both sides of the rule, in
export, in build and, as an option, in the Sphinx extension."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REGEN

from html_helpers import FIXTURES, Case, article, normalise, read_cases, write_cases
from mdmark.builders.build import build_site
from mdmark.builders.export import export_html
from mdmark.host.linebreaks import joins

LINEBREAKS = FIXTURES / "linebreaks.md"
CASES = read_cases(LINEBREAKS)
_ACTUAL: dict[str, str] = {}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("linebreaks")
    yield root
    if REGEN and len(_ACTUAL) == len(CASES):
        write_cases(LINEBREAKS, [Case(c.name, c.source, _ACTUAL[c.name]) for c in CASES])


@pytest.mark.parametrize("case", CASES, ids=[c.name.replace(" ", "-") for c in CASES])
def test_export_golden(case: Case, folder: Path) -> None:
    doc = folder / f"case{CASES.index(case):02d}.md"
    doc.write_text(case.source, encoding="utf-8")
    result = export_html(folder, doc.name)
    assert result["warnings"] == []
    actual = normalise(article(Path(result["out"]).read_text(encoding="utf-8")))
    _ACTUAL[case.name] = actual
    if not REGEN:
        assert actual == case.expected.strip()
    # Each case says which side of the rule it is on.
    assert ("\n" in _text_of_paragraphs(actual)) is case.name.startswith("keeps")


def _text_of_paragraphs(fragment: str) -> str:
    import re

    return "".join(re.findall(r"<p>(.*?)</p>", fragment, re.DOTALL))


def test_build_joins_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text(
        'build:\n  title: 改行\n  include: ["docs/*.md"]\n  out: dist/site.html\n', encoding="utf-8"
    )
    (tmp_path / "docs").mkdir()
    joined = next(c for c in CASES if c.name == "joins a break between two Japanese sentences")
    kept = next(c for c in CASES if c.name == "keeps a break between Japanese and Latin")
    (tmp_path / "docs" / "a.md").write_text("# 文書\n\n" + joined.source + "\n" + kept.source, encoding="utf-8")
    result = build_site(tmp_path)
    page = Path(result["out"]).read_text(encoding="utf-8")
    assert "<p>サービスです。全体は三つに分かれる。</p>" in page
    assert "<p>日本語の後に\nEnglish words,\nthen 日本語の前に\nEnglish.</p>" in page


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("す", "全", True),
        ("。", "次", True),
        ("｡", "ｶ", False),  # halfwidth katakana is not wide: a space stays before it
        ("｡", "次", True),
        ("！", "そ", True),
        ("語", "E", False),
        ("s", "日", False),
        (".", "次", False),
        ("", "次", False),
        ("語", "", False),
    ],
)
def test_the_rule(before: str, after: str, expected: bool) -> None:
    assert joins(before, after) is expected


SPHINX_DOC = "# 文書\n\nサービスです。\n全体は三つ。\n\nEnglish words\nwrap here.\n\n```text\nコードの\n中\n```\n"


@pytest.mark.parametrize("option", [None, False, True])
def test_sphinx_extension_offers_it_as_an_option(option: bool | None, tmp_path: Path) -> None:
    from sphinx.testing.util import SphinxTestApp

    src = tmp_path / "src"
    src.mkdir()
    conf = 'extensions = ["mdmark.sphinx_ext"]\nexclude_patterns = ["_build"]\n'
    if option is not None:
        conf += f"mdmark_join_east_asian_lines = {option}\n"
    (src / "conf.py").write_text(conf, encoding="utf-8")
    (src / "index.md").write_text(SPHINX_DOC, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "_build")
    try:
        app.build()
    finally:
        app.cleanup()
    html = (tmp_path / "_build" / "html" / "index.html").read_text(encoding="utf-8")
    expected = "サービスです。全体は三つ。" if option else "サービスです。\n全体は三つ。"
    assert f"<p>{expected}</p>" in html
    assert "<p>English words\nwrap here.</p>" in html
    assert "コードの\n中" in html


@pytest.mark.parametrize(("conf_value", "expected"), [(None, True), (True, True), (False, False)])
def test_enable_turns_it_on_unless_conf_py_says_no(conf_value: bool | None, expected: bool, tmp_path: Path) -> None:
    """What mdmark's reading application does: on, except where a project's conf.py turned it off."""
    from sphinx.testing.util import SphinxTestApp

    from mdmark.host.linebreaks import CONFIG_NAME, enable

    src = tmp_path / "src"
    src.mkdir()
    conf = 'extensions = ["mdmark.sphinx_ext"]\n' if conf_value is not None else ""
    if conf_value is not None:
        conf += f"{CONFIG_NAME} = {conf_value}\n"
    (src / "conf.py").write_text(conf, encoding="utf-8")
    app = SphinxTestApp("html", srcdir=src, builddir=tmp_path / "_build")
    try:
        enable(app)
        assert getattr(app.config, CONFIG_NAME) is expected
    finally:
        app.cleanup()
