"""The parse and render caches on disk: outside the work tree, every entry authenticated.

A repository is untrusted input, and a cache entry holds a pickled doctree: an entry a repository
could plant would run its code. So the cache lives in the user's own cache folder
(``$XDG_CACHE_HOME/mdmark`` or ``~/.cache/mdmark``), one sub-folder per project keyed by a hash of
the project's real path, and every entry carries an HMAC made with a key that only this user can
read (``key``, mode 0600, in the same folder). An entry whose HMAC does not match — damaged,
copied from elsewhere, or written by someone else — is a miss: it is rebuilt, never loaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from mdmark.util.files import TMP_SUFFIX

_KEY_BYTES = 32
_MAC_BYTES = hashlib.sha256().digest_size
#: Keys read so far, by file (the cache folder follows XDG_CACHE_HOME, which may change).
_KEYS: dict[Path, bytes] = {}


def user_cache_root() -> Path:
    """``$XDG_CACHE_HOME/mdmark``, else ``~/.cache/mdmark``."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    folder = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return folder / "mdmark"


def project_cache_dir(project_root: Path) -> Path:
    """The cache folder of the project whose config folder is ``project_root``."""
    real = str(project_root.resolve())
    return user_cache_root() / hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]


def private_dirs(folder: Path) -> None:
    """Create ``folder`` and every missing folder between it and :func:`user_cache_root` with mode
    0700, the root too (``mkdir(parents=True)`` would give the folders above the last one the
    umask's 0755). A root of ours left group- or world-readable is closed."""
    root = user_cache_root()
    chain = [folder, *folder.parents]
    below = chain[: chain.index(root) + 1] if root in chain else [folder]
    root.parent.mkdir(parents=True, exist_ok=True)
    for part in reversed(below):
        try:
            os.mkdir(part, 0o700)
        except FileExistsError:
            pass
    with contextlib.suppress(OSError):
        info = os.lstat(root)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
            os.chmod(root, 0o700)


def _read_key(path: Path) -> bytes | None:
    """The key at ``path`` when it is this user's private regular file of the right size."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return None
        data = handle.read(_KEY_BYTES + 1)
    return data if len(data) == _KEY_BYTES else None


def secret_key() -> bytes:
    """This user's cache key, created on first use (0600); concurrent first uses agree on one key."""
    root = user_cache_root()
    path = root / "key"
    cached = _KEYS.get(path)
    if cached is not None:
        return cached
    key = _read_key(path)
    if key is None:
        private_dirs(root)
        # A key file that is not ours, not private or damaged is replaced, never trusted.
        with contextlib.suppress(FileNotFoundError):
            if os.path.lexists(path):
                os.unlink(path)
        fresh = secrets.token_bytes(_KEY_BYTES)
        tmp = root / f".key.{os.getpid()}-{secrets.token_hex(6)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(fresh)
            try:
                os.link(tmp, path)  # fails when another process made the key first: use theirs
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        key = _read_key(path)
        if key is None:
            raise OSError(f"cache key {path} is not usable")
    _KEYS[path] = key
    return key


def _mac(key: bytes, label: str, data: bytes | memoryview) -> bytes:
    # The label (the entry's name) binds an entry to its place: a valid entry moved to another
    # key's file does not verify.
    mac = hmac.new(key, label.encode() + b"\0", hashlib.sha256)
    mac.update(data)  # not concatenated: a build's snapshot is tens of megabytes, copied for nothing
    return mac.digest()


def write_entry(path: Path, data: bytes, key: bytes | None = None) -> None:
    """Store ``data`` at ``path`` with its HMAC (by ``key``, default :func:`secret_key`); a failure is
    left to the caller (the cache is optional).

    Lighter than :func:`mdmark.util.files.atomic_write_bytes`, as a cold run writes thousands of entries
    into this user's own private folder. A new entry is created in place, exclusively and without
    following links (0600): a reader that meets it half written, or a crash that tears it, finds
    an entry that fails its HMAC, which is a miss like a missing one — so it needs no temp file and
    rename (a third of a cold worker's cost per entry). An entry that is there already (damaged,
    or another writer's) is replaced through a temp file renamed over it (a rename replaces a link,
    never follows it). No fsync, no mode to keep, and no sweep for leftovers of killed writers (the
    folder is safe to delete).
    """
    blob = (_mac(key if key is not None else secret_key(), path.name, data), data)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = _create(path, flags)
    except FileExistsError:
        _replace_entry(path, blob, flags)
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(blob)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def _create(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:  # the entry's folder is new
        private_dirs(path.parent)
        return os.open(path, flags, 0o600)


def _replace_entry(path: Path, blob: tuple[bytes, bytes], flags: int) -> None:
    tmp = path.parent / f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}{TMP_SUFFIX}"
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(blob)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_entry(path: Path) -> bytes | None:
    """The data stored at ``path``, or None when missing, unreadable or not authentic."""
    view = read_entry_view(path)
    return bytes(view) if view is not None else None


def read_entry_view(path: Path) -> memoryview | None:
    """:func:`read_entry` as a view of the file's bytes (not a copy: a build's snapshot is tens of megabytes)."""
    try:
        blob = path.read_bytes()
        key = secret_key()
    except OSError:
        return None
    view = memoryview(blob)
    mac, data = view[:_MAC_BYTES], view[_MAC_BYTES:]
    if len(mac) != _MAC_BYTES or not hmac.compare_digest(mac, _mac(key, path.name, data)):
        return None
    return data
