"""A translated project's message catalogs, as inputs of a document's read.

With ``language`` and ``locale_dirs`` set (a trusted conf.py), Sphinx's i18n ``Locale`` transform
replaces a document's text by its translation from ``<locale_dir>/<language>/LC_MESSAGES/<domain>.mo``
at read time, and the facts are made of the translated tree (its title and headings: the read
profiles cannot leave ``Locale`` out of the facts' read). The parse cache keys a document by its own
bytes, so the catalog is one of the files it pulled in (its ``deps``: a change re-parses it), as
``sphinx-build`` notes it when it finds the files; and Sphinx keeps every catalog it loaded for the
life of the process (``sphinx.locale.translators``), so a worker that outlives an edited catalog
(the server's) would translate with the old one: the document's catalog is loaded afresh (each
read of a translated document reads its ``.mo``: a translated project's only).
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def catalog_paths(app: Sphinx, docname: str) -> list[Path]:
    """The catalogs ``Locale`` looks for to translate ``docname``: in each of ``locale_dirs`` that
    holds the project's language, the document's domain's ``.mo`` (there or not yet); none when
    the project is not translated (no language, no such folder)."""
    from sphinx.util.i18n import docname_to_domain

    config: Any = app.config
    language = str(config.language or "")
    if not language or not config.locale_dirs:
        return []
    domain = docname_to_domain(docname, config.gettext_compact)
    srcdir = Path(app.srcdir)
    found: list[Path] = []
    for folder in config.locale_dirs:
        localedir = srcdir / folder
        # What gettext finds for the language (``pt_BR``, then ``pt``); else the file it would read
        # first, when the project is translated into the language there (one stat for the others).
        present = gettext.find(domain, str(localedir), [language], all=True) if localedir.is_dir() else []
        if present:
            found.extend(Path(p) for p in present)
        elif (localedir / language / "LC_MESSAGES").is_dir():
            found.append(localedir / language / "LC_MESSAGES" / f"{domain}.mo")
    return found


@contextmanager
def catalogs_read(app: Sphinx, docname: str) -> Iterator[None]:
    """Around one read of ``docname``: its catalog loaded afresh, and noted as a dependency."""
    from sphinx.locale import translators
    from sphinx.util.i18n import docname_to_domain

    paths = catalog_paths(app, docname)
    if paths:
        translators.pop(("general", docname_to_domain(docname, app.config.gettext_compact)), None)
        # gettext keeps each catalog it read by its file's path, however the file changed since.
        held: dict[tuple[Any, str], Any] = getattr(gettext, "_translations", {})
        for key in [k for k in held if k[1] in {str(p) for p in paths}]:
            held.pop(key, None)
    yield
    env: Any = app.env
    for path in paths:
        env.note_dependency(path, docname=docname)
