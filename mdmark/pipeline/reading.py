"""Reading one document with Sphinx: the worker's side of the pipeline (:mod:`mdmark.pipeline.tasks`
runs it; the process that answers never does).

One Sphinx application per (source folder, MyST settings) is created once per worker and reused for
every document (creating it costs far more than reading a document). Sphinx and docutils keep
global state (directive registries, the logging set-up), so every use of an application happens in
a :func:`mdmark.host.session.session` (under :data:`~mdmark.host.session.SPHINX_LOCK`)."""

from __future__ import annotations

import os
import pickle
import posixpath
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.config.main import MarkdownSettings
from mdmark.core.facts import DocFacts, Warning
from mdmark.host.session import SPHINX_LOCK, session
from mdmark.util import landlock
from mdmark.util.files import file_stamp

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx


def docname_of(relpath: str) -> str:
    """Sphinx's docname of a source file path relative to the source folder (its suffix dropped)."""
    return posixpath.splitext(relpath)[0]


class App:
    """A Sphinx application bound to one source folder."""

    def __init__(
        self,
        srcdir: Path,
        settings: MarkdownSettings,
        workdir_base: Path | None = None,
        conf: Path | None = None,
        root: Path | None = None,
        trusted: bool = False,
        pins: str | None = None,
    ) -> None:
        from mdmark.host.confine import install
        from mdmark.host.linebreaks import enable
        from mdmark.host.app import create_app

        self.workdir = Path(tempfile.mkdtemp(prefix="mdmark-sphinx-", dir=workdir_base))
        # The scratch folder (Sphinx's doctree pickles) goes when the app goes or the process ends.
        weakref.finalize(self, shutil.rmtree, self.workdir, True)
        self.sphinx, self.info = create_app(srcdir, settings, conf, self.workdir, trusted, root, pins)
        self.srcdir = srcdir
        self.conf = conf
        #: The text the pipeline hashed, per docname being read: Sphinx reads the file again, and
        #: the file may change in between (an editor saving while the server reads).
        self._texts: dict[str, str] = {}
        from mdmark.util.capture import project_output

        with session(self.sphinx), project_output():  # what these log is the app's, not the caller's
            enable(self.sphinx)  # export and build join lines split between Japanese characters
            install(self.sphinx, root)  # {include} and friends read only inside the project root
            self.sphinx.connect("source-read", self._source_read)

    def _source_read(self, app: Sphinx, docname: str, source: list[str]) -> None:
        text = self._texts.get(docname)
        if text is not None:
            source[0] = text

    def read(self, docname: str, text: str | None = None) -> tuple[nodes.document, list[Warning]]:
        """Read one document (re-reading it cleanly if read before); returns its doctree and warnings.

        ``text`` is the document's content as the caller hashed it (default: the file as Sphinx reads it).
        """
        from mdmark.host.app import ensure_known
        from mdmark.host.accessors import take_doctree
        from mdmark.host.catalogs import catalogs_read

        from mdmark.util.capture import project_output
        from mdmark.util.conflock import conf_lock

        app = self.sphinx
        env = app.env
        with session(app) as warnings, conf_lock(self.conf, shared=True), project_output():
            if docname in env.all_docs:
                app.events.emit("env-purge-doc", env, docname)
                env.clear_doc(docname)
            if text is not None:
                self._texts[docname] = text
            ensure_known(app, docname)
            try:
                with catalogs_read(app, docname):  # a translated project's catalog is an input too
                    app.builder.read_doc(docname)
            finally:
                self._texts.pop(docname, None)
            return take_doctree(env, docname), list(warnings)

    def attach(self, tree: nodes.document, path: Path, docname: str) -> None:
        """Attach a doctree read before (cached, or just read) to the application's environment for
        rendering, and run on it what only the fragments need of Sphinx (the read served the facts)."""
        from sphinx.util.docutils import LoggingReporter

        from mdmark.host.profiles import apply_at_render

        tree.settings.env = self.sphinx.env
        tree.reporter = LoggingReporter(str(path))
        with SPHINX_LOCK:
            apply_at_render(self.sphinx, tree, docname)



def parse_guarded(
    app: App, relpath: str, key: str, text: str, pickled: bool = True
) -> tuple[DocFacts, bytes, nodes.document | None]:
    """:func:`_parse_with`, but a document that makes MyST or Sphinx fail comes back as facts with
    ``error`` set (and no doctree), so one document never stops the others."""
    try:
        return _parse_with(app, relpath, key, text, pickled)
    except MemoryError:
        raise  # the worker reports it as its memory bound
    except Exception as exc:  # any parser/extension failure: report it for this document only
        from mdmark.host.accessors import forget_document

        try:
            forget_document(app.sphinx.env, docname_of(relpath))
        except Exception:  # noqa: S110 - best effort: the next read of the document purges it again
            pass
        message, line = _stopped(relpath, text, exc)
        return DocFacts(path=relpath, sha=key, chars=len(text), error=message, error_line=line), b"", None


