"""The page of a Sphinx project (issue 33): an rST root orders it and its rST documents are in it,
links into them land and are said with ``.rst``; the fixed labels follow conf.py's ``language``;
amsmath environments are MathML; an ``{eq}`` link lands on the equation's id."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from conftest import trust_project
from html_helpers import page_problems
from mdmark.builders.build import build_site
from mdmark.builders.export import export_html

CONFIG = """\
build:
  title: rST root
  include: ["docs/**/*.md"]
  out: dist/site.html
sphinx:
  conf: docs/conf.py
"""

CONF = """\
extensions = ["myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_enable_extensions = ["amsmath", "dollarmath"]
language = "en"
"""

INDEX_RST = """\
Project
=======

Intro with a :ref:`link into Markdown <guide-label>` and one :doc:`into rST <reference>`.

Overview
--------

.. note::

   A note in rST.

.. toctree::
   :caption: Getting started

   guide/setup
   reference

.. toctree::
   :caption: More

   guide/untitled
"""

SETUP_MD = """\
(guide-label)=
# Setup

Back to the [overview](../index.rst#overview) and the [reference](../reference.rst).

$$ a = b $$ (eqn:best)

See {eq}`eqn:best`.

\\begin{gather*}
a_1=b_1+c_1\\\\
a_2=b_2+c_2-d_2+e_2
\\end{gather*}

\\begin{align}
a_{11}& =b_{11}& a_{12}& =b_{12}\\\\
a_{21}& =b_{21}& a_{22}& =b_{22}+c_{22}
\\end{align}

```{versionadded} 1.2
New here.
```
"""

REFERENCE_RST = """\
Reference
=========

Details
-------

.. versionchanged:: 2.0
   Changed.

Text with :ref:`the setup <guide-label>`.
"""

UNTITLED_MD = "Only a paragraph, no heading.\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rst-root")
    files = {
        "mdmark.config.yaml": CONFIG,
        "docs/conf.py": CONF,
        "docs/index.rst": INDEX_RST,
        "docs/reference.rst": REFERENCE_RST,
        "docs/guide/setup.md": SETUP_MD,
        "docs/guide/untitled.md": UNTITLED_MD,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    trust_project(root / "mdmark.config.yaml")
    return root


@pytest.fixture(scope="module")
def built(project: Path) -> tuple[str, list[str]]:
    result = build_site(project)
    return Path(result["out"]).read_text(encoding="utf-8"), result["warnings"]


def test_the_rst_root_orders_the_page_and_its_rst_documents_are_in_it(built: tuple[str, list[str]]) -> None:
    page, warnings = built
    sections = re.findall(r'<section class="mdmark-doc" id="([^"]*)"', page)
    assert sections == ["index", "guide/setup", "reference", "guide/untitled"]
    assert '<span class="caption-text">Getting started</span>' in page
    assert '<span class="caption-text">More</span>' in page
    assert page_problems(page) == []
    # What sphinx-build says too: MyST finds no anchor of an rST document (myst.xref_missing), and
    # a toctree entry without a title gets no link (toc.no_title) — named with their own suffixes.
    assert [w.split(":", 2)[:2] for w in warnings] == [["docs/index.rst", "19"], ["docs/guide/setup.md", "4"]]
    assert "`../index.rst#overview`" in warnings[1] and "index.md" not in warnings[1]


def test_links_into_rst_documents_land(built: tuple[str, list[str]]) -> None:
    page, _warnings = built
    ids = {html.unescape(i) for i in re.findall(r'\sid="([^"]*)"', page)}
    hrefs = [html.unescape(h) for h in re.findall(r'\shref="#([^"]*)"', page)]
    assert hrefs and all(h in ids for h in hrefs)
    setup = page[page.index('id="guide/setup"') : page.index('id="reference"')]
    # The anchor is not one MyST knows (a warning): the link lands on the document.
    assert re.search(r'<a [^>]*href="#index"[^>]*>.*?overview', setup)
    assert re.search(r'<a [^>]*href="#reference"[^>]*>.*?reference', setup)
    # rST's :ref: into a Markdown document and :doc: into an rST one
    index = page[page.index('id="index"') : page.index('id="guide/setup"')]
    assert re.search(r'href="#guide/setup:guide-label"', index)
    assert re.search(r'<a [^>]*href="#reference"', index)


def test_a_broken_link_into_an_rst_document_is_said_with_its_suffix(project: Path, tmp_path: Path) -> None:
    (project / "docs" / "guide" / "broken.md").write_text("# Broken\n\n[gone](../index.rst#nowhere)\n", encoding="utf-8")
    try:
        result = export_html(project, "docs/guide/broken.md", out=str(tmp_path / "broken.html"), confined=False)
    finally:
        (project / "docs" / "guide" / "broken.md").unlink()
    assert any("`../index.rst#nowhere`" in w for w in result["warnings"]), result["warnings"]
    assert not any("index.md" in w for w in result["warnings"])


def test_labels_follow_the_projects_language(built: tuple[str, list[str]]) -> None:
    page, _warnings = built
    assert '<html lang="en">' in page
    assert '<p class="admonition-title">Note</p>' in page
    assert "注釈" not in page and "警告" not in page
    assert "Added in version 1.2: " in page and "Changed in version 2.0: " in page
    assert 'title="Link to this heading"' in page


def test_amsmath_is_mathml_and_an_eq_link_lands_on_its_equation(built: tuple[str, list[str]]) -> None:
    page, warnings = built
    setup = page[page.index('id="guide/setup"') : page.index('id="reference"')]
    assert "\\begin{gather*}" not in setup and "\\begin{align}" not in setup
    assert setup.count('<mtable class="ams-align"') >= 2
    link = re.search(r'<a [^>]*href="#([^"]*)"[^>]*>\(1\)</a>', setup)
    assert link is not None and link.group(1) == "guide/setup:equation-eqn-best"
    assert 'id="guide/setup:equation-eqn-best"' in setup
    assert not any("数式" in w for w in warnings)


def test_an_untitled_document_is_its_file_name_in_the_navigation(built: tuple[str, list[str]]) -> None:
    page, _warnings = built
    nav = page[page.index('id="mdmark-toc"') : page.index("</nav>", page.index('id="mdmark-toc"'))]
    assert re.search(r'<a href="#guide/untitled">untitled</a>', nav), nav
    assert "no title" not in page
