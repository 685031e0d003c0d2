"""The one way through: Markdown → MyST (+ sphinx-design) → docutils doctree → facts.

Documents are untrusted input, so they are parsed and rendered only in the bounded worker
processes of :mod:`mdmark.pipeline.pool` (memory, CPU and wall-clock limits; a worker that passes one
is killed and the document gets one sentence). The process that answers (the CLI, the MCP
server) keeps the results: in memory for the life of the process (the server), and on disk in
the user's cache folder (:mod:`mdmark.pipeline.cachestore`, entries authenticated, written by the
workers), so an unchanged document is never parsed twice and a warm call needs no worker.

A :class:`Pipeline` looks up its caches, runs a worker task (:mod:`mdmark.pipeline.tasks`) for
what they lack and adopts the result. The process that answers runs the tasks in the pool; a
worker's own pipeline (:func:`worker_pipeline`, one Sphinx application per source folder and
settings, :mod:`mdmark.pipeline.reading`) runs them in its own process. Cached results are read
without :data:`SPHINX_LOCK`."""


from __future__ import annotations

import contextlib
import hashlib
import json
import pickle
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mdmark import __version__
from mdmark.pipeline.contentcache import ContentCache, raw
from mdmark.config.main import MarkdownSettings
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import FACTS_VERSION, DocFacts, Warning
from mdmark.util.files import file_stamp, resolve_many
# SPHINX_LOCK lives with the rest of the Sphinx host; importable from here as before.
from mdmark.host.session import SPHINX_LOCK as SPHINX_LOCK
from mdmark.pipeline.sources import Sources
from mdmark.host.confinfo import ConfInfo
from mdmark.host.session import session
from mdmark.pipeline.limits import Failed, limit_message
from mdmark.pipeline.pool import run_bounded
from mdmark.pipeline.reading import App, refused_facts
# Where the documents' names come from; importable from here as before.
from mdmark.pipeline.reading import docname_of as docname_of
from mdmark.pipeline.tasks import TASKS, ParseJob, Reader, Runner, run_here

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

    from mdmark.util.landlock import Confinement

C = TypeVar("C", bound=ContentCache[Any])

#: Seconds a document that passed a worker's bound is answered with the same sentence without
#: parsing it again (while its bytes are unchanged).
FAILED_SECONDS = 60.0
MAX_FAILED = 1000


def cache_key(relpath: str, data: bytes, settings: MarkdownSettings, conf: str = "") -> str:
    """The key of one document's parse: its bytes, the settings and the conf.py (``conf``: its digest)."""
    digest = hashlib.sha256()
    for part in (__version__, FACTS_VERSION, settings.key(), conf, relpath):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


