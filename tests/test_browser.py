"""Real headless Chromium: the exported and built pages load nothing, tabs switch, links land.

Skipped only when no ``chromium`` is installed, and then only outside CI (``CI=true`` fails instead).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdp import Browser, chromium
from conftest import needs_program, trust_project
from html_helpers import png
from mdmark.builders.build import build_site
from mdmark.builders.export import export_html
from mdmark.html.links import doc_id

EXECUTABLE = chromium()
pytestmark = needs_program("chromium")

DOC_A = """\
# 文書 A

[B の詳細へ](b.md#b-の詳細)

![絵](pic.png)

```python
print("hello")
```

$$
E = mc^2
$$

::::{tab-set}
:::{tab-item} 一つ目
最初のタブの中身
:::
:::{tab-item} 二つ目
二つ目のタブの中身
:::
::::

:::{dropdown} 開いてください
隠れていた中身
:::

{octicon}`rocket` {bdg-primary}`バッジ`
"""

DOC_B = "# 文書 B\n\n" + "段落。\n\n" * 80 + "## B の詳細\n\nここに着く。\n\n" + "後の段落。\n\n" * 80


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert EXECUTABLE is not None
    instance = Browser(EXECUTABLE)
    instance.call("Network.enable")
    instance.call("Page.enable")
    instance.call("Runtime.enable")
    instance.call("Log.enable")
    yield instance
    instance.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser")
    (root / "mdmark.config.yaml").write_text(
        'build:\n  title: 閲覧の試験\n  include: ["docs/*.md"]\n  out: dist/site.html\n', encoding="utf-8"
    )
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text(DOC_A, encoding="utf-8")
    (root / "docs" / "b.md").write_text(DOC_B, encoding="utf-8")
    (root / "docs" / "pic.png").write_bytes(png(40, 20))
    return root


def _only_own_file(browser: Browser, since: int, page: Path) -> None:
    urls = browser.requests()[since:]
    others = [u for u in urls if u != page.as_uri() and not u.startswith("data:")]
    assert others == [], f"the page made requests: {others}"
    refused = [m for m in browser.console_messages() if "Content Security Policy" in m or "Refused" in m]
    assert refused == []


def _visible(browser: Browser, text: str) -> bool:
    return bool(
        browser.evaluate(
            "(() => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);"
            f" while (w.nextNode()) {{ if (w.currentNode.data.includes({json.dumps(text)})) {{"
            " const e = w.currentNode.parentElement; return e.checkVisibility() && e.getClientRects().length > 0; } }"
            " return false; })()"
        )
    )


def test_exported_page(browser: Browser, project: Path, tmp_path: Path) -> None:
    export_html(project, "docs/b.md")
    out = Path(export_html(project, "docs/a.md")["out"])
    mark = len(browser.requests())
    browser.open(out.as_uri())
    _only_own_file(browser, mark, out)
    shot = browser.screenshot(tmp_path / "export.png")
    assert shot.startswith(b"\x89PNG") and len(shot) > 5000
    assert browser.evaluate("document.title") == "文書 A"
    assert browser.evaluate("document.querySelector('img').naturalWidth") == 40
    assert browser.evaluate("document.querySelector('math') !== null")
    # tabs switch with CSS alone (no script in the page but the code block's copy button and its words)
    assert browser.evaluate("[...document.scripts].map(s => s.id || s.textContent.includes('mdmark-copy'))") == ["mdmark-words", True]
    assert _visible(browser, "最初のタブの中身") and not _visible(browser, "二つ目のタブの中身")
    browser.click(".sd-tab-set > label:nth-of-type(2)")
    assert _visible(browser, "二つ目のタブの中身") and not _visible(browser, "最初のタブの中身")
    # dropdowns open
    assert not _visible(browser, "隠れていた中身")
    browser.click("details.sd-dropdown > summary")
    assert _visible(browser, "隠れていた中身")
    # a link to another document goes to its sibling page, at the section
    mark = len(browser.events)
    browser.click("a.reference.internal")
    browser.wait_event("Page.loadEventFired", mark)
    assert browser.evaluate("location.pathname").endswith("/docs/b.html")
    assert browser.evaluate("decodeURIComponent(location.hash)") == "#b-の詳細"
    assert all(u.startswith(("file://", "data:")) for u in browser.requests()), browser.requests()


def test_built_page(browser: Browser, project: Path, tmp_path: Path) -> None:
    out = Path(build_site(project)["out"])
    mark = len(browser.requests())
    browser.open(out.as_uri())
    _only_own_file(browser, mark, out)
    shot = browser.screenshot(tmp_path / "build.png")
    assert shot.startswith(b"\x89PNG") and len(shot) > 5000
    assert browser.evaluate("document.title") == "閲覧の試験"
    assert browser.evaluate("document.querySelectorAll('#mdmark-nav a').length") >= 3
    # a tab in the built page
    browser.click(".sd-tab-set > label:nth-of-type(2)")
    assert _visible(browser, "二つ目のタブの中身")
    # follow the in-page cross-document link: it lands on B's section, inside B
    browser.evaluate("window.scrollTo(0, 0)")
    browser.click(f'section[data-source="docs/a.md"] a.reference.internal')
    expected = f"{doc_id('docs/b')}:b-の詳細"
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{expected}"
    landing = browser.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(expected)});"
        " const r = e.getBoundingClientRect();"
        " return [e.closest('section.mdmark-doc').dataset.source, Math.round(r.top), window.innerHeight,"
        " e.closest('section').querySelector('h1, h2, h3').textContent]; })()"
    )
    source, top, height, text = landing
    assert source == "docs/b.md"
    assert 0 <= top < height / 2, landing
    assert "B の詳細" in text
    # following the link loaded nothing: still only the page itself and its data: image
    _only_own_file(browser, mark, out)


def _japanese_fonts() -> set[str]:
    """Font families fontconfig says cover Japanese (the browser's fallback for the labels)."""
    import shutil
    import subprocess

    if shutil.which("fc-list") is None:
        return set()
    listed = subprocess.run(["fc-list", ":lang=ja", "family"], capture_output=True, text=True).stdout
    return {name.strip() for line in listed.splitlines() for name in line.split(",") if name.strip()}


@pytest.fixture(scope="module")
def graph_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from conftest import FIXTURES

    root = tmp_path_factory.mktemp("graph") / "project"
    shutil.copytree(FIXTURES / "graph" / "project", root)
    return Path(build_site(root)["out"])


def test_built_page_graph(browser: Browser, graph_page: Path, tmp_path: Path) -> None:
    """The overview's documents are visible boxes; a click lands on the document's section."""
    out = graph_page
    mark = len(browser.requests())
    browser.open(out.as_uri() + "#mdmark-graph")
    _only_own_file(browser, mark, out)
    # the page's own script (allowed by its hash) and its data blocks (the graphs, the words), nothing else
    assert browser.evaluate("[...document.scripts].map(s => s.type || 'js')") == ["application/json", "application/json", "js"]
    boxes = browser.evaluate(
        "[...document.querySelectorAll('#mdmark-graph a.mdmark-graph-node')].map(a => {"
        " const r = a.querySelector('rect').getBoundingClientRect();"
        " return [a.dataset.doc, Math.round(r.width), Math.round(r.height), a.checkVisibility(),"
        " r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth]; })"
    )
    assert [b[0] for b in boxes] == ["arch", "api", "auth", "old-auth", "new-auth", "glossary", "lonely"]
    assert all(w > 40 and h > 15 and visible and inside for _, w, h, visible, inside in boxes), boxes
    shot = browser.screenshot(tmp_path / "graph.png")
    assert shot.startswith(b"\x89PNG") and len(shot) > 5000

    # A click on a document's box lands on its section, at the top of the window.
    browser.click('#mdmark-graph a[data-doc="auth"]')
    expected = doc_id("docs/api/auth")
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{expected}"
    top = browser.evaluate(f"Math.round(document.getElementById({json.dumps(expected)}).getBoundingClientRect().top)")
    assert 0 <= top < 100, top
    # …and the neighbourhood at the end of that section leads on to the next document.
    browser.click(f'section[id="{expected}"] aside.mdmark-graph-local a[data-doc="api"]')
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{doc_id('docs/api/api')}"
    _only_own_file(browser, mark, out)


@pytest.mark.skipif(not _japanese_fonts(), reason="no font with Japanese glyphs is installed (.ci/run installs one)")
def test_graph_labels_render_in_a_japanese_font(browser: Browser, graph_page: Path) -> None:
    """The labels are text drawn with a font that has their glyphs (no tofu boxes)."""
    browser.open("about:blank")  # a fresh load: the previous test left this page at another anchor
    browser.open(graph_page.as_uri() + "#mdmark-graph")
    browser.call("DOM.enable")
    browser.call("CSS.enable")
    root_node = browser.call("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    label = browser.call("DOM.querySelector", {"nodeId": root_node, "selector": '#mdmark-graph a[data-doc="arch"] text'})[
        "nodeId"
    ]
    assert browser.evaluate("document.querySelector('#mdmark-graph a[data-doc=\"arch\"] text').textContent") == "アーキテクチャ"
    fonts = browser.call("CSS.getPlatformFontsForNode", {"nodeId": label})["fonts"]
    assert fonts and all(f["familyName"] in _japanese_fonts() for f in fonts), fonts
    assert sum(f["glyphCount"] for f in fonts) == len("アーキテクチャ")


def _phone(browser: Browser, width: int, height: int) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})


