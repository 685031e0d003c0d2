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
