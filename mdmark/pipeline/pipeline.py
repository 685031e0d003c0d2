"""The one way through: Markdown → MyST (+ sphinx-design) → docutils doctree → facts.

Documents are untrusted input, so they are parsed and rendered only in the bounded worker
processes of :mod:`mdmark.pipeline.workers` (memory, CPU and wall-clock limits; a worker that passes one
is killed and the document gets one sentence). The process that answers (the CLI, the MCP
server) keeps the results: in memory for the life of the process (the server), and on disk in
the user's cache folder (:mod:`mdmark.pipeline.cachestore`, entries authenticated, written by the
workers), so an unchanged document is never parsed twice and a warm call needs no worker.

In a worker, one Sphinx application per (source folder, MyST settings) is created once and reused
for every document (creating it costs far more than reading a document). Sphinx and docutils keep
global state (directive registries, the logging set-up), so every use of an application happens
in a :func:`mdmark.host.session.session` (under :data:`SPHINX_LOCK`), which a worker holds only
for its own parse. Cached results are read without it."""


from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import posixpath
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mdmark import __version__
from mdmark.pipeline.contentcache import ContentCache, raw
from mdmark.config.main import MarkdownSettings
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import FACTS_VERSION, DocFacts, Warning
from mdmark.util import landlock
from mdmark.util.files import file_stamp, resolve_many
# SPHINX_LOCK lives with the rest of the Sphinx host; importable from here as before.
from mdmark.host.session import SPHINX_LOCK as SPHINX_LOCK
from mdmark.pipeline.sources import Sources
from mdmark.host.confinfo import ConfInfo
from mdmark.host.session import session
from mdmark.pipeline.workers import in_worker

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

    from mdmark.util.landlock import Confinement

C = TypeVar("C", bound=ContentCache[Any])

#: Seconds a document that passed a worker's bound is answered with the same sentence without
#: parsing it again (while its bytes are unchanged).
FAILED_SECONDS = 60.0
MAX_FAILED = 1000


class _App:
    """A Sphinx application bound to one source folder."""

    def __init__(
        self,
        srcdir: Path,
        settings: MarkdownSettings,
        workdir_base: Path | None = None,
        conf: Path | None = None,
        root: Path | None = None,
        trusted: bool = False,
    ) -> None:
        from mdmark.host.confine import install
        from mdmark.host.linebreaks import enable
        from mdmark.host.app import create_app

        self.workdir = Path(tempfile.mkdtemp(prefix="mdmark-sphinx-", dir=workdir_base))
        # The scratch folder (Sphinx's doctree pickles) goes when the app goes or the process ends.
        weakref.finalize(self, shutil.rmtree, self.workdir, True)
        self.sphinx, self.info = create_app(srcdir, settings, conf, self.workdir, trusted, root)
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
                app.builder.read_doc(docname)
            finally:
                self._texts.pop(docname, None)
            return take_doctree(env, docname), list(warnings)


def docname_of(relpath: str) -> str:
    """Sphinx's docname of a source file path relative to the source folder (its suffix dropped)."""
    return posixpath.splitext(relpath)[0]


def cache_key(relpath: str, data: bytes, settings: MarkdownSettings, conf: str = "") -> str:
    """The key of one document's parse: its bytes, the settings and the conf.py (``conf``: its digest)."""
    digest = hashlib.sha256()
    for part in (__version__, FACTS_VERSION, settings.key(), conf, relpath):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


def _parse_task(pipeline: Pipeline, job: tuple[str, str, str, bool, bool]) -> tuple[str, dict[str, Any], bytes]:
    """One document parsed in a worker process (and cached there, on disk too): its key, facts
    (as JSON data) and pickled doctree (``b""`` when the job says the tree is not kept or not sent:
    a cold check wants only the facts, and sending every tree back cost the workers their
    writes into a pipe this process drained slowly, and it memory it never used)."""
    key, relpath, text, keep_tree, send_tree = job
    facts, tree = pipeline._parse_full(key, relpath, text, keep_tree)
    return key, facts.to_json(), tree if send_tree else b""