def _png_size(data: bytes) -> tuple[int, int]:
    import struct

    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_built_page_on_a_phone(browser: Browser, project: Path, tmp_path: Path) -> None:
    """At 390 px the navigation folds behind a button (no script), so the first heading is on the first screen."""
    out = Path(build_site(project)["out"])
    _phone(browser, 390, 844)
    try:
        browser.open(out.as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth") <= 390  # nothing runs off sideways
        top = browser.evaluate("Math.round(document.querySelector('main h1').getBoundingClientRect().top)")
        assert 0 < top < 844 / 3, top
        assert not _visible(browser, "文書 B")  # the folded list
        assert _visible(browser, "目次")
        shot = browser.screenshot(tmp_path / "phone.png")
        assert _png_size(shot) == (780, 1688)  # 390 × 844 CSS pixels at 2 device pixels each
        # The button opens the list.
        browser.click("label.mdmark-nav-button")
        assert _visible(browser, "文書 B")
        assert browser.evaluate("Math.round(document.querySelector('main h1').getBoundingClientRect().top)") > top
        browser.screenshot(tmp_path / "phone-open.png")
        browser.click("label.mdmark-nav-button")
        assert not _visible(browser, "文書 B")
        # Reachable from the keyboard: the checkbox takes focus and Space toggles it.
        browser.evaluate("document.getElementById('mdmark-nav-open').focus()")
        for kind in ("keyDown", "keyUp"):
            browser.call("Input.dispatchKeyEvent", {"type": kind, "key": " ", "code": "Space", "windowsVirtualKeyCode": 32})
        assert _visible(browser, "文書 B")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")
    # On a wide screen the list is a sidebar, always open, with no button.
    browser.open(out.as_uri())
    assert _visible(browser, "文書 B")
    assert not browser.evaluate("document.querySelector('label.mdmark-nav-button').checkVisibility()")
    top = browser.evaluate("Math.round(document.querySelector('main h1').getBoundingClientRect().top)")
    assert top < 300


# -- the navigation at scale: a tree that follows the reader, a drawer that closes ------------------

LONG = "段落。\n\n" * 60

TOC_DOCS = {
    "index.md": "# ホーム\n\n" + LONG + "```{toctree}\nguide/index\nref\n```\n",
    "guide/index.md": "# 手引き\n\n" + LONG + "## 始める\n\n```{toctree}\ninstall\nusage\n```\n",
    "guide/install.md": "# 入れる\n\n" + LONG + "## 確かめる\n\n" + LONG,
    "guide/usage.md": "# 使う\n\n" + LONG,
    "ref.md": "# 参照\n\n" + LONG + "## 詳細な参照\n\n" + LONG + "## 終わりに\n\n" + LONG,
}


@pytest.fixture(scope="module")
def toc_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toc")
    (root / "mdmark.config.yaml").write_text(
        'build:\n  title: 目次の試験\n  include: ["**/*.md"]\n  out: dist/site.html\n', encoding="utf-8"
    )
    for rel, text in TOC_DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return Path(build_site(root)["out"])


def _nav_state(browser: Browser) -> dict:
    """Which documents' entries are open, which one is marked, and the entry marked as the place."""
    return browser.evaluate(
        "(() => { const toc = document.getElementById('mdmark-toc');"
        " const current = toc.querySelector('[aria-current]');"
        " return {open: [...toc.querySelectorAll('details[open]')].map(d => d.closest('li').dataset.doc),"
        " doc: [...toc.querySelectorAll('li.mdmark-current')].map(li => li.dataset.doc),"
        " place: current ? current.textContent : null}; })()"
    )


def _frames(browser: Browser) -> None:
    """Wait for two animation frames (the script updates the navigation on the next one)."""
    browser.frames()


def _scroll_to(browser: Browser, element_id: str) -> None:
    browser.evaluate(f"document.getElementById({json.dumps(element_id)}).scrollIntoView({{block: 'start'}})")
    _frames(browser)


def test_navigation_tree_follows_the_reader(browser: Browser, toc_page: Path) -> None:
    """Desktop: the toctrees' tree, each document closed but the one in view (and its parents)."""
    mark = len(browser.requests())
    browser.open(toc_page.as_uri())
    _only_own_file(browser, mark, toc_page)
    tree = browser.evaluate(
        "(() => { const walk = ol => [...ol.children].map(li => { const a = li.querySelector('a');"
        " const sub = li.querySelector(':scope > details > ol, :scope > ol');"
        " return sub ? [a.textContent, walk(sub)] : a.textContent; });"
        " return walk(document.getElementById('mdmark-toc')); })()"
    )
    # The toctree under 手引き's section 始める nests its documents under that section.
    assert tree == [
        ["手引き", [["始める", [["入れる", ["確かめる"]], "使う"]]]],
        ["参照", ["詳細な参照", "終わりに"]],
    ]
    _scroll_to(browser, doc_id("guide/install") + ":確かめる")
    state = _nav_state(browser)
    assert state == {"open": ["guide/index", "guide/install"], "doc": ["guide/install"], "place": "確かめる"}
    _scroll_to(browser, doc_id("ref") + ":詳細な参照")
    assert _nav_state(browser) == {"open": ["ref"], "doc": ["ref"], "place": "詳細な参照"}
    # Marked so that it shows: the entry in view is bold on a tinted ground.
    style = browser.evaluate(
        "(() => { const a = document.querySelector('#mdmark-toc [aria-current]'); const s = getComputedStyle(a);"
        " return [s.backgroundColor, getComputedStyle(a.closest('li.mdmark-current').querySelector('a')).fontWeight]; })()"
    )
    assert style[0] != "rgba(0, 0, 0, 0)" and int(style[1]) >= 700
    _scroll_to(browser, doc_id("guide/usage"))
    assert _nav_state(browser) == {"open": ["guide/index"], "doc": ["guide/usage"], "place": "使う"}
    _only_own_file(browser, mark, toc_page)


def test_navigation_works_without_the_script(browser: Browser, toc_page: Path) -> None:
    browser.call("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.open("about:blank")
        browser.open(toc_page.as_uri())
        assert _nav_state(browser) == {"open": [], "doc": [], "place": None}
        assert _visible(browser, "手引き") and not _visible(browser, "使う")
        # A click beside the title opens the document's entries.
        x, y = browser.evaluate(
            "(() => { const r = document.querySelector('li[data-doc=\"guide/index\"] > details > summary').getBoundingClientRect();"
            " return [r.right - 4, r.top + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            browser.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        assert _visible(browser, "始める")
        browser.click('#mdmark-toc a[href="#ref"]')
        assert browser.evaluate("location.hash") == "#ref"
        # The neighbourhood lists stay lists: nothing needs the script to be read.
        assert browser.evaluate("document.querySelectorAll('aside.mdmark-graph-drawn').length") == 0
    finally:
        browser.call("Emulation.setScriptExecutionDisabled", {"value": False})


def test_phone_drawer_closes_after_a_pick_and_the_header_stays(browser: Browser, toc_page: Path, tmp_path: Path) -> None:
    _phone(browser, 390, 844)
    try:
        browser.open("about:blank")
        browser.open(toc_page.as_uri())
        assert not _visible(browser, "参照")
        browser.click("label.mdmark-nav-button")
        assert _visible(browser, "参照")
        browser.screenshot(tmp_path / "drawer-open.png")
        browser.click('#mdmark-toc a[href="#ref"]')
        _frames(browser)
        assert browser.evaluate("location.hash") == "#ref"
        assert browser.evaluate("document.getElementById('mdmark-nav-open').checked") is False
        assert not _visible(browser, "詳細な参照")  # the drawer closed
        header, heading = browser.evaluate(
            "(() => { const n = document.getElementById('mdmark-nav').getBoundingClientRect();"
            " const h = document.querySelector('section[id=\"ref\"] h1').getBoundingClientRect();"
            " return [[Math.round(n.top), Math.round(n.bottom)], Math.round(h.top)]; })()"
        )
        # The header stays at the top, and the picked heading lands below it, not under it.
        assert header[0] == 0 and heading >= header[1] - 1, (header, heading)
        assert _visible(browser, "目次")
        browser.screenshot(tmp_path / "drawer-picked.png")
        # Far down the page the header is still there, and opens on the document in view.
        _scroll_to(browser, doc_id("ref") + ":終わりに")
        assert browser.evaluate("Math.round(document.getElementById('mdmark-nav').getBoundingClientRect().top)") == 0
        browser.click("label.mdmark-nav-button")
        assert _visible(browser, "終わりに") and not _visible(browser, "確かめる")
        # The open list scrolls inside the screen: it never runs past the bottom.
        bottom = browser.evaluate("Math.round(document.getElementById('mdmark-toc').getBoundingClientRect().bottom)")
        assert bottom <= 844
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


# -- the relation graphs of the 300-document page -------------------------------------------------

_TEXT_CLASHES = """
(svg => { const boxes = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i], [b, q] = boxes[j];
    if (p.left < q.right - 0.5 && q.left < p.right - 0.5 && p.top < q.bottom - 0.5 && q.top < p.bottom - 0.5) out.push([a, b]);
  }
  return out; })
"""


def test_graphs_at_300_in_the_browser(browser: Browser, built_300: Path, tmp_path: Path) -> None:
    """The script draws every neighbourhood where the layout put it, no text covers another in the
    reader's fonts, and on a phone the graphs scroll sideways with their text at 11 px or more."""
    import re

    page = built_300.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="mdmark-graph-data">(.*?)</script>', page, re.DOTALL).group(1))  # type: ignore[union-attr]
    mark = len(browser.requests())
    browser.open(built_300.as_uri())
    _only_own_file(browser, mark, built_300)
    assert not [e for e in browser.events[mark:] if e.get("method") == "Runtime.exceptionThrown"]
    assert browser.evaluate("document.querySelectorAll('aside.mdmark-graph-drawn svg.mdmark-graph').length") == 300
    drawn = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('aside.mdmark-graph-drawn')].map(a =>"
        " [a.dataset.doc, [...a.querySelectorAll('.mdmark-graph-node')].map(n => { const r = n.querySelector('rect');"
        " return [n.dataset.doc, +r.getAttribute('x'), +r.getAttribute('y'), n.querySelector('text').textContent]; })]))"
    )
    nodes = data["nodes"]
    for doc, picture in data["pictures"].items():
        assert drawn[doc] == [[nodes[n][0], x, y, nodes[n][2] or nodes[n][1]] for n, x, y in picture["b"]], doc
    clashes = browser.evaluate(
        f"[...document.querySelectorAll('svg.mdmark-graph')].flatMap(svg => ({_TEXT_CLASHES})(svg))"
    )
    assert clashes == []
    browser.evaluate("document.querySelector('aside.mdmark-graph-drawn').scrollIntoView()")
    browser.screenshot(tmp_path / "neighbourhood.png")

    _phone(browser, 390, 844)
    try:
        browser.open("about:blank")
        browser.open(built_300.as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth") <= 390
        smallest = browser.evaluate(
            "Math.min(...[...document.querySelectorAll('svg.mdmark-graph')].flatMap(svg => {"
            " const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;"
            " return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale); }))"
        )
        assert smallest >= 11, smallest
        # The overview scrolls inside its figure instead of shrinking.
        widths = browser.evaluate(
            "(() => { const f = document.querySelector('#mdmark-graph figure'); return [f.clientWidth, f.scrollWidth]; })()"
        )
        assert widths[1] > widths[0]
        # A neighbourhood wider than the screen starts with its own document in view.
        hidden = browser.evaluate(
            "[...document.querySelectorAll('aside.mdmark-graph-drawn')].filter(a => {"
            " const f = a.querySelector('figure'), box = f.getBoundingClientRect();"
            " const centre = a.querySelector(`.mdmark-graph-node[data-doc=\"${a.dataset.doc}\"] rect`).getBoundingClientRect();"
            " return centre.left < box.left - 1 || centre.right > box.right + 1; }).map(a => a.dataset.doc)"
        )
        assert hidden == []
        browser.evaluate("document.getElementById('mdmark-graph').scrollIntoView()")
        browser.screenshot(tmp_path / "overview-phone.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


MERMAID_DOC = """\
# Diagrams

```mermaid
graph TD
  A[Start] --> B{Is it?}
  B -->|Yes| C[Done]
```
"""


@pytest.fixture(scope="module")
def mermaid_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Sphinx project drawing a diagram with sphinxcontrib-mermaid (its ``mermaid`` fences)."""
    pytest.importorskip("sphinxcontrib.mermaid")
    root = tmp_path_factory.mktemp("mermaid")
    (root / "docs").mkdir()
    (root / "docs" / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinxcontrib.mermaid"]\nmyst_fence_as_directive = ["mermaid"]\nlanguage = "en"\n',
        encoding="utf-8",
    )
    (root / "docs" / "index.md").write_text(MERMAID_DOC, encoding="utf-8")
    (root / "docs" / "plain.md").write_text("# Plain\n\nNo diagram.\n", encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(
        'build:\n  title: diagrams\n  include: ["docs/index.md"]\n  out: dist/site.html\nsphinx:\n  conf: docs/conf.py\n',
        encoding="utf-8",
    )
    trust_project(root / "mdmark.config.yaml")
    return root


def test_mermaid_draws_in_the_page_with_no_request(browser: Browser, mermaid_project: Path) -> None:
    """The bundled mermaid draws the diagram in the built and the exported page, loading nothing;
    a page without a diagram carries no mermaid at all."""
    for out in (Path(build_site(mermaid_project)["out"]), Path(export_html(mermaid_project, "docs/index.md")["out"])):
        mark = len(browser.requests())
        browser.open(out.as_uri())
        drawn = browser.wait_until("document.querySelector('pre.mermaid svg') !== null")
        assert drawn, browser.evaluate("document.querySelector('pre.mermaid').outerHTML")
        labels = browser.evaluate("Array.from(document.querySelectorAll('pre.mermaid svg .nodeLabel')).map(e => e.textContent)")
        assert {"Start", "Is it?", "Done"} <= set(labels)
        _only_own_file(browser, mark, out)
    plain = Path(export_html(mermaid_project, "docs/plain.md")["out"]).read_text(encoding="utf-8")
    assert "__esbuild_esm_mermaid_nm" not in plain and "mermaid.run(" not in plain  # neither mermaid nor its start
