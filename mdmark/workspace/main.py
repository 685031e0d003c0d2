"""A workspace: everything mdmark keeps about one project between calls.

The MCP server answers many calls on one project, and the CLI one call; both go through the same
:class:`Workspace`, which owns the pipelines (one Sphinx application and parse cache per source
folder and settings), the index model (reused while its file's stat is unchanged), the relation
graph and the name matcher (keyed by the content they came from), the per-file character
counts, which files exist under the project (:class:`FileTree`), the documents' facts by their
files' stats (:class:`StampedFacts`) and the last check's per-document parts (what a check after one
edit reuses: :mod:`mdmark.check.rules.reuse`). Nothing else in mdmark keeps state between calls: a
test asserts that no module holds a mutable cache of its own.

Every memo here is bounded and keyed by content (hashes) or by file stat, so a stale entry is
never returned, only dropped when the bound is reached.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.contentcache import ContentCache
from mdmark.util.files import SETTLED_NS, Stamp, file_stamp, settled, stat_stamp
from mdmark.util.globs import SKIP_DIRS
from mdmark.util.memo import Memo, StatMemo

if TYPE_CHECKING:
    from mdmark.config.main import MarkdownSettings
    from mdmark.core.facts import DocFacts
    from mdmark.index.model import Index
    from mdmark.index.occurrences import NameMatcher
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.workspace.relations import RelationGraph
    from mdmark.config.yamlio import YamlDoc

#: The runs of :attr:`Workspace.last_runs` a check's snapshot keeps, by the first part of their key:
#: the check's parts (:mod:`mdmark.check.rules.reuse`) and the reference model (its close-name hints).
_CHECK_RUNS = (("check",), ("reference-model",))
#: The runs of :attr:`Workspace.last_runs` no snapshot keeps: a check's lists made again cheaply
#: (its inputs, its documents, each folder's names), which only save a long-lived process time.
_PROCESS_RUNS = (("check-inputs",), ("check-documents",), ("check-folder-names",))

#: Projects one process keeps (the server usually serves one; tests open hundreds).
MAX_WORKSPACES = 16


class Workspace:
    """What mdmark keeps about the project whose config folder is ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pipelines: Memo[tuple[str, ...], Pipeline] = Memo(8)
        #: Index models by file, while the file is unchanged.
        self._indexes: StatMemo[str, Index] = StatMemo(8)
        #: Parsed YAML by content hash, when it has no disk layer to come from.
        self._yaml: Memo[str, YamlDoc] = Memo(8)
        #: Relation graphs by the digest of the index text and every document's content key.
        self.graphs: Memo[str, RelationGraph] = Memo(8)
        #: Results known to hold while the stats of the files they came from are unchanged, by name:
        #: (the index model, the documents' stamps, the files they include, those files' stamps, result).
        self.stamped: Memo[str, tuple[Any, ...]] = Memo(16)
        #: The last check's answer with its inputs' stamps, per cache folder (see mdmark.check.stored).
        self._stored_checks: Memo[str, ContentCache[dict[str, Any]]] = Memo(4)
        #: Title/alias matchers by the digest of the names they look for.
        self.matchers: Memo[str, NameMatcher] = Memo(8)
        #: Document ids whose names occur in a document: by (matcher digest, document content key).
        self.occurrences: Memo[tuple[str, str], frozenset[str]] = Memo(50_000)
        #: The built page's relation drawings (the overview and each document's neighbourhood, laid
        #: out): by the document graph's nodes, groups and edges and the page's anchors, so a
        #: rebuild after an edit that changes no relation lays out nothing (``mdmark preview``).
        self.page_graphs: Memo[Hashable, Any] = Memo(4)
        #: The built page's finished sections, by config and output file (``mdmark.builders.sections``):
        #: a rebuild fills in again only the sections whose inputs changed.
        self.page_sections: Memo[str, Any] = Memo(4)
        #: Code points per document file, while the file is unchanged.
        self._chars: StatMemo[str, int | None] = StatMemo(100_000)
        #: What files and folders exist under a folder (by folder): see :class:`FileTree`.
        self._trees: Memo[str, FileTree] = Memo(4)
        #: Documents' facts by file stat, per pipeline: see :class:`StampedFacts`.
        self._stamped_facts: Memo[int, StampedFacts] = Memo(8)
        #: The last run's per-document parts of a check or a relation graph, by what they belong to
        #: (each value validates itself against the run that reuses it: see mdmark.check.rules.memo).
        self.last_runs: Memo[Hashable, Any] = Memo(16)
        #: Whether this workspace read, and wrote, its snapshot (:mod:`mdmark.workspace.snapshot`).
        self.snapshot_read = False
        self.snapshot_written = False
        #: Whether the snapshot read was used (it verified, and was made for this mdmark and project).
        self.snapshot_used = False
        #: What was read of the snapshot, for writing the next one as a delta of it
        #: (:class:`mdmark.workspace.snapshot.Base`; None once written, or when none was read).
        self.snapshot_base: Any = None

    # -- the snapshot of the last run ------------------------------------------------------------

    def pristine(self) -> bool:
        """Whether nothing kept between calls was made here yet (a snapshot may fill the workspace)."""
        return not (len(self.last_runs) or len(self._stamped_facts) or len(self.page_sections) or len(self._trees))

    def state(self, pipeline: Pipeline, kind: str) -> dict[str, Any]:
        """What a snapshot keeps of this workspace and ``pipeline`` (see :mod:`mdmark.workspace.snapshot`):
        the memos whose entries say themselves whether they still hold (by stat stamps, content keys
        or the objects they were made from)."""
        stamped = self._stamped_facts.get(id(pipeline))
        base = {
            "sources": pipeline.sources.stamps(),
            "facts": pipeline.facts_memory().memory(),
            "stamped": stamped.known_stamps() if stamped is not None and stamped.pipeline is pipeline else {},
            # An index model read within a clock tick of its file's last change may not be of the
            # file's bytes now (a second write in the same tick keeps the stamp): not handed on.
            "indexes": [(k, v) for k, v in self._indexes.memo.items() if v[0][3] < time.time_ns() - SETTLED_NS],
            "trees": self._trees.items(),
        }
        if kind != "build":
            # A check's: its own parts and the reference model's hints (a build's pages are ten
            # times the size, and reading them would cost the check more than they save it).
            base["last_runs"] = [(k, v) for k, v in self.last_runs.items() if isinstance(k, tuple) and k[:1] in _CHECK_RUNS]
            return base
        return {
            **base,
            "last_runs": [(k, v) for k, v in self.last_runs.items() if not (isinstance(k, tuple) and k[:1] in _PROCESS_RUNS)],
            "derived": pipeline.derived_memory(),
            "graphs": self.graphs.items(),
            "matchers": self.matchers.items(),
            "occurrences": self.occurrences.items(),
            "page_graphs": self.page_graphs.items(),
            "page_sections": self.page_sections.items(),
        }

    def adopt_state(self, pipeline: Pipeline, state: dict[str, Any]) -> None:
        """Take what :meth:`state` kept in an earlier process (under whatever this one made)."""
        pipeline.sources.adopt_stamps(state["sources"])
        pipeline.facts_memory().adopt_memory(state["facts"])
        self.stamped_facts(pipeline).adopt_stamps(state["stamped"])
        self._indexes.memo.adopt(state["indexes"])
        self._trees.adopt(state["trees"])
        self.last_runs.adopt(state["last_runs"])
        if "derived" in state:  # a build's
            pipeline.adopt_derived(state["derived"])
            self.graphs.adopt(state["graphs"])
            self.matchers.adopt(state["matchers"])
            self.occurrences.adopt(state["occurrences"])
            self.page_graphs.adopt(state["page_graphs"])
            self.page_sections.adopt(state["page_sections"])

    # -- pipelines ----------------------------------------------------------------------------

    def pipeline(
        self,
        srcdir: Path,
        settings: MarkdownSettings,
        cache_dir: Path | None = None,
        conf: Path | None = None,
        trusted: str | None = None,
    ) -> Pipeline:
        """The pipeline for a source folder, settings and conf.py (an edited conf.py makes a new one)."""
        from mdmark.pipeline.pipeline import Pipeline
        from mdmark.host.confinfo import conf_digest

        # Trusted or not is part of the key: trusting (or editing) conf.py makes a new application.
        key = (str(srcdir.resolve()), settings.key(), str(cache_dir), str(conf), conf_digest(conf, trusted))
        with _REGISTRY_LOCK:  # one Sphinx application per key, even when two threads ask at once
            return self._pipelines.get_or_make(key, lambda: Pipeline(srcdir, settings, cache_dir, conf, trusted=trusted))

    def pipelines(self) -> list[Pipeline]:
        """The pipelines made so far."""
        return self._pipelines.values()

    def stored_checks(
        self, cache_dir: Path | None, encode: Callable[[dict[str, Any]], bytes], decode: Callable[[bytes], dict[str, Any]]
    ) -> ContentCache[dict[str, Any]]:
        """The stored check answers of this project (:mod:`mdmark.check.stored`), one per cache folder."""
        with _REGISTRY_LOCK:
            cache = self._stored_checks.get(str(cache_dir))
            if cache is None:
                cache = self._stored_checks.put(str(cache_dir), ContentCache(cache_dir, ".json", encode, decode, sub="checks"))
        return cache

    # -- the index ------------------------------------------------------------------------------

    def index(self, path: Path, shown: str, load: Callable[[], Index]) -> Index:
        """The index model of ``path``, made by ``load`` unless the file's stat is unchanged since."""
        return self._indexes.get_or_make(f"{path}\0{shown}", path, load)

    def parsed_yaml(self, text: str, parse: Callable[[], YamlDoc]) -> YamlDoc:
        """``parse()`` of a YAML text, kept by its content: in memory, and on disk in the user's cache
        (parsing a thousand-document index is most of a warm CLI ``check``)."""
        key = _yaml_key(text)
        hit = self._yaml.get(key)
        if hit is not None:
            return hit
        return self._yaml.put(key, cached_yaml(text, parse, key))

    # -- file facts -------------------------------------------------------------------------------

    def tree(self, root: Path) -> FileTree:
        """What exists under ``root`` (see :class:`FileTree`), kept between calls."""
        key = os.path.realpath(root)
        with _REGISTRY_LOCK:
            return self._trees.get_or_make(key, lambda: FileTree(key))

    def stamped_facts(self, pipeline: Pipeline) -> StampedFacts:
        """The documents' facts of ``pipeline`` by their files' stats (see :class:`StampedFacts`)."""
        with _REGISTRY_LOCK:
            found = self._stamped_facts.get(id(pipeline))
            if found is None or found.pipeline is not pipeline:
                found = self._stamped_facts.put(id(pipeline), StampedFacts(pipeline))
        return found

    def file_chars(self, path: str, count: Callable[[], int | None]) -> int | None:
        """``count()`` of the file at ``path``, reused while its stat is unchanged."""
        return self._chars.get_or_make(path, path, count)


