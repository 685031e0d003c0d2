"""Facts from the doctrees Sphinx reads, so the drift check never parses a document a second time.

On ``doctree-read`` (after Sphinx's own collectors, so image URIs are resolved) the doctree goes
through :func:`mdmark.pipeline.extract.extract`, the same extraction the mdmark pipeline uses, and the
resulting :class:`~mdmark.core.facts.DocFacts` is kept in the environment: it survives incremental
builds with the pickled environment, is merged back from parallel read processes
(``env-merge-info``) and dropped when a document is purged (``env-purge-doc``).

Paths in facts are relative to the mdmark config folder, which need not be Sphinx's srcdir (a
config at the repository root, documents in ``docs/``): paths taken from the doctree are moved
from the srcdir frame to the config-folder frame.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mdmark.core.facts import DocFacts, Heading, Image, Link, TextRun, Toctree

from .state import get_state

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

_ENV_ATTR = "mdmark_facts"

#: What docutils' smartquotes turns ASCII into; the index is compared with the text as written.
_SMART: tuple[tuple[str, str], ...] = (
    ("\u2018", "'"),
    ("\u2019", "'"),
    ("\u201c", '"'),
    ("\u201d", '"'),
    ("\u2014", "---"),
    ("\u2013", "--"),
    ("\u2026", "..."),
)


def stored(env: BuildEnvironment) -> dict[str, DocFacts]:
    """The facts of every document Sphinx has read, by docname."""
    facts = getattr(env, _ENV_ATTR, None)
    if facts is None:
        facts = {}
        setattr(env, _ENV_ATTR, facts)
    return cast(dict[str, DocFacts], facts)


def _unsmart(text: str, source_line: str) -> str:
    """Undo smartquotes where the source has the ASCII form and not the typographic one."""
    for smart, plain in _SMART:
        if smart in text and smart not in source_line:
            text = text.replace(smart, plain)
    return text


def _reframe(path: str | None, prefix: str) -> str | None:
    if path is None or prefix in ("", "."):
        return path
    return posixpath.normpath(posixpath.join(prefix, path))


def facts_from_doctree(
    doctree: nodes.document,
    docname: str,
    metadata: dict[str, Any],
    source: str,
    data: bytes,
    relpath: str,
    prefix: str,
    env: BuildEnvironment | None = None,
) -> DocFacts:
    """Facts of one document Sphinx read; ``prefix`` is the srcdir relative to the config folder."""
    from mdmark.pipeline.extract import extract

    parts = extract(doctree, docname, metadata, source, env, tuple(env.config.source_suffix) if env is not None else (".md",))
    lines = source.splitlines()

    def line_text(line: int | None) -> str:
        return lines[line - 1] if line and 1 <= line <= len(lines) else ""

    title = parts["title"]
    if isinstance(title, str):
        parts["title"] = _unsmart(title, line_text(parts["title_line"]))
    parts["headings"] = [
        replace(h, title=_unsmart(h.title, line_text(h.line))) for h in cast(list[Heading], parts["headings"])
    ]
    parts["text"] = [TextRun(r.line, _unsmart(r.text, line_text(r.line))) for r in cast(list[TextRun], parts["text"])]
    parts["links"] = [
        replace(link, path=_reframe(link.path, prefix), doc=_reframe(link.doc, prefix))
        for link in cast(list[Link], parts["links"])
    ]
    # Docnames are the config folder's (the project mdmark checks), not Sphinx's srcdir's.
    parts["toctrees"] = [
        replace(
            tree,
            entries=tuple(
                replace(e, target=_reframe(e.target, prefix) or e.target) if e.kind in ("doc", "glob") else e
                for e in tree.entries
            ),
        )
        for tree in cast(list[Toctree], parts["toctrees"])
    ]
    parts["images"] = [replace(img, path=_reframe(img.path, prefix)) for img in cast(list[Image], parts["images"])]
    # Sphinx itself reports the warnings of the documents it reads (with its own types), so they
    # are not repeated here as `syntax` drift.
    return DocFacts(path=relpath, sha=hashlib.sha256(data).hexdigest(), chars=len(source), warnings=[], **parts)


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    state = get_state(app)
    root = state.root
    if root is None or not app.config.mdmark_check:
        return
    env = app.env
    docname = env.docname
    path = Path(env.doc2path(docname)).resolve()
    try:
        data = path.read_bytes()
    except OSError:
        return  # Sphinx has already said it cannot read the file
    source = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    relpath = posixpath.relpath(path.as_posix(), root.as_posix())
    prefix = posixpath.relpath(Path(env.srcdir).resolve().as_posix(), root.as_posix())
    metadata = dict(env.metadata.get(docname, {}))
    stored(env)[docname] = facts_from_doctree(doctree, docname, metadata, source, data, relpath, prefix, env)


def on_env_purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    stored(env).pop(docname, None)


def on_env_merge_info(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    theirs = stored(other)
    mine = stored(env)
    for docname in docnames:
        if docname in theirs:
            mine[docname] = theirs[docname]
