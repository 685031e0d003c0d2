"""Reading user files safely: every refusal is one sentence and nothing on disk changes."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from mdmark.core.errors import MdmarkError
from mdmark.util import sentences
from mdmark.util.roots import inside

#: A document or YAML file larger than this is refused instead of being parsed.
MAX_FILE_BYTES = 5 * 1024 * 1024


def resolved(path: Path) -> Path:
    """``path.resolve()``, or the absolute path when links loop (reading it then says so, located)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))


def resolve_many(paths: Iterable[Path]) -> list[Path | None]:
    """``path.resolve()`` of each path, None where links loop — the same answers at a fraction of
    the system calls: each folder is resolved once per call, each file costs one ``lstat``.

    ``Path.resolve`` walks and ``lstat``s every component of every path (and ``stat``s the result);
    for a thousand documents in a few folders that is most of a warm check.
    """
    folders: dict[str, str | None] = {}
    out: list[Path | None] = []
    for path in paths:
        out.append(_resolve_one(path, folders))
    return out


def resolved_many(paths: Iterable[Path]) -> list[Path]:
    """:func:`resolved` of each path, by :func:`resolve_many`."""
    items = list(paths)
    return [
        real if real is not None else Path(os.path.abspath(path))
        for path, real in zip(items, resolve_many(items), strict=True)
    ]


def _resolve_one(path: Path, folders: dict[str, str | None]) -> Path | None:
    text = str(path)  # pathlib's form: no "." parts, no doubled or trailing separators
    if not text.startswith(os.sep) or f"{os.sep}..{os.sep}" in f"{text}{os.sep}":
        return _resolve_full(path)
    parent, name = os.path.split(text)
    if not name:
        return _resolve_full(path)
    if parent not in folders:
        real = _resolve_full(Path(parent))
        folders[parent] = str(real) if real is not None else None
    real_parent = folders[parent]
    if real_parent is None:
        return None  # the folder's links loop: so do the file's
    full = os.path.join(real_parent, name)
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return Path(full)  # as resolve(): the real folder, the name as given
    except OSError:
        return _resolve_full(path)
    if stat.S_ISLNK(info.st_mode):
        return _resolve_full(Path(full))
    return Path(full)