class Pipeline:
    """The Markdown documents under one source folder with one set of MyST settings: their facts and
    doctrees from the caches, else from a worker task (:mod:`mdmark.pipeline.tasks`) run by the
    pipeline's runner, the result adopted into the caches."""

    def __init__(
        self,
        srcdir: Path,
        settings: MarkdownSettings,
        cache_dir: Path | None = None,
        conf: Path | None = None,
        scratch: Path | None = None,
        trusted: str | None = None,
        runner: Runner = run_bounded,
    ) -> None:
        """``scratch``: where the Sphinx application's scratch folder goes (a worker's, which its
        parent removes), else a temporary folder removed with the pipeline. ``trusted``: the trust
        fingerprint of ``conf`` when the user trusts it (:mod:`mdmark.host.trust`) — only then does
        conf.py run; otherwise it is read statically. ``runner``: how the worker tasks run — in the
        bounded worker processes, or in this process for a worker's own pipeline (:func:`run_here`)."""
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
        self._runner = runner
        #: The doctree object of the last parse, by its key, until doctree() takes it.
        self._fresh: tuple[str, nodes.document] | None = None
        self._app: App | None = None
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
        #: The parse :meth:`parse_ahead` started, until :meth:`facts_many` waits for it.
        self._ahead: threading.Thread | None = None
        #: The directives a worker's application knows (:meth:`directives`), once asked.
        self._directives: dict[str, tuple[str, ...]] | None = None

    # -- the application -------------------------------------------------------------------

    @property
    def app(self) -> Sphinx:
        """The Sphinx application (created on first use). Use it only under :data:`SPHINX_LOCK`."""
        return self.application().sphinx

    def application(self) -> App:
        """The Sphinx application bound to the source folder (created on first use)."""
        with SPHINX_LOCK:
            if self._app is None:
                self._app = App(
                    self.srcdir, self.settings, self._scratch, conf=self.conf, root=self.project_root,
                    trusted=self.trusted is not None, pins=self.trusted,
                )  # fmt: skip
                self._info = self._app.info
                self._store_info(self._app.info)
            return self._app

    def warm_up(self) -> None:
        """Create the application now (conf.py and every extension's ``setup()`` run): a worker
        pool's zygote does, so the workers it forks start with it (:mod:`mdmark.pipeline.zygote`)."""
        self.application()

    def directives(self) -> dict[str, tuple[str, ...]]:
        """The directives documents here can use, with their options (see :func:`directive_options`).

        Asked of a worker, as the configuration is: conf.py and the extensions' ``setup()`` run
        there, under its limits and its confinement, never in the process that answers (the
        language server asks this for completion)."""
        if self._directives is None:
            outcome = self.run("directives", [None])[0]
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
        # conf.py runs in a worker, under its limits, never in the process that answers.
        outcome = self.run("conf_info", [None])[0]
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

    def store(self, key: str, facts: DocFacts, tree: bytes | None) -> None:
        """Cache facts and (unless None) the pickled doctree: the tree first, so a tree found on disk
        always has its facts."""
        self._facts.remember(key, facts)
        if tree is not None:
            self._trees.remember(key, tree, facts.path)
            if not self._trees.write(key, tree):
                return
        self._facts.write(key, facts)

    def store_failure(self, key: str, facts: DocFacts) -> None:
        """Cache on disk only the facts of a document whose reading failed (see :func:`~mdmark.pipeline.tasks.parse`)."""
        self._facts.write(key, facts)

    def hold_fresh(self, key: str, doctree: nodes.document | None) -> None:
        """Keep the doctree just read from the content of ``key`` for :meth:`doctree` (under :data:`SPHINX_LOCK`)."""
        self._fresh = (key, doctree) if doctree is not None else None

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
        self._await_ahead()
        results: list[DocFacts | None] = [None] * len(paths)
        todo: list[tuple[int, str, str, str]] = []
        #: A path named twice is parsed once; its other positions are filled in at the end.
        repeats: list[tuple[int, int]] = []
        first_of: dict[str, int] = {}
        for i, (path, real) in enumerate(zip(paths, resolve_many(paths), strict=True)):
            keyed = self._keyed(path, real, texts.get(path) if texts is not None else None)
            if isinstance(keyed, DocFacts):
                results[i] = keyed
            elif keyed[0] in first_of:
                repeats.append((i, first_of[keyed[0]]))
            else:
                first_of[keyed[0]] = i
                known = self._known(path, real, *keyed, want_trees)
                if isinstance(known, DocFacts):
                    results[i] = known
                else:
                    todo.append((i, *known))
        done = len(paths) - len(todo) - len(repeats)
        if progress:
            progress(done, len(paths))

        def parsed(n: int, outcome: Any) -> None:
            nonlocal done
            i, key, rel, text = todo[n]
            results[i] = self._adopt_parsed(key, rel, text, outcome, keep_trees)[0]
            done += 1
            if progress:
                progress(done, len(paths))

        if todo:
            self._parse_all([(key, rel, text) for _, key, rel, text in todo], want_trees, keep_trees, parsed)
        for i, first in repeats:
            results[i] = results[first]
            done += 1
            if progress:
                progress(done, len(paths))
        return [r for r in results if r is not None]

    def parse_ahead(self, paths: Sequence[Path]) -> threading.Thread | None:
        """Start parsing ``paths`` (documents the caller will surely ask :meth:`facts_many` about,
        as read now) in a worker, in a thread of this process, and return it (None: nothing to
        parse). What the caller does meanwhile (a CLI check: reading its snapshot) runs beside
        the parse; the next :meth:`facts_many` waits for it first (then finds those facts made)."""
        if self._ahead is not None or not paths:
            return None
        jobs: list[ParseJob] = []
        for path, real in zip(paths, resolve_many(paths), strict=True):
            keyed = self._keyed(path, real, None)
            if isinstance(keyed, DocFacts):
                continue
            known = self._known(path, real, *keyed, False)
            if not isinstance(known, DocFacts):
                jobs.append((*known, True, self.cache_dir is None))  # the job facts_many would hand out
        if not jobs:
            return None
        self._prepare_cache()

        def parse() -> None:
            try:
                outcomes = self.run("parse", jobs)
            except Exception:  # noqa: BLE001 - facts_many parses them again and says what stops it, once
                return
            for (key, rel, text, _keep, _send), outcome in zip(jobs, outcomes, strict=True):
                self._adopt_parsed(key, rel, text, outcome, True)

        thread = self._ahead = threading.Thread(target=parse, name="mdmark-parse-ahead", daemon=True)
        thread.start()
        return thread

    def _await_ahead(self) -> None:
        """Wait for the parse :meth:`parse_ahead` started, if any."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            ahead.join()

    def _keyed(self, path: Path, real: Path | None, given: str | None) -> DocFacts | tuple[str, str, str | None]:
        """The content key, relative path and (when read already) text of a document; facts with
        ``error`` for one that cannot be read."""
        try:
            rel = self.sources.relpath(path, real)
            known_text: str | None
            if given is not None:
                key, known_text = self.sources.text_key(given, rel)
            else:
                key, known_text = self.sources.key(real or path, rel)
        except MdmarkError as exc:
            return DocFacts(path=path.as_posix(), sha="", error=exc.message)
        return key, rel, known_text

    def _known(
        self, path: Path, real: Path | None, key: str, rel: str, text: str | None, want_trees: bool
    ) -> DocFacts | tuple[str, str, str]:
        """The facts of a document known without parsing it (cached, failed a moment ago, unreadable,
        nested too deep), else what the parse task needs: its key, relative path and text."""
        failed = self._failed.get(key)
        if failed is not None and time.monotonic() - failed[0] < FAILED_SECONDS:
            return failed[1]
        hit = self._load_cached(key, want_trees)
        if hit is not None and self._deps_fresh(hit[0]):
            return hit[0]
        if text is None:
            # Known by its stat but no longer cached: read it now (the bytes decide the key).
            try:
                key, text = self.sources.read_keyed(real or path, rel)
            except MdmarkError as exc:
                return DocFacts(path=path.as_posix(), sha="", error=exc.message)
        return refused_facts(key, rel, text) or (key, rel, text)

    def _parse_all(
        self, todo: list[tuple[str, str, str]], want_trees: bool, keep_trees: bool, parsed: Callable[[int, Any], None]
    ) -> None:
        """The parse task for every ``(key, rel, text)`` of ``todo``; ``parsed(n, outcome)`` as each ends.

        In the bounded worker processes: this process holds no lock meanwhile, and a document that
        passes a bound gets its sentence as ``error``."""
        self._prepare_cache()
        # The biggest documents first: a big one started last would leave one core idle at the end.
        order = sorted(range(len(todo)), key=lambda n: -len(todo[n][2]))
        # Trees come back only when asked for, or when there is no disk cache to read them from later.
        send = want_trees or self.cache_dir is None
        jobs: list[ParseJob] = [(*todo[n], keep_trees, send) for n in order]
        self.run("parse", jobs, done=lambda n, outcome: parsed(order[n], outcome))

    def _parse_full(self, key: str, rel: str, text: str, keep_tree: bool = True) -> tuple[DocFacts, bytes]:
        """One document parsed by the parse task, its tree sent back."""
        refused = refused_facts(key, rel, text)
        if refused is not None:
            return refused, b""
        self._prepare_cache()
        outcome = self.run("parse", [(key, rel, text, keep_tree, True)])[0]
        return self._adopt_parsed(key, rel, text, outcome, keep_tree)

    def run(
        self,
        name: str,
        jobs: Sequence[Any],
        meanwhile: Callable[[], object] | None = None,
        done: Callable[[int, Any], None] | None = None,
    ) -> list[Any]:
        """The worker task ``name`` (:data:`~mdmark.pipeline.tasks.TASKS`) for every job, by this
        pipeline's runner; the results in job order, a :class:`~mdmark.pipeline.limits.Failed` for a
        job whose worker did not finish it (see :meth:`mdmark.pipeline.pool.Pool.run`)."""
        return self._runner(self, TASKS[name], jobs, meanwhile, done)

    @contextlib.contextmanager
    def collect_warnings(self) -> Iterator[list[Warning]]:
        """Hold :data:`SPHINX_LOCK` and gather the Sphinx warnings of the block (post-transforms,
        HTML translation) into the yielded list, as a read's warnings are.

        Sphinx's logging set-up is global to the process; the session points it at this pipeline's
        app, so warnings land here even when several pipelines (source folders) live in one process.
        """
        with SPHINX_LOCK, session(self.application().sphinx) as found:
            yield found

    def worker_spec(self) -> tuple[Callable[..., Pipeline], tuple[object, ...]]:
        """How a worker process makes its own pipeline for the same project and settings (and the
        same trust: a worker runs conf.py only when this pipeline does)."""
        # A module-level function, not a functools.partial: the worker keeps its pipelines by this
        # spec, and a partial is a new object (never equal) every time it is unpickled. The conf
        # key is in it because workers and their zygote outlive an edit of an untrusted conf.py
        # (read statically, so ``trusted`` stays None): the edit must reach new workers.
        return worker_pipeline, (self.config_root, self.settings, self.cache_dir, self.conf, self.trusted, self.conf_key)

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

    def _adopt_parsed(self, key: str, rel: str, text: str, outcome: Any, keep_tree: bool) -> tuple[DocFacts, bytes]:
        """Facts and tree a worker parsed (and wrote to the disk cache), kept in memory here; a
        :class:`~mdmark.pipeline.limits.Failed` becomes facts with its sentence as ``error``."""
        self.parse_count += 1
        if isinstance(outcome, Failed):
            facts = DocFacts(path=rel, sha=key, chars=len(text), error=limit_message(rel, outcome))
            if outcome.reason not in ("error", "refused"):
                while len(self._failed) >= MAX_FAILED:
                    self._failed.pop(next(iter(self._failed)))
                self._failed[key] = (time.monotonic(), facts)
            return facts, b""
        _, facts, tree = outcome
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
        rel = self.relpath(path)
        key, text = self.sources.read_keyed(path, rel)
        with SPHINX_LOCK:
            just_parsed, self._fresh = self._fresh, None
        if just_parsed is not None and just_parsed[0] == key:
            tree: nodes.document = just_parsed[1]  # parsed a moment ago from these very bytes
        else:
            tree = self._tree(key, rel, text)
        self.application().attach(tree, path, docname_of(rel))
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


def worker_pipeline(
    srcdir: Path,
    settings: MarkdownSettings,
    cache_dir: Path | None,
    conf: Path | None,
    trusted: str | None,
    conf_key: str,
    *,
    scratch: Path,
) -> Pipeline:
    """A worker's own pipeline for :meth:`Pipeline.worker_spec`: it runs the worker tasks in its own
    process, the worker (``conf_key`` only tells specs of two contents of one conf.py apart; the
    worker reads the file itself)."""
    del conf_key
    return Pipeline(srcdir, settings, cache_dir, conf, scratch=scratch, trusted=trusted, runner=run_here)


if TYPE_CHECKING:
    # The worker tasks read with a worker's own pipeline: it must be what they ask of a reader.
    _READER: type[Reader] = Pipeline
