"""The built page's reader features (issue 34 item 1): the permalink tooltips and the page's own words
in the page language; in real headless Chromium, the offline search, the code blocks' copy button,
the dark theme, the phone header and the navigation's mark after a jump to an anchor.

The browser tests are skipped only when no ``chromium`` is installed, and then only outside CI.
"""

from __future__ import annotations

from mdmark.html.labels import page_words, permalink_title


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