def _resolve_full(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return None


def display(path: Path, base: Path | None = None) -> str:
    """A path as a user reads it: relative to ``base`` when inside it, POSIX separators."""
    if base is not None:
        try:
            return path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
        except (RuntimeError, OSError):  # links that loop: name the path as given
            try:
                return path.absolute().relative_to(base.absolute()).as_posix()
            except ValueError:
                pass
    return path.as_posix()


def shown_under(real: Path, base: Path) -> str:
    """:func:`display` of an already resolved path against an already resolved ``base``, without
    resolving either again (a check or build names every document this way)."""
    text, prefix = str(real), os.path.join(str(base), "")
    if text.startswith(prefix):
        return text[len(prefix) :]
    return display(real, base)


def decode_text(data: bytes, shown: str) -> str:
    """Decode UTF-8 text, refusing binary data and invalid bytes with the line that holds them."""
    if b"\x00" in data:
        raise MdmarkError(
            f"`{shown}` はテキストではなくバイナリのファイルなので、Markdown か YAML のテキストのファイルを指定してください。"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MdmarkError(
            f"`{shown}` の {line} 行目が UTF-8 として読めないので、ファイルを UTF-8 で保存し直してください。"
        ) from None
    return text.removeprefix("\ufeff")


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder: reading it could block or never end."""


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file (links followed) of at most ``limit`` bytes.

    Opened without blocking and checked on the open file, so a FIFO named like a document is
    refused instead of hanging the reader (and a file swapped after a check cannot slip through).
    """
    return read_regular_stat(path, limit)[0]


def read_regular_stat(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[bytes, os.stat_result]:
    """:func:`read_regular`, with the stat of the file that was read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > limit:
            raise FileTooBig(info.st_size)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooBig(len(data))
    return data, info


#: What "the same file, unchanged" is made of: device, inode, size, mtime and ctime (ns).
Stamp = tuple[int, int, int, int, int]


def stat_stamp(info: os.stat_result) -> Stamp:
    """What "the same file, unchanged" means for a stat: device, inode, size, mtime and ctime."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


#: The stamp of a file that cannot be stat'ed (missing, unreadable folder): equal only to itself.
NO_STAMP: Stamp = (-1, -1, -1, -1, -1)


def file_stamp(path: str | os.PathLike[str]) -> Stamp:
    """:func:`stat_stamp` of the file at ``path`` (links followed), :data:`NO_STAMP` when it cannot be
    stat'ed: the one "unchanged file" test, in memory and in the caches alike."""
    try:
        return stat_stamp(os.stat(path))
    except OSError:
        return NO_STAMP


def stamp_from_json(value: object) -> Stamp:
    """A stamp written to a cache as a JSON list, as a stamp again."""
    if not isinstance(value, list | tuple) or len(value) != 5:
        raise ValueError("not a file stamp")
    a, b, c, d, e = (int(part) for part in value)
    return (a, b, c, d, e)


#: A file modified less than this long ago may change again within the same mtime tick: its stat
#: is not trusted to mean "unchanged" (git's "racily clean" entries).
SETTLED_NS = 2_000_000_000


def settled(info: os.stat_result) -> bool:
    """Whether the file's stat can stand for its content (see :data:`SETTLED_NS`)."""
    return time.time_ns() - info.st_mtime_ns > SETTLED_NS


def file_stamps(paths: Iterable[str]) -> tuple[Stamp | None, ...] | None:
    """The stamp of each file (None where it cannot be stat'ed), or None when one of them changed
    too recently for its stat to stand for its content."""
    out: list[Stamp | None] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            out.append(None)
            continue
        if not settled(info):
            return None
        out.append(stat_stamp(info))
    return tuple(out)


class FileTooBig(OSError):
    """A file over the size limit (its size in ``size``)."""

    def __init__(self, size: int) -> None:
        super().__init__(errno.EFBIG, "file too big")
        self.size = size


def read_text(path: Path, shown: str | None = None) -> str:
    """Read a UTF-8 text file, with one sentence for a missing, huge, binary or undecodable file."""
    shown = shown or path.as_posix()
    try:
        if not path.exists():
            raise MdmarkError(sentences.missing_file(shown))
        data = read_regular(path)
    except NotRegularFile:
        raise MdmarkError(sentences.not_regular(shown)) from None
    except FileTooBig as exc:
        raise MdmarkError(sentences.too_big(shown, exc.size, MAX_FILE_BYTES)) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise MdmarkError(sentences.link_loop(shown)) from None
        raise MdmarkError(sentences.unreadable(shown, exc.strerror or "")) from None
    return decode_text(data, shown)


#: Suffix of the temp files atomic writes (and cache writes) create; a leftover names the process that made it.
TMP_SUFFIX = ".mdmark-tmp"
#: Bytes of the target's name kept in a temp name (NAME_MAX is 255 on most file systems).
_TMP_NAME_BYTES = 120


def _tmp_stem(name: str) -> str:
    """``.{name}``, cut to fit a temp name under NAME_MAX without splitting a character."""
    cut = name.encode("utf-8")[:_TMP_NAME_BYTES].decode("utf-8", "ignore")
    return f".{cut}."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: it exists
    return True


def _remove_leftovers(folder: Path, stem: str) -> None:
    """Temp files of this target left by a killed writer (its process is gone)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not name.startswith(stem):
            continue
        if name.endswith(TMP_SUFFIX):
            pid_text = name[len(stem) : -len(TMP_SUFFIX)].split("-", 1)[0]
        elif name.endswith(".tmp"):  # the per-process name of earlier versions
            pid_text = name[len(stem) : -len(".tmp")]
        else:
            continue
        if pid_text.isdigit() and int(pid_text) != os.getpid() and not _alive(int(pid_text)):
            with contextlib.suppress(OSError):
                os.unlink(folder / name)  # unlink never follows a link


def write_target(path: Path, root: Path | None = None) -> Path:
    """The file a write to ``path`` really changes: links resolved, then confined to ``root``.

    A link (even a dangling one) placed where the output goes would otherwise carry the write
    outside the folder the user meant.
    """
    real = path.resolve()
    if root is not None and not inside(real, root.resolve()):
        raise MdmarkError(
            f"`{path}` はリンクをたどると `{root}` の外の `{real}` を指すので、リンクを外すか別のパスを指定してください。"
        )
    return real


def atomic_write_bytes(path: Path, data: bytes, root: Path | None = None, durable: bool = True) -> None:
    """Write ``data`` to ``path`` in one step, so readers and a crash see old or new, never half.

    The temp file is created exclusively and without following links (a planted link at its name
    fails the write instead of redirecting it), with a random name, so parallel writers to one
    target all succeed and the last one wins. The target's mode is kept; the temp goes on any
    failure, and leftovers of killed writers go on the next write. ``durable=False`` skips the
    fsync (caches, which a crash may lose).
    """
    _atomic_write(path, lambda handle: handle.write(data), root, durable)


def atomic_write_chunks(path: Path, chunks: Iterable[str], root: Path | None = None, durable: bool = True) -> None:
    """:func:`atomic_write_bytes` of the UTF-8 text ``chunks`` make together, newlines as given.

    The text is encoded and written one chunk at a time into the temp file, so a page far larger
    than memory comfortably holds twice is never held whole; an exception raised by ``chunks``
    (or a full disk) removes the temp and leaves the target as it was.
    """

    def write(handle: BinaryIO) -> None:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="", write_through=False)
        try:
            for chunk in chunks:
                text.write(chunk)
            text.flush()
        finally:
            # The caller's ``with`` closes the file; the wrapper only lets go of it.
            text.detach()

    _atomic_write(path, write, root, durable)


def _atomic_write(path: Path, write: Callable[[BinaryIO], object], root: Path | None, durable: bool) -> None:
    real = write_target(path, root)
    folder = real.parent
    stem = _tmp_stem(real.name)
    _remove_leftovers(folder, stem)
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        mode = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = folder / f"{stem}{os.getpid()}-{secrets.token_hex(6)}{TMP_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o666 if mode is None else 0o600)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            write(handle)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str, root: Path | None = None) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text, newlines as given."""
    atomic_write_bytes(path, text.encode("utf-8"), root)