#: A folder's entries: (name, kind) with kind "d" (folder), "f" (anything else that is not a link).
Entries = tuple[tuple[str, str], ...]


class FileTree:
    """Which files and folders exist under one folder, kept current at the cost of one ``stat`` per
    folder: what every answer derived from paths alone (the documents a glob finds, a file a link
    names, whether an image exists) may be reused for while :meth:`version` is unchanged.

    A folder's entries are read again when its stat changed (a file added, removed or renamed in
    it) or is too recent to trust (:func:`~mdmark.util.files.settled`); the version moves only when
    some folder's entries (names and whether each is a folder) differ, so a document saved by
    writing a new file and renaming it over the old one leaves it as it was. Folders
    :data:`~mdmark.util.globs.SKIP_DIRS` names are not walked (nothing derived from paths looks
    inside them). A tree with a symbolic link in it is not tracked (:meth:`version` gives None):
    what a link reaches changes without any stat here changing.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._folders: dict[str, tuple[tuple[int, ...] | None, Entries]] = {}
        self._version = 0
        self._links = False
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # Kept in a workspace snapshot: the folders' stamps and entries, not the lock. A folder
        # changed within a clock tick of now is kept without its stamp: the next process reads its
        # entries again (a second change in the same tick would keep the stamp).
        recent = time.time_ns() - SETTLED_NS
        with self._lock:
            folders = {
                folder: (stamp if stamp is not None and stamp[3] < recent else None, entries)
                for folder, (stamp, entries) in self._folders.items()
            }
            return {"root": self.root, "folders": folders, "version": self._version, "links": self._links}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.root = state["root"]
        self._folders = state["folders"]
        self._version = state["version"]
        self._links = state["links"]
        self._lock = threading.Lock()

    def covers(self, path: str) -> bool:
        """Whether ``path`` (absolute, normalised) is under the root and outside the skipped folders."""
        return path == self.root or _under(self.root.rstrip(os.sep) + os.sep, path)

    def version(self) -> int | None:
        """A number that stays the same while no folder's entries changed since the last call;
        None when the tree cannot be tracked (a symbolic link in it, or its root unreadable)."""
        with self._lock:
            if not self._folders:
                self._walk(self.root)
                self._version += 1
            else:
                changed = False
                for folder in list(self._folders):
                    if folder in self._folders and self._refresh(folder):
                        changed = True
                if changed:
                    self._version += 1
                    self._links = any(kind == "l" for _s, entries in self._folders.values() for _n, kind in entries)
            return None if self._links or self.root not in self._folders else self._version

    def plain_prefix(self) -> str | None:
        """The root and a separator when the tree holds no link (:meth:`version` is not None), else
        None: an absolute, normalised path that starts with it and lies outside the skipped folders
        resolves to itself (:func:`resolves_to_itself`) — no ``lstat`` of each of its folders."""
        return self.root.rstrip(os.sep) + os.sep if self.version() is not None else None

    def listing(self) -> dict[str, Entries] | None:
        """Each folder's entries as they are now (:meth:`version` reads again what changed); None
        when the tree cannot be tracked."""
        if self.version() is None:
            return None
        with self._lock:
            return {folder: entries for folder, (_stamp, entries) in self._folders.items()}

    def _refresh(self, folder: str) -> bool:
        """Read ``folder`` again if its stat says it may have changed; whether its entries did."""
        known = self._folders[folder]
        try:
            info = os.stat(folder)
        except OSError:
            self._drop(folder)
            return True
        stamp = stat_stamp(info)
        if known[0] == stamp and settled(info):
            return False
        entries = _entries(folder)
        if entries is None:
            self._drop(folder)
            return True
        self._folders[folder] = (stamp, entries)
        if entries == known[1]:
            return False
        old = {name for name, kind in known[1] if kind == "d"}
        new = {name for name, kind in entries if kind == "d"}
        for name in old - new:
            self._drop(os.path.join(folder, name))
        for name in new - old:
            self._walk(os.path.join(folder, name))
        return True

    def _walk(self, top: str) -> None:
        todo = [top]
        while todo:
            folder = todo.pop()
            try:
                info = os.stat(folder)
            except OSError:
                continue
            entries = _entries(folder)
            if entries is None:
                continue
            self._folders[folder] = (stat_stamp(info), entries)
            self._links = self._links or any(kind == "l" for _n, kind in entries)
            todo.extend(os.path.join(folder, name) for name, kind in entries if kind == "d")

    def _drop(self, top: str) -> None:
        prefix = top + os.sep
        for folder in [f for f in self._folders if f == top or f.startswith(prefix)]:
            del self._folders[folder]


def resolves_to_itself(prefix: str | None, path: str) -> bool:
    """Whether ``path`` (absolute, normalised) lies under a :meth:`FileTree.plain_prefix` ``prefix``,
    outside the folders the tree skips (which it does not look into for links)."""
    return prefix is not None and _under(prefix, path)


def _under(prefix: str, path: str) -> bool:
    """Whether ``path`` (absolute, normalised) starts with ``prefix`` (a folder and a separator) and
    no folder between them is one the file tree skips."""
    return path.startswith(prefix) and not any(part in SKIP_DIRS for part in path[len(prefix) :].split(os.sep)[:-1])


def _entries(folder: str) -> Entries | None:
    """A folder's entries, sorted (kind "l" for a symbolic link); None when it cannot be read."""
    try:
        with os.scandir(folder) as scan:
            found = []
            for entry in scan:
                if entry.is_symlink():
                    kind = "l"
                elif entry.is_dir(follow_symlinks=False):
                    kind = "d" if entry.name not in SKIP_DIRS else "s"
                else:
                    kind = "f"
                found.append((entry.name, kind))
    except OSError:
        return None
    return tuple(sorted(found))


