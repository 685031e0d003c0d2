"""A source folder's documents as files: their names, content keys and text, read safely.

The pipeline asks here for what a document is before asking whether it was parsed: the name
relative to the source folder (refusing what lies outside it or is no source), the cache key of its
bytes, and the text. Each file's stat is remembered with its key, so in a long-running server an
unchanged file is neither read nor hashed again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mdmark.core.errors import MdmarkError
from mdmark.util import door, sentences
from mdmark.util.files import MAX_FILE_BYTES, Stamp, decode_text, settled, stat_stamp


class Sources:
    """The documents under ``srcdir`` (conf.py's folder with ``conf``, else the config folder).

    ``key_of(rel, data)`` is the content key of a document's bytes; ``suffixes()`` the source
    suffixes besides ``.md`` that a Sphinx project reads (asked only with a conf.py).
    """

    def __init__(
        self,
        srcdir: Path,
        conf: Path | None,
        key_of: Callable[[str, bytes], str],
        suffixes: Callable[[], tuple[str, ...]],
    ) -> None:
        self.srcdir = srcdir
        self.conf = conf
        self._key_of = key_of
        self._suffixes = suffixes
        self._prefix = os.path.join(str(srcdir), "")
        #: Per document (source-relative path): the stat of its file when last read and the key of
        #: the bytes read then — a server checks the whole project after every edit.
        self._stamps: dict[str, tuple[Stamp, str]] = {}

    def stamps(self) -> dict[str, tuple[Stamp, str]]:
        """Each document's stat when last read and its content key (what a workspace snapshot keeps)."""
        return dict(self._stamps)

    def adopt_stamps(self, stamps: dict[str, tuple[Stamp, str]]) -> None:
        """Take stamps an earlier process kept (settled ones, as this one keeps); its own stay."""
        self._stamps = {**stamps, **self._stamps}

    def relpath(self, path: Path, resolved: Path | None) -> str:
        """The document's path relative to the source folder (``resolved``: ``path`` with its links
        resolved, None when they loop); refuses paths outside it or not sources."""
        if resolved is None:
            raise MdmarkError(sentences.link_loop(path.name))
        # Both are resolved: a prefix test is relative_to() without building paths (once per document per call).
        text, prefix = str(resolved), self._prefix
        try:
            if not text.startswith(prefix):
                raise ValueError(text)
            rel = text[len(prefix) :]
        except ValueError:
            if self.conf is not None:
                raise MdmarkError(
                    f"`{path}` は conf.py のフォルダ `{self.srcdir}` の外にあり Sphinx のプロジェクトの文書ではないので、"
                    "そのフォルダの中に置くか、設定の docs・build の include から外してください。"
                ) from None
            raise MdmarkError(
                f"`{path}` は `{self.srcdir}` の外にあるので、設定のフォルダの中の文書を指定してください。"
            ) from None
        # A Sphinx project's other sources (``.rst``) are read too: their labels and objects are
        # what the Markdown documents reference.
        suffixes = self._suffixes() if self.conf is not None else (".md",)
        if not rel.endswith(".md") and not any(rel.endswith(s) for s in suffixes):
            raise MdmarkError(sentences.not_markdown(rel))
        return rel

    def key(self, path: Path, rel: str) -> tuple[str, str | None]:
        """The cache key of the document at ``path`` and its text — None when the key was known from
        an earlier read of the unchanged file (same stat), so it was neither read nor hashed."""
        seen = self._stamps.get(rel)
        if seen is not None:
            try:
                info = os.stat(path)
            except OSError:
                info = None
            if info is not None and stat_stamp(info) == seen[0]:
                return seen[1], None
        return self.read_keyed(path, rel)

    def read_keyed(self, path: Path, rel: str) -> tuple[str, str]:
        """The cache key and text of the document at ``path``, read now (its stat remembered)."""
        data, text, info = self.read(path, rel)
        key = self._key_of(rel, data)
        if settled(info):
            self._stamps[rel] = (stat_stamp(info), key)
        return key, text

    def text_key(self, text: str, rel: str) -> tuple[str, str]:
        """The cache key and text of a document given as text (an editor's buffer, not the file):
        the key of its UTF-8 bytes, as if the file held them; refused past the size files may have."""
        data = text.encode("utf-8", "surrogateescape")
        if len(data) > MAX_FILE_BYTES:
            raise MdmarkError(sentences.too_big(rel, len(data), MAX_FILE_BYTES))
        return self._key_of(rel, data), decode_text(data, rel)

    def read(self, path: Path, rel: str) -> tuple[bytes, str, os.stat_result]:
        """The bytes, text and stat of the document at ``path``; one sentence for what cannot be read."""
        try:
            # Through the door: inside the source folder, a regular file, within the size cap.
            data, info = door.read_stat(path, self.srcdir, "文書", rel)
        except door.Refused as refused:
            if refused.reason == "missing":
                raise MdmarkError(sentences.missing_file(rel)) from None
            raise
        return data, decode_text(data, rel), info