def _directives_task(pipeline: Pipeline, _job: None) -> dict[str, tuple[str, ...]]:
    """The directives the worker's application knows, with their options."""
    return pipeline.directives()


def _conf_info_task(pipeline: Pipeline, _job: None) -> dict[str, Any]:
    """The worker's Sphinx configuration (conf.py runs there, under the worker's limits)."""
    return pipeline.conf_info().to_json()


def _parse_guarded(
    app: _App, relpath: str, key: str, text: str, pickled: bool = True
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
    app: _App, relpath: str, key: str, text: str, pickled: bool = True
) -> tuple[DocFacts, bytes, nodes.document]:
    """The document's facts, its doctree pickled for the cache (``b""`` unless ``pickled``) and the
    doctree itself."""
    from mdmark.pipeline.extract import elements_of, embed_build_products, extract, highlight_warnings, math_warnings

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
    facts = DocFacts(path=relpath, sha=key, chars=len(text), warnings=warnings, deps=stamps, **parts)
    # Keep the doctree without its environment so it pickles and can be re-attached later.
    doctree.settings.env = None
    doctree.reporter = None
    doctree.transformer = None
    return facts, pickle.dumps(doctree, pickle.HIGHEST_PROTOCOL) if pickled else b"", doctree


def _too_deep(key: str, rel: str, text: str) -> DocFacts | None:
    """Facts saying why a document nested too deep is not parsed (before any parser sees it), or
    None to parse it."""
    from mdmark.pipeline.nesting import nesting_sentence, too_deep

    line = too_deep(text)
    if line is None:
        return None
    return DocFacts(path=rel, sha=key, chars=len(text), error=nesting_sentence(rel, line), error_line=line)


def _relative(path: str, srcdir: str) -> str:
    return posixpath.normpath(os.path.relpath(path, srcdir).replace(os.sep, "/"))


