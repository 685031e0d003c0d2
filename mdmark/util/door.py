"""The one door to a repository's files: every read of repository content goes through here.

A document, an ``{include}``d file (every form, docutils' ``<standard>`` ones too), a
``{literalinclude}``, the ``:file:`` of ``{raw}`` and ``{csv-table}``, an image, a figure, a
download, a stylesheet: each is resolved (links and ``..``), confined to the project root, refused
when it is not a regular file (a FIFO would block the reader for ever, a device never ends, a
folder is no content) and capped in size. A refusal is a :class:`Refused` carrying the one
sentence the caller reports at the document's line.

Earlier each reader checked what it thought of; a new reader (docutils' standard include) then
skipped the checks. ``tests/test_sandbox.py`` scans the code for any other read of a file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Literal

from mdmark.core.errors import MdmarkError
from mdmark.util.files import MAX_FILE_BYTES, decode_text
from mdmark.util.sentences import link_loop, missing_file, not_regular, outside_root, too_big, unreadable

#: Why the door refused: the file lies outside the root, is no regular file, is over the cap,
#: does not exist, or the system would not open it.
Reason = Literal["outside", "special", "big", "missing", "unreadable"]


class Refused(MdmarkError):
    """A read the door refused: ``message`` is the sentence, ``reason`` says why."""

    def __init__(self, message: str, reason: Reason) -> None:
        super().__init__(message)
        self.reason: Reason = reason


def _open_checked(path: Path, root: Path, what: str, written: str, limit: int) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file ``path`` inside ``root`` of at most ``limit`` bytes."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: links that loop
        raise Refused(link_loop(written, what), "unreadable") from None
    # Outside is outside whether or not the file exists: the answer tells nothing of the reader's disk.
    try:
        real.relative_to(root)
    except ValueError:
        raise Refused(outside_root(written, what), "outside") from None
    try:
        # Without blocking: opening a FIFO for reading waits for a writer otherwise. Without
        # following a link at the last step: the path was resolved above, a link swapped in since
        # is refused rather than followed out of the root.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            raise Refused(not_regular(written, what), "special") from None
        if exc.errno == errno.ENOENT:
            raise Refused(missing_file(written, what), "missing") from None
        raise Refused(unreadable(written, exc.strerror or "", what), "unreadable") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise Refused(not_regular(written, what), "special")
    if info.st_size > limit:
        os.close(fd)
        raise Refused(too_big(written, info.st_size, limit, what), "big")
    return fd, info


def read_stat(
    path: Path, root: Path, what: str, written: str, limit: int = MAX_FILE_BYTES
) -> tuple[bytes, os.stat_result]:
    """The bytes of the repository file ``path`` and its stat, through the door.

    ``root``: the resolved project root it must lie in; ``what`` and ``written``: how the sentence
    names it (``画像``, the path as the document wrote it).
    """
    fd, info = _open_checked(path, root, what, written, limit)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew since the stat
        raise Refused(too_big(written, len(data), limit, what), "big")
    return data, info


def read(path: Path, root: Path, what: str, written: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """:func:`read_stat` without the stat."""
    return read_stat(path, root, what, written, limit)[0]


def admit(path: Path, root: Path, what: str, written: str, limit: int = MAX_FILE_BYTES) -> Path:
    """Let a reader that opens the file itself (docutils' and Sphinx's directives) through: the
    checks of :func:`read`, and the resolved path the reader is to open."""
    fd, _ = _open_checked(path, root, what, written, limit)
    os.close(fd)
    return path.resolve()


def read_text(path: Path, root: Path, what: str, written: str) -> str:
    """A repository text file (a document) through the door, decoded as UTF-8 (one sentence for
    binary or undecodable bytes)."""
    return decode_text(read(path, root, what, written), written)
