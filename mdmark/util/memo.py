"""Bounded, thread-safe memos: the only containers the workspace keeps state in.

Each is keyed by content (hashes) or by a file's stamp, so a stale entry is never returned, only
dropped when the bound is reached.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from mdmark.util.files import NO_STAMP, Stamp, file_stamp

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

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

    def items(self) -> list[tuple[K, V]]:
        """The entries, oldest first (what a snapshot of the workspace keeps)."""
        with self._lock:
            return list(self._items.items())

    def adopt(self, items: list[tuple[K, V]]) -> None:
        """Add entries kept from an earlier process, under those made here (which stay newest)."""
        with self._lock:
            mine = self._items
            self._items = {}
            for key, value in [*items, *mine.items()]:
                self._items.pop(key, None)
                while len(self._items) >= self.limit:
                    self._items.pop(next(iter(self._items)))
                self._items[key] = value

    def __len__(self) -> int:
        return len(self._items)


class StatMemo(Generic[K, V]):
    """Values made from one file, each kept while that file's stamp (:func:`~mdmark.util.files.file_stamp`)
    is unchanged: the one stat-keyed memo. A file that cannot be stat'ed is made again every time
    (``make`` says what is wrong with it)."""

    def __init__(self, limit: int) -> None:
        self._memo: Memo[K, tuple[Stamp, V]] = Memo(limit)

    @property
    def memo(self) -> Memo[K, tuple[Stamp, V]]:
        """The entries with their files' stamps (what a snapshot of the workspace keeps)."""
        return self._memo

    def get_or_make(self, key: K, path: str | os.PathLike[str], make: Callable[[], V]) -> V:
        stamp = file_stamp(path)
        if stamp != NO_STAMP:
            hit = self._memo.get(key)
            if hit is not None and hit[0] == stamp:
                return hit[1]
        value = make()
        if stamp != NO_STAMP:
            self._memo.put(key, (stamp, value))
        return value
