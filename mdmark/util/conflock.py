"""One project's conf.py runs in one process at a time, and never while another reads.

A cold run reads documents in worker processes, and each worker creates its own Sphinx
application — so conf.py, and what it hooks to ``builder-inited`` (``sphinx-apidoc`` deleting and
writing ``api/*.rst``, generated pages…), runs once per worker. Two such runs at once race on the
same files, and a worker reading a document while another regenerates it reads half a file. An
advisory lock per conf.py (``flock``) orders them: creating an application takes it exclusively,
reading a document takes it shared.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _lock_path(conf: Path) -> Path:
    digest = hashlib.sha256(str(conf.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"mdmark-conf-{os.getuid()}-{digest}.lock"


@contextlib.contextmanager
def conf_lock(conf: Path | None, shared: bool) -> Iterator[None]:
    """Hold the lock of ``conf`` (nothing without one; nothing when no lock file can be made)."""
    if conf is None:
        yield
        return
    try:
        # O_NOFOLLOW: the temporary folder is shared, and a link planted under this name must not be followed.
        fd = os.open(_lock_path(conf), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