def _stopped(relpath: str, text: str, exc: Exception) -> tuple[str, int | None]:
    """The sentence (and line) for a document whose reading raised ``exc``: a write or read the
    kernel refused a confined worker, front matter YAML that cannot be read (a control character, a
    broken mapping) in Japanese with its line, anything else with the library's own words quoted."""
    import yaml

    if isinstance(exc, PermissionError) and landlock.refused(exc):
        return f"`{relpath}` を読む途中で{landlock.denied_sentence(exc)}", None

    if isinstance(exc, yaml.reader.ReaderError):
        # Its position counts characters of the front matter, which starts after the ``---`` line.
        start = text.find("\n") + 1
        line = text.count("\n", 0, start + exc.position) + 1
        return f"`{relpath}` の front matter に YAML が許さない文字 U+{exc.character:04X} があるので、その文字を消してください。", line
    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        return f"`{relpath}` の front matter を YAML として読めないので、その行の書き方を直してください。", (
            mark.line + 2 if mark is not None else None
        )
    words = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return (
        f"`{relpath}` を読む途中で MyST・Sphinx が止まった（ライブラリの言葉で「{words}」）ので、この文書の記法を確かめてください。",
        None,
    )


def _parse_with(
    app: App, relpath: str, key: str, text: str, pickled: bool = True
) -> tuple[DocFacts, bytes, nodes.document]:
    """The document's facts, its doctree pickled for the cache (``b""`` unless ``pickled``) and the
    doctree itself."""
    from mdmark.host.notebook_glue import glue_outputs
    from mdmark.pipeline.build_products import embed_build_products
    from mdmark.pipeline.elements import elements_of
    from mdmark.pipeline.extract import extract
    from mdmark.pipeline.reading_warnings import highlight_warnings, math_warnings

    docname = docname_of(relpath)
    doctree, warnings = app.read(docname, text)
    env = app.sphinx.env
    metadata = dict(env.metadata.get(docname, {}))
    elements = elements_of(doctree)
    # The folder Sphinx builds in (``out``, ``doctrees``) and extensions write beside (``jupyter_execute``).
    embed_build_products(doctree, Path(app.srcdir), Path(env.doctreedir).parent, elements)
    parts = extract(doctree, docname, metadata, text, env, app.info.source_suffixes, elements)
    # What Sphinx would say only while writing (an unknown code language), said at reading.
    warnings = [*warnings, *highlight_warnings(doctree, text, elements), *math_warnings(doctree, text, elements)]
    # What the document pulled in ({include}, {literalinclude}, images): a change re-parses it.
    # Relative to the source folder, as the documents are: Sphinx records an {include}d file by its
    # absolute path, and "is this file included somewhere" (toc.not_included) asks by relative path.
    srcdir = os.fspath(app.srcdir)
    found = (os.fspath(d) for d in env.dependencies.get(docname, ()))
    deps = sorted({_relative(d, srcdir) if os.path.isabs(d) else d for d in found} - {relpath})
    stamps = [(rel, file_stamp(app.srcdir / rel)) for rel in deps]
    glue = glue_outputs(env, docname)
    facts = DocFacts(path=relpath, sha=key, chars=len(text), warnings=warnings, deps=stamps, glue=glue, **parts)
    # Keep the doctree without its environment so it pickles and can be re-attached later.
    doctree.settings.env = None
    doctree.reporter = None
    doctree.transformer = None
    return facts, pickle.dumps(doctree, pickle.HIGHEST_PROTOCOL) if pickled else b"", doctree


def refused_facts(key: str, rel: str, text: str) -> DocFacts | None:
    """Facts saying why a document nested too deep or holding too many headings is not parsed
    (before any parser sees it), or None to parse it."""
    from mdmark.pipeline.nesting import headings_sentence, nesting_sentence, refused

    found = refused(text)
    if found is None:
        return None
    what, line = found
    sentence = nesting_sentence(rel, line) if what == "nesting" else headings_sentence(rel, line)
    return DocFacts(path=rel, sha=key, chars=len(text), error=sentence, error_line=line)


def _relative(path: str, srcdir: str) -> str:
    return posixpath.normpath(os.path.relpath(path, srcdir).replace(os.sep, "/"))