class Pipeline:
    """Parses the Markdown documents under one source folder with one set of MyST settings."""

    def __init__(
        self,
        srcdir: Path,
        settings: MarkdownSettings,
        cache_dir: Path | None = None,
        conf: Path | None = None,
        scratch: Path | None = None,
        trusted: str | None = None,
    ) -> None:
        """``scratch``: where the Sphinx application's scratch folder goes (a worker's, which its
        parent removes), else a temporary folder removed with the pipeline. ``trusted``: the trust
        fingerprint of ``conf`` when the user trusts it (:mod:`mdmark.host.trust`) — only then does
        conf.py run; otherwise it is read statically."""
        from mdmark.host.confine import project_root
        from mdmark.host.confinfo import conf_digest

        #: Where embedded files must lie (the guide page ``untrusted``): the config folder's git work tree, else the
        #: config folder — with a conf.py too, whose folder is only the source folder.
        self.project_root = project_root(srcdir.resolve())
        #: The folder the pipeline was asked for (the config folder), before conf.py's replaces it.
        self.config_root = srcdir.resolve()
        #: With a conf.py, its folder is the source folder, as for ``sphinx-build``.
        self.conf = conf.resolve() if conf is not None else None
        self.srcdir = self.conf.parent if self.conf is not None else srcdir.resolve()
        self.settings = settings
        self.cache_dir = cache_dir
        #: The trust fingerprint conf.py runs under; None: read statically, never run.
        self.trusted = trusted if self.conf is not None else None
        self.conf_key = conf_digest(self.conf, self.trusted)
        self._scratch = scratch
        #: The doctree object of the last parse, by its key, until doctree() takes it.
        self._fresh: tuple[str, nodes.document] | None = None
        self._app: _App | None = None
        self._info: ConfInfo | None = None
        #: Facts and doctrees by cache key (a doctree's facts are only ever written after it).
        self._facts: ContentCache[DocFacts] = ContentCache(
            cache_dir, ".json", _encode_facts, _decode_facts, slot_of=lambda facts: facts.path
        )
        self._trees: ContentCache[bytes] = ContentCache(cache_dir, ".doctree", raw, raw)
        self._conf_infos: ContentCache[ConfInfo] = ContentCache(cache_dir, ".conf.json", _encode_info, _decode_info)
        #: Caches of what other modules derive from this pipeline's documents (HTML fragments), by name.
        self._derived: dict[str, ContentCache[Any]] = {}
        self._derived_lock = threading.Lock()
        #: What a workspace snapshot held of derived caches not made yet, by name (slot → (key, value)).
        self._derived_held: dict[str, dict[str, tuple[str, Any]]] = {}
        #: The documents' files: their names, content keys and text.
        self.sources = Sources(
            self.srcdir,
            self.conf,
            lambda rel, data: cache_key(rel, data, settings, self.conf_key),
            lambda: self.conf_info().source_suffixes,
        )
        #: How many documents this pipeline actually parsed (cache misses) — for tests and benchmarks.
        self.parse_count = 0
        #: Documents whose worker passed a bound, by content key: (when, facts with the sentence).
        #: Parsing the same bytes again soon would only pass it again (and wait for it again).
        self._failed: dict[str, tuple[float, DocFacts]] = {}
        self._cache_ready = False
        #: The directives a worker's application knows (:meth:`directives`), once asked.
        self._directives: dict[str, tuple[str, ...]] | None = None

    # -- the application -------------------------------------------------------------------

    @property
    def app(self) -> Sphinx:
        """The Sphinx application (created on first use). Use it only under :data:`SPHINX_LOCK`."""
        return self._get_app().sphinx

    def _get_app(self) -> _App:
        with SPHINX_LOCK:
            if self._app is None:
                self._app = _App(
                    self.srcdir, self.settings, self._scratch, conf=self.conf, root=self.project_root,
                    trusted=self.trusted is not None,
                )  # fmt: skip
                self._info = self._app.info
                self._store_info(self._app.info)
            return self._app

    def warm_up(self) -> None:
        """Create the application now (conf.py and every extension's ``setup()`` run): a worker
        pool's zygote does, so the workers it forks start with it (:mod:`mdmark.pipeline.workers`)."""
        self._get_app()

    def directives(self) -> dict[str, tuple[str, ...]]:
        """The directives documents here can use, with their options (see :func:`directive_options`).

        Asked of a worker, as the configuration is: conf.py and the extensions' ``setup()`` run
        there, under its limits and its confinement, never in the process that answers (the
        language server asks this for completion)."""
        if in_worker():
            from mdmark.host.accessors import directive_options

            return directive_options(self.app)
        if self._directives is None:
            from mdmark.pipeline.workers import Failed, limit_message, run_bounded

            outcome = run_bounded(self, _directives_task, [None])[0]
            if isinstance(outcome, Failed):
                raise MdmarkError(limit_message(self.conf.name if self.conf is not None else "conf.py", outcome))
            self._directives = outcome
        return self._directives

    def conf_info(self) -> ConfInfo:
        """What check, export and build need of the Sphinx configuration, without running conf.py
        again when an earlier run already did (cached by the digest of conf.py)."""
        from mdmark.host.confinfo import info_for_settings

        if self._info is not None:
            return self._info
        if self.conf is None:
            self._info = info_for_settings(self.settings)
            return self._info
        cached = self._conf_infos.get(self._info_key(), keep=False)
        if cached is not None:
            self._info = cached
            return cached
        if in_worker():
            return self._get_app().info
        # conf.py runs in a worker, under its limits, never in the process that answers.
        from mdmark.pipeline.workers import Failed, limit_message, run_bounded

        outcome = run_bounded(self, _conf_info_task, [None])[0]
        if isinstance(outcome, Failed):
            raise MdmarkError(limit_message(self.conf.name, outcome), exit_code=2)
        self._info = ConfInfo.from_json(outcome)
        self._store_info(self._info)
        return self._info

    def _info_key(self) -> str:
        return hashlib.sha256(f"conf\0{__version__}\0{FACTS_VERSION}\0{self.conf_key}\0{self.settings.key()}".encode()).hexdigest()

    def _store_info(self, info: ConfInfo) -> None:
        if self.conf is not None:
            self._conf_infos.write(self._info_key(), info)

    def content_cache(self, name: str, make: Callable[[Path | None], C]) -> C:
        """The cache ``name`` of things derived from this pipeline's documents, made by ``make`` (given
        the cache folder) on first use: it lives as long as the pipeline."""
        with self._derived_lock:
            cache = self._derived.get(name)
            if cache is None:
                cache = self._derived[name] = make(self.cache_dir)
                cache.adopt_memory(self._derived_held.pop(name, {}))
        return cache  # type: ignore[return-value]

    def facts_memory(self) -> ContentCache[DocFacts]:
        """The facts held in memory by content key (a workspace snapshot keeps and restores them)."""
        return self._facts

    def derived_memory(self) -> dict[str, dict[str, tuple[str, Any]]]:
        """What the derived caches (:meth:`content_cache`) hold in memory, by name (for a snapshot)."""
        with self._derived_lock:
            return {**self._derived_held, **{name: cache.memory() for name, cache in self._derived.items()}}

    def adopt_derived(self, held: dict[str, dict[str, tuple[str, Any]]]) -> None:
        """Hold what :meth:`derived_memory` gave in an earlier process, for each cache once it is made."""
        with self._derived_lock:
            for name, memory in held.items():
                cache = self._derived.get(name)
                if cache is not None:
                    cache.adopt_memory(memory)
                else:
                    self._derived_held[name] = memory

    @property
    def parse_key(self) -> str:
        """What decides how documents parse here: the settings and conf.py (what a cache key holds
        besides a document's bytes)."""
        return f"{self.settings.key()}\0{self.conf_key}"

    # -- paths and raw input -----------------------------------------------------------------

    def relpath(self, path: Path) -> str:
        """The document's path relative to the source folder; refuses paths outside it or not ``.md``."""
        return self.sources.relpath(path, resolve_many([path])[0])

    def key_of(self, path: Path, real: Path | None) -> str:
        """The cache key of a document's current content (``real``: ``path`` resolved, None if its
        links loop); raises :class:`MdmarkError` when it cannot be read."""
        return self.sources.key(real or path, self.sources.relpath(path, real))[0]

    # -- the cache ------------------------------------------------------------------------------

    def _load_cached(self, key: str, want_tree: bool) -> tuple[DocFacts, bytes | None] | None:
        # Only authenticated entries are loaded (the doctree is a pickle): see mdmark.pipeline.cachestore.
        facts = self._facts.get(key, keep=False)
        if facts is None:
            return None
        tree = self._trees.get(key, keep=False) if want_tree else None
        if want_tree and tree is None:
            return None
        self._facts.remember(key, facts)
        if tree is not None:
            self._trees.remember(key, tree, facts.path)
        return facts, tree

    def _deps_fresh(self, facts: DocFacts) -> bool:
        """Whether the files the document pulled in (``{include}``, ``{literalinclude}``) are as
        they were when it was parsed: the cache key covers the document's own bytes only."""
        return all(file_stamp(self.srcdir / rel) == stamp for rel, stamp in facts.deps)

    def adopt(self, facts: DocFacts) -> None:
        """Keep in memory the facts a worker process parsed (and wrote to the disk cache)."""
        if facts.error is None:
            self._facts.remember(facts.sha, facts)

    def _store(self, key: str, facts: DocFacts, tree: bytes | None) -> None:
        """Cache facts and (unless None) the pickled doctree: the tree first, so a tree found on disk
        always has its facts."""
        self._facts.remember(key, facts)
        if tree is not None:
            self._trees.remember(key, tree, facts.path)
            if not self._trees.write(key, tree):
                return
        self._facts.write(key, facts)

    # -- parsing ----------------------------------------------------------------------------------

    def facts(self, path: Path) -> DocFacts:
        """Facts of one document; raises :class:`MdmarkError` for a file that cannot be read."""
        result = self.facts_many([path])[0]
        if result.error is not None:
            raise MdmarkError(result.error)
        return result

    def facts_many(
        self,
        paths: Sequence[Path],
        progress: Callable[[int, int], None] | None = None,
        want_trees: bool = False,
        keep_trees: bool = True,
        texts: Mapping[Path, str] | None = None,
    ) -> list[DocFacts]:
        """Facts of many documents, in the given order. Unreadable files come back with ``error`` set.

        Documents not in the cache are parsed — in worker processes (one per core) when there are many.
        ``keep_trees=False``: the doctrees of documents parsed now are not cached (the caller renders
        them at once and caches the HTML, as a cold build does); their facts are.
        ``texts``: the content of some documents (by the path given) instead of their files — an
        editor's unsaved buffers; keyed like the bytes on disk, so saving the buffer reuses the parse.
        """
        results: list[DocFacts | None] = [None] * len(paths)
        todo: list[tuple[int, str, str, str]] = []
        #: A path named twice is parsed once; its other positions are filled in at the end.
        repeats: list[tuple[int, int]] = []
        first_of: dict[str, int] = {}
        for i, (path, real) in enumerate(zip(paths, resolve_many(paths), strict=True)):
            try:
                rel = self.sources.relpath(path, real)
                given = texts.get(path) if texts is not None else None
                known_text: str | None
                if given is not None:
                    key, known_text = self.sources.text_key(given, rel)
                else:
                    key, known_text = self.sources.key(real or path, rel)
            except MdmarkError as exc:
                results[i] = DocFacts(path=path.as_posix(), sha="", error=exc.message)
                continue
            if key in first_of:
                repeats.append((i, first_of[key]))
                continue
            first_of[key] = i
            failed = self._failed.get(key)
            if failed is not None and time.monotonic() - failed[0] < FAILED_SECONDS:
                results[i] = failed[1]
                continue
            hit = self._load_cached(key, want_trees)
            if hit is not None and self._deps_fresh(hit[0]):
                results[i] = hit[0]
                continue
            if known_text is None:
                # Known by its stat but no longer cached: read it now (the bytes decide the key).
                try:
                    key, known_text = self.sources.read_keyed(real or path, rel)
                except MdmarkError as exc:
                    results[i] = DocFacts(path=path.as_posix(), sha="", error=exc.message)
                    continue
            refused = _too_deep(key, rel, known_text)
            if refused is not None:
                results[i] = refused
                continue
            todo.append((i, key, rel, known_text))
        done = len(paths) - len(todo) - len(repeats)
        if progress:
            progress(done, len(paths))
        if todo and not in_worker():
            from mdmark.pipeline.workers import run_bounded

            def parsed(n: int, outcome: Any) -> None:
                nonlocal done
                i, key, rel, text = todo[n]
                results[i] = self._adopt_parsed(key, rel, text, outcome, keep_trees)[0]
                done += 1
                if progress:
                    progress(done, len(paths))

            # In the bounded worker processes: this process holds no lock meanwhile, and a document
            # that passes a bound gets its sentence as ``error``.
            self._prepare_cache()
            # The biggest documents first: a big one started last would leave one core idle at the end.
            order = sorted(range(len(todo)), key=lambda n: -len(todo[n][3]))
            # Trees come back only when asked for, or when there is no disk cache to read them from later.
            send = want_trees or self.cache_dir is None
            jobs = [(todo[n][1], todo[n][2], todo[n][3], keep_trees, send) for n in order]
            run_bounded(self, _parse_task, jobs, done=lambda n, outcome: parsed(order[n], outcome))
        else:
            for i, key, rel, text in todo:
                results[i] = self._parse_full(key, rel, text, keep_trees)[0]
                done += 1
                if progress:
                    progress(done, len(paths))
        for i, first in repeats:
            results[i] = results[first]
            done += 1
            if progress:
                progress(done, len(paths))
        return [r for r in results if r is not None]

    def _parse_full(self, key: str, rel: str, text: str, keep_tree: bool = True) -> tuple[DocFacts, bytes]:
        refused = _too_deep(key, rel, text)
        if refused is not None:
            return refused, b""
        if not in_worker():
            facts, tree = self._parse_in_worker(key, rel, text, keep_tree)
            return facts, tree
        with SPHINX_LOCK:
            facts, tree, doctree = _parse_guarded(self._get_app(), rel, key, text, keep_tree)
            self.parse_count += 1
            # The next doctree() of this very content may take the object instead of unpickling a
            # copy: a cold build renders each document right after parsing it.
            self._fresh = (key, doctree) if doctree is not None else None
        if facts.error is None:
            self._store(key, facts, tree if keep_tree else None)
        else:
            # A failure goes to the disk cache only, under the same key (it holds conf.py's digest):
            # the next run must not run conf.py to fail the same way, while this process reads the
            # document again once the cause is gone (a fixed extension).
            self._facts.write(key, facts)
        return facts, tree

    @contextlib.contextmanager
    def collect_warnings(self) -> Iterator[list[Warning]]:
        """Hold :data:`SPHINX_LOCK` and gather the Sphinx warnings of the block (post-transforms,
        HTML translation) into the yielded list, as a read's warnings are.

        Sphinx's logging set-up is global to the process; the session points it at this pipeline's
        app, so warnings land here even when several pipelines (source folders) live in one process.
        """
        with SPHINX_LOCK, session(self._get_app().sphinx) as found:
            yield found

    def worker_spec(self) -> tuple[Callable[..., Pipeline], tuple[object, ...]]:
        """How a worker process makes its own pipeline for the same project and settings (and the
        same trust: a worker runs conf.py only when this pipeline does)."""
        # A module-level function, not a functools.partial: the worker keeps its pipelines by this
        # spec, and a partial is a new object (never equal) every time it is unpickled. The conf
        # key is in it because workers and their zygote outlive an edit of an untrusted conf.py
        # (read statically, so ``trusted`` stays None): the edit must reach new workers.
        return _worker_pipeline, (self.config_root, self.settings, self.cache_dir, self.conf, self.trusted, self.conf_key)

    def worker_confinement(self) -> Confinement:
        """What this project's worker processes may touch (:mod:`mdmark.util.landlock`): read the
        project, write its cache folder, read the cache key — and write inside the project when the
        user trusts conf.py, as ``sphinx-build`` lets it."""
        from mdmark.pipeline.cachestore import secret_key, user_cache_root
        from mdmark.util.landlock import Confinement

        from mdmark.util.conflock import ensure_lock

        read = tuple(dict.fromkeys(str(p) for p in (self.project_root, self.config_root, self.srcdir)))
        write: tuple[str, ...] = read if self.trusted is not None else ()
        lock = ensure_lock(self.conf) if self.conf is not None else None
        if lock is not None:  # the workers order their runs of conf.py by this file (mdmark.util.conflock)
            write += (str(lock),)
        files: tuple[str, ...] = ()
        self._prepare_cache()
        if self._cache_ready and self.cache_dir is not None:
            try:
                secret_key()  # made here: a worker may read the key, not create it
            except OSError:
                pass
            else:
                write += (str(self.cache_dir),)
                files = (str(user_cache_root() / "key"),)
        return Confinement(read=read, write=write, files=files, trusted=self.trusted is not None)

    def _prepare_cache(self) -> None:
        """Make the cache folder (with its .gitignore) here, once, before workers write into it."""
        if self.cache_dir is None or self._cache_ready:
            return
        from mdmark.pipeline.contentcache import ensure_cache_dir

        try:
            ensure_cache_dir(self.cache_dir)
        except OSError:
            return  # the cache is an optimisation: the workers' writes fail quietly too
        self._cache_ready = True

    def _parse_in_worker(self, key: str, rel: str, text: str, keep_tree: bool) -> tuple[DocFacts, bytes]:
        from mdmark.pipeline.workers import run_bounded

        self._prepare_cache()
        outcome = run_bounded(self, _parse_task, [(key, rel, text, keep_tree, True)])[0]
        return self._adopt_parsed(key, rel, text, outcome, keep_tree)

    def _adopt_parsed(self, key: str, rel: str, text: str, outcome: Any, keep_tree: bool) -> tuple[DocFacts, bytes]:
        """Facts and tree a worker parsed (and wrote to the disk cache), kept in memory here; a
        :class:`~mdmark.pipeline.workers.Failed` becomes facts with its sentence as ``error``."""
        from mdmark.pipeline.workers import Failed, limit_message

        self.parse_count += 1
        if isinstance(outcome, Failed):
            facts = DocFacts(path=rel, sha=key, chars=len(text), error=limit_message(rel, outcome))
            if outcome.reason not in ("error", "refused"):
                while len(self._failed) >= MAX_FAILED:
                    self._failed.pop(next(iter(self._failed)))
                self._failed[key] = (time.monotonic(), facts)
            return facts, b""
        _, facts_json, tree = outcome
        facts = DocFacts.from_json(facts_json)
        if facts.error is None:  # a failure is not cached: a fixed extension may read it next time
            self._facts.remember(key, facts)
            if keep_tree and tree:
                self._trees.remember(key, tree, facts.path)
        return facts, tree

    def doctree(self, path: Path) -> nodes.document:
        """A fresh copy of the document's doctree (before post-transforms), attached to the app's env.

        Callers transform and render it under :data:`SPHINX_LOCK`.
        """
        return self.doctree_and_text(path)[0]

    def doctree_and_text(self, path: Path) -> tuple[nodes.document, str]:
        """:meth:`doctree`, and the text it was read from (one read: the renderer quotes its lines)."""
        from sphinx.util.docutils import LoggingReporter

        from mdmark.host.profiles import apply_at_render

        rel = self.relpath(path)
        key, text = self.sources.read_keyed(path, rel)
        with SPHINX_LOCK:
            just_parsed, self._fresh = self._fresh, None
        if just_parsed is not None and just_parsed[0] == key:
            tree: nodes.document = just_parsed[1]  # parsed a moment ago from these very bytes
        else:
            tree = self._tree(key, rel, text)
        app = self._get_app()
        tree.settings.env = app.sphinx.env
        tree.reporter = LoggingReporter(str(path))
        with SPHINX_LOCK:
            # The read served the facts; what only the fragments need of Sphinx runs now.
            apply_at_render(app.sphinx, tree, docname_of(rel))
        return tree, text

    def _tree(self, key: str, rel: str, text: str) -> nodes.document:
        """A fresh copy of the doctree of ``key``: from the cache, else parsed now."""
        hit = self._load_cached(key, want_tree=True)
        if hit is None or hit[1] is None or not self._deps_fresh(hit[0]):
            hit = self._parse_full(key, rel, text)
            if hit[0].error is not None:
                raise MdmarkError(hit[0].error)
        assert hit[1] is not None
        tree: nodes.document
        try:
            # Authenticated bytes this user's mdmark wrote; a docutils upgrade can still make old ones unloadable.
            tree = pickle.loads(hit[1])
        except Exception:
            facts, fresh = self._parse_full(key, rel, text)
            if facts.error is not None:
                raise MdmarkError(facts.error) from None
            tree = pickle.loads(fresh)
        return tree


def _encode_facts(facts: DocFacts) -> bytes:
    return json.dumps(facts.to_json(), ensure_ascii=False).encode("utf-8")


def _decode_facts(data: bytes) -> DocFacts:
    return DocFacts.from_json(json.loads(data.decode("utf-8")))


def _encode_info(info: ConfInfo) -> bytes:
    return json.dumps(info.to_json(), ensure_ascii=False).encode("utf-8")


def _decode_info(data: bytes) -> ConfInfo:
    return ConfInfo.from_json(json.loads(data.decode("utf-8")))


def _worker_pipeline(
    srcdir: Path,
    settings: MarkdownSettings,
    cache_dir: Path | None,
    conf: Path | None,
    trusted: str | None,
    conf_key: str,
    *,
    scratch: Path,
) -> Pipeline:
    """A worker's own pipeline for :meth:`Pipeline.worker_spec` (``conf_key`` only tells specs of
    two contents of one conf.py apart; the worker reads the file itself)."""
    del conf_key
    return Pipeline(srcdir, settings, cache_dir, conf, scratch=scratch, trusted=trusted)