class StampedFacts:
    """The facts of documents by their files' stats: a document whose file (and every file it
    includes) keeps its stat, settled, gets the facts it had, without its path resolved or its
    content key looked up again; the others go to the pipeline. The pipeline decides exactly so
    (a settled stat stands for the content), one document at a time.
    """

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self._known: dict[str, tuple[Stamp, DocFacts]] = {}
        self._lock = threading.Lock()

    def known_stamps(self) -> dict[str, tuple[Stamp, DocFacts]]:
        """Each document's facts with its file's stamp (what a workspace snapshot keeps)."""
        with self._lock:
            return dict(self._known)

    def adopt_stamps(self, known: dict[str, tuple[Stamp, DocFacts]]) -> None:
        """Take what an earlier process knew (its entries hold while the stamps do); this one's stay."""
        with self._lock:
            self._known = {**known, **self._known}

    def facts_many(self, paths: list[Path], progress: Callable[[int, int], None] | None = None) -> list[DocFacts]:
        """``pipeline.facts_many(paths, progress)``, asking it only about the documents whose stat changed."""
        return self.facts_settled(paths, progress)[0]

    def known(self, paths: list[Path]) -> list[DocFacts | None]:
        """The facts :meth:`facts_many` would give without asking the pipeline (None for the others)."""
        return self._lookup(paths)[0]

    def _lookup(self, paths: list[Path]) -> tuple[list[DocFacts | None], list[int], list[Stamp | None]]:
        """The kept facts of ``paths`` whose stats stand for them; the positions of the others; each stat."""
        out: list[DocFacts | None] = [None] * len(paths)
        todo: list[int] = []
        stamps: list[Stamp | None] = [None] * len(paths)
        srcdir = str(self.pipeline.srcdir)
        # One clock reading for the whole list: "settled" is judged as of the start of the call.
        recent = time.time_ns() - SETTLED_NS
        join = os.path.join
        #: Each included file's stamp, stat'ed once per call: many documents show the same images.
        dep_stamps: dict[str, Stamp] = {}
        with self._lock:
            known = self._known
            for i, path in enumerate(paths):
                text = str(path)
                try:
                    info = os.stat(text)
                except OSError:
                    todo.append(i)
                    continue
                if info.st_mtime_ns >= recent:
                    todo.append(i)  # changed too recently for its stat to stand for its content
                    continue
                stamp = stamps[i] = stat_stamp(info)
                hit = known.get(text)
                if hit is None or hit[0] != stamp:
                    todo.append(i)
                    continue
                facts = hit[1]
                for rel, stamp_then in facts.deps:
                    now = dep_stamps.get(rel)
                    if now is None:
                        now = dep_stamps[rel] = file_stamp(join(srcdir, rel))
                    if now != stamp_then:
                        todo.append(i)
                        break
                else:
                    out[i] = facts
        return out, todo, stamps

    def facts_settled(
        self, paths: list[Path], progress: Callable[[int, int], None] | None = None
    ) -> tuple[list[DocFacts], list[Stamp | None]]:
        """:meth:`facts_many`, and each file's stamp, taken before it was read (None where the file
        is missing or its stat was too recent to stand for its content)."""
        out, todo, stamps = self._lookup(paths)
        reused = len(paths) - len(todo)
        counted = None if progress is None else (lambda done, _total: progress(reused + done, len(paths)))
        if todo or progress is None:
            fresh = self.pipeline.facts_many([paths[i] for i in todo], counted) if todo else []
            with self._lock:
                for i, facts in zip(todo, fresh, strict=True):
                    out[i] = facts
                    kept = stamps[i]
                    if kept is not None and facts.error is None:
                        self._known[str(paths[i])] = (kept, facts)
                    else:
                        self._known.pop(str(paths[i]), None)
        else:
            progress(len(paths), len(paths))
        return [facts for facts in out if facts is not None], stamps


