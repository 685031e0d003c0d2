"""The built page's reader features (issue 34 item 1): the permalink tooltips and the page's own words
in the page language; in real headless Chromium, the offline search, the code blocks' copy button,
the dark theme, the phone header and the navigation's mark after a jump to an anchor.

The browser tests are skipped only when no ``chromium`` is installed, and then only outside CI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cdp import Browser, chromium
from conftest import needs_program
from mdmark.builders.build import build_site
from mdmark.builders.export import export_html
from mdmark.html.labels import page_words, permalink_title
from mdmark.html.links import doc_id


def test_permalink_tooltips_in_the_page_language() -> None:
    assert permalink_title("ja", "Link to this heading") == "この見出しへのリンク"
    assert permalink_title("ja-JP", "Link to this code") == "このコードへのリンク"
    assert permalink_title("en", "Link to this heading") == "Link to this heading"
    # Sphinx's own catalog where it translates the message.
    assert permalink_title("fr", "Link to this equation") == "Lien vers cette équation"


def test_page_words_in_the_page_language() -> None:
    assert page_words("ja")["search"] == "検索" and page_words("ja")["toc"] == "目次"
    assert page_words("en")["search"] == "Search" and page_words("en")["copy"] == "Copy"
    assert page_words("de")["search"] == "Suche"  # Sphinx's catalog has the word
    assert set(page_words("de")) == set(page_words("ja"))


# -- in real headless Chromium ---------------------------------------------------------------------


LONG = "段落。\n\n" * 60

DOCS = {
    "index.md": "# ホーム\n\n" + LONG + "```{toctree}\nauth\nnet\n```\n",
    "auth.md": (
        "# 認証の設計\n\n" + LONG + "## トークンの扱い\n\n"
        "利用者の認証トークンは夜間にまとめて更新する。期限の切れた\nトークンは捨てる。\n\n"
        "```pycon\n>>> print(\"hello\")\nhello\n```\n\n"
        "```python\nretry(3)\n```\n\n" + LONG + "## 後始末\n\n短い。\n"
    ),
    "net.md": (
        "# Network\n\n" + LONG + "## Gateway\n\nThe gateway Retries each request twice before it gives up.\n\n"
        + LONG + "## 最後の節\n\n最後。\n"
    ),
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium()
    if executable is None:
        pytest.skip("no chromium")
    instance = Browser(executable)
    for domain in ("Network", "Page", "Runtime", "Log"):
        instance.call(f"{domain}.enable")
    yield instance
    instance.close()


def _project(root: Path, lang: str | None = None) -> Path:
    html = f"html:\n  lang: {lang}\n" if lang else ""
    (root / "mdmark.config.yaml").write_text(
        f'build:\n  title: 読者の試験\n  include: ["*.md"]\n  out: dist/site.html\n{html}', encoding="utf-8"
    )
    for rel, text in DOCS.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(build_site(_project(tmp_path_factory.mktemp("reader")))["out"])


def _only_own_file(browser: Browser, since: int, page: Path) -> None:
    others = [u for u in browser.requests()[since:] if u != page.as_uri() and not u.startswith("data:")]
    assert others == [], f"the page made requests: {others}"
    refused = [m for m in browser.console_messages() if "Content Security Policy" in m or "Refused" in m]
    assert refused == []
    assert not [e for e in browser.events[since:] if e.get("method") == "Runtime.exceptionThrown"]


def _key(browser: Browser, key: str, code: str, keycode: int, text: str | None = None, modifiers: int = 0) -> None:
    down: dict[str, object] = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keycode, "modifiers": modifiers}
    if text is not None:
        down["text"] = text
    browser.call("Input.dispatchKeyEvent", down)
    browser.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": keycode, "modifiers": modifiers})


def _type(browser: Browser, text: str) -> None:
    browser.call("Input.insertText", {"text": text})


def _results(browser: Browser) -> list[list[str]]:
    assert browser.wait_until(
        "(() => { const p = document.getElementById('mdmark-search-results');"
        " return !p.hidden && p.dataset.query === document.getElementById('mdmark-search-input').value; })()",
        timeout=10,
    )
    return browser.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('#mdmark-search-results a')].map(a => [decodeURIComponent(a.getAttribute('href')),"
        " a.querySelector('.mdmark-search-where').textContent, (a.querySelector('mark') || {}).textContent || ''])"
    )


def _current(browser: Browser) -> str | None:
    browser.frames()
    return browser.evaluate(  # type: ignore[no-any-return]
        "(() => { const a = document.querySelector('#mdmark-toc [aria-current]'); return a ? a.textContent : null; })()"
    )


needs_chromium = needs_program("chromium")


@needs_chromium
def test_search_finds_a_japanese_word_inside_a_sentence_and_lands_at_its_section(browser: Browser, site: Path) -> None:
    assert 'title="この見出しへのリンク"' in site.read_text(encoding="utf-8")
    mark = len(browser.requests())
    browser.open("about:blank")
    browser.open(site.as_uri())
    assert browser.evaluate("document.getElementById('mdmark-search').hidden") is False
    assert browser.evaluate("document.getElementById('mdmark-search-input').placeholder") == "検索（/ キー）"
    # "/" puts the cursor in the box (from anywhere but another field).
    _key(browser, "/", "Slash", 191, "/")
    assert browser.evaluate("document.activeElement.id") == "mdmark-search-input"
    assert browser.evaluate("document.getElementById('mdmark-search-input').value") == ""
    # 更新 stands inside 「…夜間にまとめて更新する。」: no spaces, no dictionary.
    _type(browser, "まとめて更新")
    found = _results(browser)
    section = f"{doc_id('auth')}:トークンの扱い"
    assert found == [[f"#{section}", "認証の設計 › トークンの扱い", "まとめて更新"]]
    # A word split by a line break in the source is still one word: 切れた\nトークン.
    browser.evaluate("document.getElementById('mdmark-search-input').value = ''")
    _type(browser, "切れたトークン")
    assert [r[0] for r in _results(browser)] == [f"#{section}"]
    assert browser.evaluate("document.querySelector('.mdmark-search-status').textContent") == "1 件"
    _key(browser, "Enter", "Enter", 13)
    browser.frames()
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{section}"
    top = browser.evaluate(f"Math.round(document.getElementById({json.dumps(section)}).getBoundingClientRect().top)")
    assert 0 <= top < 100, top
    assert browser.evaluate("document.getElementById('mdmark-search-results').hidden") is True
    assert _current(browser) == "トークンの扱い"
    _only_own_file(browser, mark, site)


@needs_chromium
def test_search_finds_an_english_word_whatever_its_case_by_keyboard(browser: Browser, site: Path) -> None:
    mark = len(browser.requests())
    browser.open("about:blank")
    browser.open(site.as_uri())
    _key(browser, "k", "KeyK", 75, modifiers=2)  # Ctrl-K
    assert browser.evaluate("document.activeElement.id") == "mdmark-search-input"
    _type(browser, "retries")
    found = _results(browser)
    assert found == [[f"#{doc_id('net')}:gateway", "Network › Gateway", "Retries"]]
    # Words not in one section find nothing, and say so in the page's language.
    _type(browser, " 夜間")
    assert _results(browser) == []
    assert browser.evaluate("document.querySelector('.mdmark-search-status').textContent") == "一致する箇所はありません"
    # A document's title finds the document; ↓ picks the first result, Enter goes there.
    browser.evaluate("document.getElementById('mdmark-search-input').value = ''")
    _type(browser, "認証の")
    found = _results(browser)
    assert found[0][:2] == [f"#{doc_id('auth')}", "認証の設計"]
    _key(browser, "ArrowDown", "ArrowDown", 40)
    assert browser.evaluate("document.activeElement.getAttribute('aria-activedescendant')") == "mdmark-search-hit-0"
    _key(browser, "Enter", "Enter", 13)
    browser.frames()
    assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{doc_id('auth')}"
    _key(browser, "/", "Slash", 191, "/")
    _key(browser, "Escape", "Escape", 27)
    assert browser.evaluate("document.getElementById('mdmark-search-results').hidden") is True
    _only_own_file(browser, mark, site)


@needs_chromium
def test_search_is_hidden_without_scripts(browser: Browser, site: Path) -> None:
    browser.call("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.open("about:blank")
        browser.open(site.as_uri())
        assert browser.evaluate("document.getElementById('mdmark-search').checkVisibility()") is False
    finally:
        browser.call("Emulation.setScriptExecutionDisabled", {"value": False})


def _clipboard(browser: Browser) -> str:
    result = browser.call(
        "Runtime.evaluate", {"expression": "navigator.clipboard.readText()", "awaitPromise": True, "returnByValue": True}
    )
    assert "exceptionDetails" not in result, result
    return result["result"]["value"]  # type: ignore[no-any-return]


@needs_chromium
def test_copy_button_puts_the_code_on_the_clipboard(browser: Browser, site: Path) -> None:
    browser.send("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    browser.call("Emulation.setFocusEmulationEnabled", {"enabled": True})
    try:
        browser.open("about:blank")
        browser.open(site.as_uri())
        buttons = browser.evaluate(
            "[...document.querySelectorAll('button.mdmark-copy')].map(b => [b.textContent, b.getAttribute('aria-label')])"
        )
        assert buttons == [["コピー", "コードをコピー"], ["コピー", "コードをコピー"]]
        # The prompt (>>> ) is not copied; the output is.
        browser.click("div.highlight-pycon button.mdmark-copy")
        assert browser.wait_until("document.querySelector('div.highlight-pycon button.mdmark-copy').textContent === 'コピーしました'", 10)
        assert _clipboard(browser) == 'print("hello")\nhello'
        browser.click("div.highlight-python button.mdmark-copy")
        assert browser.wait_until("document.querySelector('div.highlight-python button.mdmark-copy').textContent === 'コピーしました'", 10)
        assert _clipboard(browser) == "retry(3)"
        # Where the clipboard API is missing: the selection and the copy command.
        browser.evaluate("delete Navigator.prototype.clipboard")
        assert browser.evaluate("navigator.clipboard === undefined")
        browser.click("div.highlight-pycon button.mdmark-copy")
        browser.frames()
        assert browser.evaluate("document.querySelector('div.highlight-pycon button.mdmark-copy').textContent") == "コピーしました"
        browser.open("about:blank")
        browser.open(site.as_uri())
        assert _clipboard(browser) == 'print("hello")\nhello'
    finally:
        browser.call("Emulation.setFocusEmulationEnabled", {"enabled": False})
        browser.send("Browser.resetPermissions")


@needs_chromium
def test_exported_page_has_the_copy_button_and_no_other_script(browser: Browser, site: Path) -> None:
    out = Path(export_html(site.parent.parent, "auth.md")["out"])
    mark = len(browser.requests())
    browser.open(out.as_uri())
    assert browser.evaluate("document.querySelectorAll('button.mdmark-copy').length") == 2
    assert browser.evaluate("[...document.scripts].map(s => s.type || 'js')") == ["application/json", "js"]
    _only_own_file(browser, mark, out)


def _colours(browser: Browser) -> dict[str, str]:
    return browser.evaluate(  # type: ignore[no-any-return]
        "(() => { const s = e => getComputedStyle(document.querySelector(e));"
        " return {body: s('body').backgroundColor, text: s('body').color, nav: s('#mdmark-nav').backgroundColor,"
        " code: s('div.highlight').backgroundColor, keyword: s('div.highlight-python .n').color,"
        " search: s('#mdmark-search-input').backgroundColor}; })()"
    )


@needs_chromium
def test_dark_theme_follows_the_system_setting(browser: Browser, site: Path, tmp_path: Path) -> None:
    browser.open("about:blank")
    browser.open(site.as_uri())
    light = _colours(browser)
    assert light["body"] == "rgb(255, 255, 255)"
    browser.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        dark = _colours(browser)
        assert dark["body"] == "rgb(13, 17, 23)" and dark["text"] == "rgb(230, 237, 243)"
        # Every part changes: the sidebar, the code's ground and its colours, the search box.
        assert all(dark[k] != light[k] for k in light), (light, dark)
        browser.evaluate(f"document.getElementById({json.dumps(doc_id('auth') + ':トークンの扱い')}).scrollIntoView()")
        browser.screenshot(tmp_path / "dark.png")
    finally:
        browser.call("Emulation.setEmulatedMedia", {"features": []})
    assert _colours(browser) == light


@needs_chromium
def test_jump_to_an_anchor_marks_that_section(browser: Browser, site: Path) -> None:
    """Before: the heading landed 32 px down (the scroll padding and the target's margin both), past
    the line the script read, and a section near the end could not reach the top at all."""
    for anchor, entry in [
        (f"{doc_id('auth')}:トークンの扱い", "トークンの扱い"),
        (f"{doc_id('net')}:最後の節", "最後の節"),  # near the end of the page
        (f"{doc_id('auth')}:後始末", "後始末"),
    ]:
        browser.open("about:blank")
        browser.open(site.as_uri() + "#" + anchor)
        assert _current(browser) == entry, anchor
    # A jump by a click on a link in the page too, and the next scroll follows the reader again.
    browser.evaluate(f"location.hash = {json.dumps('#' + doc_id('net') + ':最後の節')}")
    assert _current(browser) == "最後の節"
    browser.evaluate(f"document.getElementById({json.dumps(doc_id('net') + ':gateway')}).scrollIntoView()")
    assert _current(browser) == "Gateway"


@needs_chromium
def test_phone_header_stays_with_the_button_and_the_search(browser: Browser, site: Path) -> None:
    browser.call("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        browser.open("about:blank")
        browser.open(site.as_uri() + "#" + doc_id("net") + ":最後の節")
        header = browser.evaluate(
            "(() => { const r = document.getElementById('mdmark-nav').getBoundingClientRect(); return [r.top, r.height]; })()"
        )
        assert header[0] == 0 and header[1] < 80, header
        assert browser.evaluate("document.querySelector('label.mdmark-nav-button').checkVisibility()")
        assert browser.evaluate("document.getElementById('mdmark-search-input').checkVisibility()")
        assert browser.evaluate("document.documentElement.scrollWidth") <= 390
        # The landed heading is below the header, not under it.
        top = browser.evaluate(f"document.getElementById({json.dumps(doc_id('net') + ':最後の節')}).getBoundingClientRect().top")
        assert top >= header[1] - 1
        # A search from the header lands on its section and closes what it opened.
        browser.click("#mdmark-search-input")
        _type(browser, "夜間")
        assert [r[0] for r in _results(browser)] == [f"#{doc_id('auth')}:トークンの扱い"]
        browser.click("#mdmark-search-results a")
        browser.frames()
        assert browser.evaluate("decodeURIComponent(location.hash)") == f"#{doc_id('auth')}:トークンの扱い"
        assert browser.evaluate("Math.round(document.getElementById('mdmark-nav').getBoundingClientRect().top)") == 0
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")


@needs_chromium
def test_english_page_speaks_english(browser: Browser, tmp_path: Path) -> None:
    out = Path(build_site(_project(tmp_path, "en"))["out"])
    page = out.read_text(encoding="utf-8")
    assert 'title="Link to this heading"' in page and "見出しへのリンク" not in page
    browser.open(out.as_uri())
    assert browser.evaluate("document.querySelector('label.mdmark-nav-button').textContent") == "Contents"
    assert browser.evaluate("document.getElementById('mdmark-search-input').placeholder") == "Search (/)"
    assert browser.evaluate("document.querySelector('button.mdmark-copy').textContent") == "Copy"
    browser.click("#mdmark-search-input")
    _type(browser, "gateway")
    assert [r[1] for r in _results(browser)] == ["Network › Gateway"]
    assert browser.evaluate("document.querySelector('.mdmark-search-status').textContent") == "Matches: 1"


@needs_chromium
def test_dark_theme_keeps_the_graphs_readable(browser: Browser, tmp_path: Path) -> None:
    """The relation graphs keep the light paper they are drawn for: dark text on light boxes."""
    import shutil

    from conftest import FIXTURES

    root = tmp_path / "project"
    shutil.copytree(FIXTURES / "graph" / "project", root)
    out = Path(build_site(root)["out"])
    browser.open(out.as_uri() + "#mdmark-graph")
    browser.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        paper = browser.evaluate(
            "[...document.querySelectorAll('svg.mdmark-graph')].map(svg => getComputedStyle(svg).backgroundColor)"
        )
        assert paper and set(paper) == {"rgb(246, 248, 250)"}, paper
        assert browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
        browser.screenshot(tmp_path / "graph-dark.png")
    finally:
        browser.call("Emulation.setEmulatedMedia", {"features": []})
