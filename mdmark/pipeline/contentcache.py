"""One cache for everything mdmark derives from file contents: parses, HTML fragments, the parsed
index, conf.py's settings.

Entries are found by a content key (a hash of the bytes they came from, plus versions and
settings), so an entry is never stale, only unused. Two layers:

* memory, for the life of a :class:`~mdmark.workspace.main.Workspace` (the server answers from it):
  one entry per *slot* (a document, a file), so a new version of a document evicts the old one
  and a long-running server keeps one parse per document, not one per edit;
* disk, in the user's cache folder (:mod:`mdmark.pipeline.cachestore`: authenticated entries, atomic
  writes), so the next CLI run starts warm. A damaged or foreign entry is a miss.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from mdmark.pipeline.cachestore import read_entry, write_entry

T = TypeVar("T")


def ensure_cache_dir(cache_dir: Path) -> None:
    """Create the project's cache folder with a ``.gitignore`` and a ``CACHEDIR.TAG``, so neither
    git nor backup tools pick it up."""
    if not cache_dir.is_dir():
        from mdmark.pipeline.cachestore import private_dirs

        private_dirs(cache_dir)
        (cache_dir / ".gitignore").write_text("# created by mdmark; safe to delete\n*\n", encoding="utf-8")
        (cache_dir / "CACHEDIR.TAG").write_text(
            "Signature: 8a477f597d28d172789f06886806bc55\n# mdmark parse cache; safe to delete\n", encoding="utf-8"
        )


class ContentCache(Generic[T]):
    """Values of one kind by content key, in memory and (with ``root``) on disk.

    ``root`` is the project's cache folder (None: memory only); entries live in
    ``root/sub/<key[:2]>/<key><suffix>``. ``encode``/``decode`` turn a value into the bytes on disk
    and back; ``decode`` raises ``ValueError``, ``KeyError`` or ``TypeError`` on an entry it cannot
    read, which is then a miss. ``slot_of`` names a value's slot when the caller does not.
    """

    def __init__(
        self,
        root: Path | None,
        suffix: str,
        encode: Callable[[T], bytes],
        decode: Callable[[bytes], T],
        sub: str = "",
        slot_of: Callable[[T], str] | None = None,
    ) -> None:
        self.root = root
        self.folder = (root / sub if sub else root) if root is not None else None
        self.suffix = suffix
        self._encode = encode
        self._decode = decode
        self._slot_of = slot_of
        self._memory: dict[str, T] = {}
        #: The key held in memory per slot: a new version evicts the old one.
        self._key_of: dict[str, str] = {}
        self._lock = threading.Lock()
        self._ensured = False
        #: The pending :meth:`write_soon` (the last one asked for wins) and its number.
        self._soon: tuple[int, threading.Timer] | None = None
        self._soon_lock = threading.Lock()

    def __len__(self) -> int:
        """Values held in memory."""
        return len(self._memory)

    def file(self, key: str) -> Path | None:
        """Where the entry of ``key`` lives on disk (None: memory only)."""
        if self.folder is None:
            return None
        return self.folder / key[:2] / f"{key}{self.suffix}"

    def cached(self, key: str) -> T | None:
        """The value in memory, without looking on disk."""
        with self._lock:
            return self._memory.get(key)

    def get(self, key: str, slot: str | None = None, keep: bool = True) -> T | None:
        """The value of ``key`` from memory, else from disk (then kept in memory unless not ``keep``)."""
        hit = self.cached(key)
        if hit is not None:
            return hit
        file = self.file(key)
        if file is None:
            return None
        data = read_entry(file)  # authenticated: entries hold pickles and HTML pasted as is
        if data is None:
            return None
        try:
            value = self._decode(data)
        except (ValueError, KeyError, TypeError):
            return None  # a damaged entry is just a miss
        if keep:
            self.remember(key, value, slot)
        return value

    def memory(self) -> dict[str, tuple[str, T]]:
        """What is held in memory: slot → (key, value) (what a workspace snapshot keeps)."""
        with self._lock:
            return {slot: (key, self._memory[key]) for slot, key in self._key_of.items() if key in self._memory}

    def adopt_memory(self, held: dict[str, tuple[str, T]]) -> None:
        """Hold values an earlier process held, in the slots this one has not filled."""
        with self._lock:
            for slot, (key, value) in held.items():
                if slot not in self._key_of:
                    self._key_of[slot] = key
                    self._memory[key] = value

    def remember(self, key: str, value: T, slot: str | None = None) -> None:
        """Keep ``value`` in memory as the one version of ``slot`` (default: ``slot_of(value)``)."""
        if slot is None:
            if self._slot_of is None:
                raise TypeError("a slot is needed")
            slot = self._slot_of(value)
        with self._lock:
            old = self._key_of.get(slot)
            if old is not None and old != key:
                self._memory.pop(old, None)
            self._key_of[slot] = key
            self._memory[key] = value

    def put(self, key: str, value: T, slot: str | None = None) -> bool:
        """Keep ``value`` in memory and write it to disk; False when the disk write failed (the
        cache is an optimisation: a read-only folder still works)."""
        self.remember(key, value, slot)
        return self.write(key, value)

    def write_soon(self, key: str, value: T, delay: float, name: str) -> None:
        """:meth:`write` in a thread of its own (named ``name``) once ``delay`` seconds pass without
        another :meth:`write_soon`, which replaces this one: a server answers first, and writes
        when no call is waiting. Not a daemon: a process ending meanwhile writes it first."""
        from mdmark.pipeline.cachestore import secret_key

        # The key of the user's cache as it is now: the environment may point elsewhere by then.
        try:
            mac_key = secret_key()
        except OSError:
            return  # no usable cache folder: nothing would be written anyway
        with self._soon_lock:
            number = self._soon[0] + 1 if self._soon is not None else 0
            if self._soon is not None:
                self._soon[1].cancel()
            timer = threading.Timer(delay, self._write_latest, args=(number, key, value, mac_key))
            timer.name = name
            self._soon = (number, timer)
            timer.start()

    def _write_latest(self, number: int, key: str, value: T, mac_key: bytes) -> None:
        # Under the lock: an older write that has started finishes before a newer one begins.
        with self._soon_lock:
            if self._soon is not None and self._soon[0] == number:
                self.write(key, value, mac_key)

    def write(self, key: str, value: T, mac_key: bytes | None = None) -> bool:
        """Write ``value`` to disk only (authenticated by ``mac_key``, default the user's cache key);
        False when there is no disk layer or the write failed."""
        file = self.file(key)
        if file is None or self.root is None:
            return False
        try:
            if not self._ensured:  # once per cache: a cold run writes thousands of entries
                ensure_cache_dir(self.root)
                self._ensured = True
            write_entry(file, self._encode(value), mac_key)
        except OSError:
            return False
        return True


def raw(data: bytes) -> bytes:
    """The identity codec, for entries that are bytes already."""
    return data
