"""The page's fixed labels (admonition titles, version changes, permalink tooltips) in the page's
language, from Sphinx's own message catalogs (``sphinx/locale/<lang>/LC_MESSAGES/sphinx.mo``).

Sphinx writes these words in the language of the application that read the document; mdmark's
own application reads in English, so the writer asks the catalog of the page's language instead:
an English page says Note, a Japanese one 注釈, and a word Sphinx's catalog does not translate
stays the English Sphinx itself would show.
"""

from __future__ import annotations

import functools
import gettext

#: Sphinx's admonition titles (``sphinx.locale.admonitionlabels``) and the todo extension's, by
#: directive name: the catalog's message ids.
ADMONITIONS = {
    "attention": "Attention",
    "caution": "Caution",
    "danger": "Danger",
    "error": "Error",
    "hint": "Hint",
    "important": "Important",
    "note": "Note",
    "seealso": "See also",
    "tip": "Tip",
    "warning": "Warning",
    "todo": "Todo",
}

#: Sphinx's version-change labels (``sphinx.domains.changeset.versionlabels``) by node type.
VERSION_CHANGES = {
    "versionadded": "Added in version %s",
    "versionchanged": "Changed in version %s",
    "deprecated": "Deprecated since version %s",
    "versionremoved": "Removed in version %s",
}


def catalog_language(lang: str) -> str:
    """A page language (``html.lang`` or conf.py's ``language``: ``ja``, ``pt-BR``) as Sphinx's catalogs
    name it (``pt_BR``); "" for English, which needs no catalog."""
    code = lang.strip().replace("-", "_")
    if not code or code.split("_", 1)[0].lower() == "en":
        return ""
    head, _sep, tail = code.partition("_")
    return f"{head.lower()}_{tail.upper()}" if tail else head.lower()


@functools.cache
def _catalog(language: str) -> gettext.NullTranslations:
    if not language:
        return gettext.NullTranslations()
    import os

    import sphinx.locale

    folder = os.path.dirname(sphinx.locale.__file__)
    # pt_BR falls back to pt, then to the English message itself, as Sphinx's own lookup does.
    return gettext.translation("sphinx", folder, [language], fallback=True)


def translated(lang: str, message: str) -> str:
    """``message`` (one of Sphinx's English message ids) in the page language ``lang``."""
    return _catalog(catalog_language(lang)).gettext(message)


#: Japanese words for Sphinx messages its Japanese catalog leaves in English (the permalinks' titles
#: are newer than the catalog's translations): a Japanese page says them in Japanese too.
_JA_SPHINX = {
    "Link to this heading": "この見出しへのリンク",
    "Link to this definition": "この定義へのリンク",
    "Link to this term": "この用語へのリンク",
    "Link to this table": "この表へのリンク",
    "Link to this code": "このコードへのリンク",
    "Link to this image": "この画像へのリンク",
    "Link to this toctree": "この目次へのリンク",
    "Link to this equation": "この数式へのリンク",
}


def permalink_title(lang: str, message: str) -> str:
    """A permalink's tooltip (Sphinx's ``Link to this heading`` …) in the page language ``lang``:
    Sphinx's catalog, else mdmark's own Japanese for what the catalog leaves untranslated."""
    said = translated(lang, message)
    if said == message and catalog_language(lang).split("_", 1)[0] == "ja":
        return _JA_SPHINX.get(message, message)
    return said


#: The built page's own words (the search box, the code blocks' copy button, the navigation's
#: button), which no Sphinx catalog has: English, and Japanese. ``{n}``: a count.
PAGE_WORDS = {
    "toc": ("Contents", "目次"),
    "search": ("Search", "検索"),
    "search_hint": ("Search (/)", "検索（/ キー）"),
    "results": ("Matches: {n}", "{n} 件"),
    "more": ("{n} more not shown: add a word to narrow", "ほか {n} 件（言葉を足すと絞れます）"),
    "none": ("No matches", "一致する箇所はありません"),
    "copy": ("Copy", "コピー"),
    "copy_code": ("Copy the code", "コードをコピー"),
    "copied": ("Copied", "コピーしました"),
    "copy_failed": ("Could not copy", "コピーできませんでした"),
}

#: The page words another language takes from Sphinx's catalog when the catalog has them.
_FROM_SPHINX = {"toc": "Table of Contents", "search": "Search"}


def page_words(lang: str) -> dict[str, str]:
    """:data:`PAGE_WORDS` in the page language ``lang``: Japanese for ``ja``; otherwise English,
    with the words Sphinx's catalog of ``lang`` translates (Search → Suche)."""
    if catalog_language(lang).split("_", 1)[0] == "ja":
        return {key: ja for key, (_en, ja) in PAGE_WORDS.items()}
    words = {key: en for key, (en, _ja) in PAGE_WORDS.items()}
    for key, message in _FROM_SPHINX.items():
        said = translated(lang, message)
        if said != message:
            words[key] = said
    return words
