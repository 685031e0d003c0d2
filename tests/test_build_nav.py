"""The built page's navigation: golden trees for the toctree rules (``tests/fixtures/html/nav.md``),
and the same tree Sphinx's ``singlehtml`` shows in its sidebar for each of them."""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REGEN
from html_helpers import FIXTURES, Case, page_problems, read_cases, write_cases
from mdmark.builders.build import build_site

NAV = FIXTURES / "nav.md"
CASES = read_cases(NAV)


def _files(source: str) -> dict[str, str]:
    files: dict[str, str] = {}
    name = ""
    for line in source.split("\n"):
        if line.startswith("--- "):
            name = line[4:].strip()
            files[name] = ""
        else:
            files[name] += line + "\n"
    return files


def _project(root: Path, source: str) -> Path:
    for rel, text in _files(source).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(
        'build:\n  title: 目次\n  include: ["**/*.md"]\n  exclude: ["_out/**"]\n  out: dist/site.html\n', encoding="utf-8"
    )
    return root


def _nav_html(page: str) -> str:
    return page[page.index('<ol id="mdmark-toc"') : page.index("</nav>")].rstrip() + "\n"


class _Tree(HTMLParser):
    """The titles of a nested list of links, as [title, [children]] (text, whitespace collapsed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list = []
        self.stack: list[list] = [self.root]
        self.text: list[str] | None = None
        self.entry: list | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "li":
            self.entry = ["", []]
            self.stack[-1].append(self.entry)
            self.text = []
        elif tag in ("ul", "ol") and self.entry is not None:
            self.stack.append(self.entry[1])
            self.entry = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "li":
            # Several top-level lists (one per toctree, between captions) continue the same level.
            self.entry = None
        if tag in ("ul", "ol") and len(self.stack) > 1:
            self.stack.pop()
        if tag in ("a", "span") and self.entry is not None and self.text is not None:
            self.entry[0] = " ".join("".join(self.text).split())
            self.text = None

    def handle_data(self, data: str) -> None:
        if self.text is not None:
            self.text.append(data)


def tree(markup: str) -> list:
    parser = _Tree()
    parser.feed(markup)

    def plain(items: list) -> list:
        return [[title, plain(children)] if children else title for title, children in items]

    return plain(parser.root[0][1] if len(parser.root) == 1 and not parser.root[0][0] else parser.root)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_nav_golden(case: Case, tmp_path: Path) -> None:
    root = _project(tmp_path, case.source)
    page = Path(build_site(root)["out"]).read_text(encoding="utf-8")
    assert page_problems(page) == []
    actual = _nav_html(page)
    if REGEN:
        cases = read_cases(NAV)
        write_cases(NAV, [Case(c.name, c.source, actual if c.name == case.name else c.expected) for c in cases])
        return
    assert actual == case.expected.rstrip("\n") + "\n"


def _sphinx_tree(root: Path) -> list:
    """The toc of Sphinx's ``singlehtml`` build of the same files (its sidebar's ``localtoc``)."""
    (root / "conf.py").write_text(
        'extensions = ["myst_parser"]\nhtml_theme = "basic"\nhtml_sidebars = {"**": ["localtoc.html"]}\n'
        'exclude_patterns = ["_out", "dist"]\n',
        encoding="utf-8",
    )
    out = root / "_out"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-E", "-q", "-b", "singlehtml", str(root), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    side = page[page.index('<div class="sphinxsidebarwrapper">') :]
    side = side[: side.index("</div>")]
    return tree(side[side.index("<ul") :]) if "<ul" in side else []


#: Where mdmark differs from Sphinx on purpose (said in the case's name). On a toctree cycle,
#: singlehtml's inlining of the toctrees ends in a RecursionError (its html builder warns
#: ``toc.circular`` and leaves the entry out, as mdmark does).
DIFFERENT = ("without a root toctree", "link inside a heading", "toctree cycle")


@pytest.mark.parametrize("case", [c for c in CASES if not any(d in c.name for d in DIFFERENT)], ids=lambda c: c.name)
def test_nav_is_sphinx_singlehtml_toc(case: Case, tmp_path: Path) -> None:
    """Differential: mdmark's tree of titles is the one Sphinx's singlehtml sidebar shows."""
    root = _project(tmp_path, case.source)
    ours = tree(_nav_html(Path(build_site(root)["out"]).read_text(encoding="utf-8")))
    assert ours == _sphinx_tree(root)


def test_inline_html_headings_in_the_page_and_the_nav(tmp_path: Path) -> None:
    case = next(c for c in CASES if "inline HTML" in c.name)
    root = _project(tmp_path, case.source)
    page = Path(build_site(root)["out"]).read_text(encoding="utf-8")
    nav = _nav_html(page)
    assert '<i class="fa-solid fa-star"></i> Wrap up</a>' in nav
    assert "&lt;i" not in nav and "&lt;b" not in page
    assert re.search(r'<h2><i class="fa-solid fa-star"></i> Wrap up<a class="headerlink"', page)
    # The toctree in the page (index's) shows the markup too.
    toctree = page[page.index('<nav class="mdmark-toctree') :]
    toctree = toctree[: toctree.index("</nav>")]
    assert '<i class="fa-solid fa-star"></i> Wrap up</a>' in toctree and "<b>太い</b> 題</a>" in toctree
    # What the sanitiser drops from a heading is gone from the entry as from the page: the entry
    # shows exactly what the heading shows.
    assert "<script" not in nav and "iframe" not in nav
    shown = re.search(r"<h2>([^<]*見出し)<a class=\"headerlink\"", page)
    assert shown is not None and f">{shown.group(1)}</a>" in nav


WRAPPER_CONF = """\
import os, sys
_docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
sys.path.insert(0, _docs)
__file__ = os.path.join(_docs, "conf.py")
exec(compile(open(__file__, encoding="utf-8").read(), __file__, "exec"))
# The sidebar shows singlehtml's toc alone, whatever the project's theme.
html_theme = "basic"
html_theme_options = {}
html_sidebars = {"**": ["localtoc.html"]}
templates_path = []
"""


def _flat(items: list, depth: int = 0) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for item in items:
        if isinstance(item, list):
            out.append((depth, item[0]))
            out += _flat(item[1], depth + 1)
        else:
            out.append((depth, item))
    return out


@pytest.mark.parametrize("name", ["sphinx-design", "myst-parser"])
def test_real_projects_nav_is_their_singlehtml_toc(name: str, tmp_path: Path) -> None:
    """On the real corpora (``../shared/corpora``): the navigation is Sphinx's singlehtml toc, entry
    for entry and level for level, then the documents no toctree reaches (Sphinx leaves them out)."""
    from test_sphinx_projects import _copy

    project = _copy(name, tmp_path)
    page = Path(build_site(project)["out"]).read_text(encoding="utf-8")
    ours = _flat(tree(_nav_html(page)))
    (project / "wrap").mkdir()
    (project / "wrap" / "conf.py").write_text(WRAPPER_CONF, encoding="utf-8")
    out = tmp_path / "sphinx-out"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-E", "-q", "-b", "singlehtml", "-c", "../wrap", ".", str(out)],
        cwd=project / "docs",
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    side = (out / "index.html").read_text(encoding="utf-8")
    side = side[side.index('<div class="sphinxsidebarwrapper">') :]
    side = side[: side.index("</div>")]
    theirs = _flat(tree(side[side.index("<ul") :]))
    assert len(theirs) > 20
    assert ours[: len(theirs)] == theirs
    # What follows is top-level documents only, each with its own sections.
    assert all(depth > 0 or f">{title}</a>" in page for depth, title in ours[len(theirs) :])
