"""A workspace: everything mdmark keeps about one project between calls.

The MCP server answers many calls on one project, and the CLI one call; both go through the same
:class:`Workspace`, which owns the pipelines (one Sphinx application and parse cache per source
folder and settings), the index model (reused while its file's stat is unchanged), the relation
graph and the name matcher (keyed by the content they came from), and the per-file character
counts. Nothing else in mdmark keeps state between calls: a test asserts that no module holds a
mutable cache of its own.

Every memo here is bounded and keyed by content (hashes) or by file stat, so a stale entry is
never returned, only dropped when the bound is reached.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mdmark.pipeline.contentcache import ContentCache
from mdmark.util.files import stat_stamp

if TYPE_CHECKING:
    from mdmark.config.main import MarkdownSettings
    from mdmark.index.model import Index
    from mdmark.index.occurrences import NameMatcher
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.index.relations import RelationGraph
    from mdmark.config.yamlio import YamlDoc

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: Projects one process keeps (the server usually serves one; tests open hundreds).
MAX_WORKSPACES = 16


class Memo(Generic[K, V]):
    """A thread-safe map of at most ``limit`` entries; past the limit the oldest entry goes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> V:
        with self._lock:
            self._items.pop(key, None)
            while len(self._items) >= self.limit:
                self._items.pop(next(iter(self._items)))
            self._items[key] = value
        return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``, made (outside the lock: making may be slow) when missing."""
        hit = self.get(key)
        return hit if hit is not None else self.put(key, make())

    def values(self) -> list[V]:
        with self._lock:
            return list(self._items.values())

    def __len__(self) -> int:
        return len(self._items)


class Workspace:
    """What mdmark keeps about the project whose config folder is ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._pipelines: Memo[tuple[str, ...], Pipeline] = Memo(8)
        #: Index models by file: (stat stamp, model).
        self._indexes: Memo[str, tuple[tuple[int, ...], Index]] = Memo(8)
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
        #: Code points per document file: by path, with the file's stat.
        self._chars: Memo[Path, tuple[tuple[int, ...], int | None]] = Memo(100_000)

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
        try:
            stamp: tuple[int, ...] | None = stat_stamp(path.stat())
        except OSError:
            stamp = None  # load says why it cannot be read
        key = f"{path}\0{shown}"
        if stamp is not None:
            hit = self._indexes.get(key)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        index = load()
        if stamp is not None:
            self._indexes.put(key, (stamp, index))
        return index

    def parsed_yaml(self, text: str, parse: Callable[[], YamlDoc]) -> YamlDoc:
        """``parse()`` of a YAML text, kept by its content: in memory, and on disk in the user's cache
        (parsing a thousand-document index is most of a warm CLI ``check``)."""
        from mdmark.config.yamlio import YamlDoc

        key = hashlib.sha256(f"yaml\0{_version()}\0{text}".encode("utf-8", "surrogateescape")).hexdigest()
        hit = self._yaml.get(key)
        if hit is not None:
            return hit
        cache = _yaml_cache()
        cached = cache.get(key, keep=False)
        if cached is not None and cached.get("text") == text:
            return self._yaml.put(key, YamlDoc.from_json(cached))
        doc = parse()
        data = doc.to_json()
        if data is not None:
            cache.write(key, data)
        return self._yaml.put(key, doc)

    # -- file facts -------------------------------------------------------------------------------

    def file_chars(self, path: Path, count: Callable[[], int | None]) -> int | None:
        """``count()`` of the file at ``path``, reused while its stat is unchanged."""
        try:
            stamp = stat_stamp(path.stat())
        except OSError:
            return None
        hit = self._chars.get(path)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        chars = count()
        self._chars.put(path, (stamp, chars))
        return chars


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