def _yaml_key(text: str) -> str:
    return hashlib.sha256(f"yaml\0{_version()}\0{text}".encode("utf-8", "surrogateescape")).hexdigest()


def cached_yaml(text: str, parse: Callable[[], YamlDoc], key: str | None = None) -> YamlDoc:
    """``parse()`` of a YAML text, from the user's cache when it was parsed before (no workspace
    needed: the config, read before the project's workspace is known, comes this way); a memo for
    :func:`~mdmark.config.yamlio.parse_yaml`."""
    from mdmark.config.yamlio import YamlDoc

    key = key or _yaml_key(text)
    cache = _yaml_cache()
    cached = cache.get(key, keep=False)
    if cached is not None and cached.get("text") == text:
        return YamlDoc.from_json(cached)
    doc = parse()
    data = doc.to_json()
    if data is not None:
        cache.write(key, data)
    return doc


def _yaml_cache() -> ContentCache[dict[str, Any]]:
    """Parsed YAML (:meth:`YamlDoc.to_json`) by content, shared by every project of this user (the
    key is the text's hash)."""
    from mdmark.pipeline.cachestore import user_cache_root

    return ContentCache(user_cache_root() / "yaml", ".json", _encode_json, _decode_json)


def _encode_json(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _decode_json(data: bytes) -> dict[str, Any]:
    value = json.loads(data.decode("utf-8"))
    if not isinstance(value, dict):
        raise TypeError("not a parsed YAML entry")
    return value


def _version() -> str:
    from mdmark import __version__

    return __version__


_WORKSPACES: Memo[str, Workspace] = Memo(MAX_WORKSPACES)
_REGISTRY_LOCK = threading.RLock()


def workspace_for(root: Path) -> Workspace:
    """The workspace of the project whose config folder is ``root`` (made on first use)."""
    key = os.path.realpath(root)
    with _REGISTRY_LOCK:
        return _WORKSPACES.get_or_make(key, lambda: Workspace(Path(key)))


@contextlib.contextmanager
def fresh_workspaces() -> Iterator[None]:
    """Within the block, every project's workspace starts from the disk, as in a new process, and
    none made is kept after; the workspaces of before are back after the block (a caller that
    runs independent commands in one process)."""
    global _WORKSPACES
    with _REGISTRY_LOCK:
        saved, _WORKSPACES = _WORKSPACES, Memo(MAX_WORKSPACES)
    try:
        yield
    finally:
        with _REGISTRY_LOCK:
            _WORKSPACES = saved
