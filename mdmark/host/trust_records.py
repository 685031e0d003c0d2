"""The user's record of trusted projects: ``trusted.json`` in the user's config folder
(``$XDG_CONFIG_HOME/mdmark/`` or ``~/.config/mdmark/``, folder 0700, file 0600, written atomically,
one writer at a time). A file that is not the user's private regular file is not believed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.core.errors import MdmarkError

TRUST_FILE = "trusted.json"
_LOCK_FILE = ".trusted.lock"
#: A trust file larger than this is not read (it is the user's own; a huge one is damaged).
_MAX_TRUST_BYTES = 5 * 1024 * 1024


def trust_dir() -> Path:
    """``$XDG_CONFIG_HOME/mdmark``, else ``~/.config/mdmark``."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    folder = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return folder / "mdmark"


@dataclass(frozen=True)
class TrustRecord:
    """One trusted project as recorded."""

    conf: str
    config: str
    #: The project root the fingerprint was made in (module paths are relative to it).
    root: str
    digest: str
    files: tuple[str, ...]
    trusted_at: str
    #: The module files conf.py loaded from the project when it ran at trust time (relative to root).
    imported: tuple[str, ...] = ()
    #: Each pinned file's own digest (relative path → hex), to say what changed when trust lapses.
    digests: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "conf": self.conf,
            "config": self.config,
            "root": self.root,
            "digest": self.digest,
            "files": list(self.files),
            "trusted_at": self.trusted_at,
            "imported": list(self.imported),
            "digests": dict(self.digests),
        }

    @classmethod
    def from_json(cls, data: Any) -> TrustRecord | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                conf=str(data["conf"]),
                config=str(data["config"]),
                root=str(data["root"]),
                digest=str(data["digest"]),
                files=tuple(str(f) for f in data.get("files", [])),
                trusted_at=str(data.get("trusted_at", "")),
                imported=tuple(str(f) for f in data.get("imported", []) if _plain_relative(str(f))),
                digests=tuple((str(k), str(v)) for k, v in dict(data.get("digests", {})).items()),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _plain_relative(rel: str) -> bool:
    """A recorded module path stays inside the root it is relative to."""
    return bool(rel) and not os.path.isabs(rel) and ".." not in Path(rel).parts


def _private_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise MdmarkError(
            f"信頼の記録のフォルダ `{folder}` があなたのフォルダではないので、消すか XDG_CONFIG_HOME で別の場所を指定してください。"
        )
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)


def read_records() -> dict[str, TrustRecord]:
    """The recorded projects by conf.py path. A file that is not the user's private regular file is
    not believed (someone else could have planted trust)."""
    path = trust_dir() / TRUST_FILE
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            return {}
        data = handle.read(_MAX_TRUST_BYTES + 1)
    if len(data) > _MAX_TRUST_BYTES:
        return {}
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    projects = parsed.get("projects") if isinstance(parsed, dict) else None
    out: dict[str, TrustRecord] = {}
    for item in projects if isinstance(projects, list) else []:
        record = TrustRecord.from_json(item)
        if record is not None:
            out[record.conf] = record
    return out


def write_records(records: dict[str, TrustRecord]) -> None:
    folder = trust_dir()
    _private_folder(folder)
    text = json.dumps(
        {"version": 1, "projects": [records[k].to_json() for k in sorted(records)]}, ensure_ascii=False, indent=2
    )
    tmp = folder / f".{TRUST_FILE}.{os.getpid()}-{secrets.token_hex(6)}.mdmark-tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, folder / TRUST_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """One writer of the record at a time (two `mdmark trust` at once both land)."""
    folder = trust_dir()
    _private_folder(folder)
    fd = os.open(folder / _LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
