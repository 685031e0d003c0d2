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


#: The folder of the lock files, as the pool's process saw it: a worker confined by Landlock has a
#: temporary folder of its own (mdmark.pipeline.pool), and every worker must lock the same file.
LOCK_DIR_ENV = "MDMARK_LOCK_DIR"


def lock_path(conf: Path) -> Path:
    """The lock file of ``conf`` (the same in every process of one mdmark)."""
    digest = hashlib.sha256(str(conf.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    folder = os.environ.get(LOCK_DIR_ENV) or tempfile.gettempdir()
    return Path(folder) / f"mdmark-conf-{os.getuid()}-{digest}.lock"


def ensure_lock(conf: Path) -> Path | None:
    """Create the lock file of ``conf`` now (a confined worker may open it, not create it); None
    when it cannot be made."""
    path = lock_path(conf)
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600))
    except OSError:
        return None
    return path


@contextlib.contextmanager
def conf_lock(conf: Path | None, shared: bool) -> Iterator[None]:
    """Hold the lock of ``conf`` (nothing without one; nothing when no lock file can be made)."""
    if conf is None:
        yield
        return
    try:
        # O_NOFOLLOW: the temporary folder is shared, and a link planted under this name must not be followed.
        fd = os.open(lock_path(conf), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
