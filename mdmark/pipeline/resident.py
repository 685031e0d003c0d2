"""Resident zygotes: the CLI's zygote outlives the command, so that the next command of the same
project does not import Sphinx and make the application again.

A CLI run after one edit parses one document, but before it can, its zygote must import Sphinx
and MyST, read conf.py and run every extension's ``setup()`` (:mod:`mdmark.pipeline.zygote`):
about 0.4 s on the path of every pre-commit check, more than all the rest of the run. A server
keeps its zygote for its life; a one-shot command (``check``, ``build``, ``export``…) now leaves
its zygote running for :data:`IDLE_SECONDS` after the last command that used it, and the next
command connects to it instead of making one.

One zygote per *key*: everything its object depends on — the worker spec (project, settings,
cache folder, conf.py's digest and trust), the confinement and bounds, the environment (but the
terminal's and git's own variables), the working folder, the interpreter and its ``sys.path``,
and the files of mdmark and the folders of ``sys.path`` as they are on disk (an upgrade or an
edit of mdmark starts a new one). Another key gets another zygote; an old one ends when idle.

The zygote is confined as any other (Landlock), bounded in memory and CPU per request, and runs
in a process of its own started by absolute interpreter path with ``-I`` and mdmark's own
``sys.path`` (nothing from the working folder), with no terminal and no inherited descriptor
but its socket. Its socket lives in a private folder (``$XDG_CACHE_HOME/mdmark/resident``, mode
0700); a client proves first that it can read the folder's token (0600), which no confined
worker can: a worker of one project cannot drive another project's zygote.

:func:`enabled` also lets a build leave its snapshot to a child that writes it after the command
ended (:func:`mdmark.workspace.snapshot.save`, ``detached``).

``MDMARK_RESIDENT=0`` turns it off (each command makes and ends its own zygote, as servers do),
as does ``CI`` set (unless ``MDMARK_RESIDENT`` is); ``MDMARK_RESIDENT=N`` keeps an idle zygote N
seconds instead of :data:`IDLE_SECONDS`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Imported where used: a check answered from its stored result (the CLI's main imports this
# module for every command) starts no zygote and needs none of them.
if TYPE_CHECKING:
    import subprocess
    from multiprocessing.connection import Connection

    from mdmark.pipeline.limits import Limits
    from mdmark.pipeline.zygote import Plan

#: The environment variable that turns resident zygotes off (``0``) or sets their idle time (seconds).
ENV = "MDMARK_RESIDENT"
#: Seconds an unused resident zygote waits for its next command.
IDLE_SECONDS = 900.0
#: A UNIX socket's path is at most 107 bytes: a longer one is reached through ``/proc/self/fd``
#: (Linux), else there is no resident zygote.
SOCKET_PATH_MAX = 100
#: Variables that differ between two shells or two git commands and that a document's reading
#: never sees: left out of the key, or each terminal (each commit) would get a zygote of its own.
VOLATILE = frozenset(
    {"PWD", "OLDPWD", "SHLVL", "_", "TERM", "COLORTERM", "COLUMNS", "LINES", "PS1", "DISPLAY", "WINDOWID", "TMUX",
     "TMUX_PANE", "STY", "TERM_SESSION_ID", "SSH_AUTH_SOCK", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY", ENV}
)
VOLATILE_PREFIXES = ("GIT_", "PRE_COMMIT", "LC_TERMINAL", "VSCODE_", "ITERM")

_allowed = False


def allow() -> None:
    """Let this process's zygotes be resident: a one-shot command of the CLI calls it (a server
    or the language server keeps its own zygote for its life instead)."""
    global _allowed
    _allowed = True


def idle_seconds() -> float | None:
    """How long an unused resident zygote waits (None: there are none, ``MDMARK_RESIDENT=0``, or by
    default on a CI machine, ``CI`` set: each job starts afresh, and some runners wait for every
    process a job started)."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None if os.environ.get("CI", "").strip().lower() not in ("", "0", "false") else IDLE_SECONDS
    try:
        seconds = float(value)
    except ValueError:
        return IDLE_SECONDS
    return seconds if seconds > 0 else None


def enabled() -> bool:
    """Whether this process's zygotes are resident ones (and what it leaves to be done may be done
    after it ends: a build's snapshot)."""
    return _allowed and idle_seconds() is not None and hasattr(os, "fork")  # POSIX: UNIX sockets too


def folder() -> Path:
    """Where the resident zygotes' sockets, records and scratch folders live (private)."""
    from mdmark.pipeline.cachestore import user_cache_root

    return user_cache_root() / "resident"


def key(spec: tuple[Any, ...], limits: Limits, plan: Plan | None) -> str:
    """The name of the one zygote that serves ``spec`` as this process would make it (see the module)."""
    import hashlib
    import pickle

    env = sorted((k, v) for k, v in os.environ.items() if k not in VOLATILE and not k.startswith(VOLATILE_PREFIXES))
    material = (spec, plan, limits.memory, limits.cpu, env, os.getcwd(), sys.executable, _paths(), _code_stamp())
    return hashlib.sha256(pickle.dumps(material, protocol=4)).hexdigest()[:32]


def connect(spec: tuple[Any, ...], limits: Limits, plan: Plan | None) -> tuple[Connection, int] | None:
    """A connection to the resident zygote of ``spec`` and its pid, started now when there is
    none (not waited for: its "ready" comes on the connection); None where there can be none."""
    import pickle

    idle = idle_seconds()
    if idle is None:
        return None
    try:
        base = _private_folder()
        name = key(spec, limits, plan)
        path = base / f"{name}.sock"
        if len(os.fsencode(path)) > SOCKET_PATH_MAX and not os.path.isdir("/proc/self/fd"):
            return None
        token = _token(base)
        lock = _lock(base / f"{name}.lock")
        try:
            found = _connect(path, token)
            if found is not None:
                return found, _recorded_pid(base / f"{name}.pid")
            return _spawn(base, name, token, spec, limits, plan, idle)
        finally:
            os.close(lock)
    except (OSError, pickle.PicklingError):
        return None  # no resident zygote: this command makes its own, as before


def forget(spec: tuple[Any, ...], limits: Limits, plan: Plan | None, pid: int) -> None:
    """End the resident zygote ``pid`` of ``spec`` (it broke or passed a bound): the next command
    starts another."""
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        base = folder()
        name = key(spec, limits, plan)
        if _recorded_pid(base / f"{name}.pid") == pid:
            for suffix in (".sock", ".pid"):
                (base / f"{name}{suffix}").unlink(missing_ok=True)
    except OSError:
        pass


def serve() -> None:
    """The resident zygote's process (started by :func:`_spawn`): its orders come on stdin."""
    import pickle
    import socket

    payload = pickle.loads(sys.stdin.buffer.read())
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.close(devnull)
    from mdmark.pipeline.zygote import resident_main

    listener = socket.socket(fileno=payload["fd"])
    resident_main(
        listener, payload["token"], payload["spec"], payload["scratch"], payload["memory"], payload["cpu"],
        payload["plan"], payload["idle"],
    )


def _spawn(
    base: Path, name: str, token: bytes, spec: tuple[Any, ...], limits: Limits, plan: Plan | None, idle: float
) -> tuple[Connection, int] | None:
    import pickle
    import shutil
    import socket
    import subprocess

    path = base / f"{name}.sock"
    path.unlink(missing_ok=True)  # a zygote that ended left it: nobody listens there (see _connect)
    scratch = base / f"{name}.scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _address(path) as address:
            listener.bind(address)
        listener.listen(64)
        payload = pickle.dumps({
            "fd": listener.fileno(), "token": token, "spec": spec, "scratch": str(scratch), "memory": limits.memory,
            "cpu": limits.cpu, "plan": plan, "idle": idle,
        })
        code = f"import sys; sys.path[:] = {_paths()!r}; from mdmark.pipeline.resident import serve; serve()"
        process = subprocess.Popen(
            # -I: neither the working folder nor PYTHON* variables reach the import path (it is mdmark's own).
            [sys.executable, "-I", "-c", code],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(listener.fileno(),), start_new_session=True,
        )
    finally:
        listener.close()
    assert process.stdin is not None
    try:
        process.stdin.write(payload)
        process.stdin.close()
    except OSError:
        process.kill()
        return None
    _SPAWNED.append(process)
    (base / f"{name}.pid").write_text(str(process.pid), encoding="ascii")
    found = _connect(path, token)
    return (found, process.pid) if found is not None else None


#: The resident zygotes this process started: kept, so that no ``Popen`` is collected (and warns)
#: while its zygote runs on after this process.
_SPAWNED: list[subprocess.Popen[bytes]] = []


def _connect(path: Path, token: bytes) -> Connection | None:
    """A connection to the zygote listening at ``path``, the token sent; None when none listens."""
    import socket
    from multiprocessing.connection import Connection

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _address(path) as address:
            sock.connect(address)
    except OSError:
        sock.close()
        return None
    conn = Connection(sock.detach())
    try:
        conn.send_bytes(token)
    except OSError:
        conn.close()
        return None
    return conn


class _address:  # noqa: N801 - a context manager used as a function
    """The address of the socket file ``path``: itself, or, when too long for a socket address, the
    same file through a descriptor of its folder (``/proc/self/fd/N/name``), open for the block."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> str:
        if len(os.fsencode(self.path)) <= SOCKET_PATH_MAX:
            return str(self.path)
        self.fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
        return f"/proc/self/fd/{self.fd}/{self.path.name}"

    def __exit__(self, *_exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)


def _private_folder() -> Path:
    from mdmark.pipeline.cachestore import private_dirs

    base = folder()
    private_dirs(base)
    return base


def _token(base: Path) -> bytes:
    """The folder's secret (made once, 0600): what a client proves it can read."""
    import secrets

    path = base / "token"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    made = secrets.token_bytes(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as out:
        out.write(made)
    return made


def _recorded_pid(path: Path) -> int:
    try:
        return int(path.read_text(encoding="ascii"))
    except (OSError, ValueError):
        return 0


def _lock(path: Path) -> int:
    """Hold the lock file ``path`` (closing the descriptor lets it go): one command at a time finds
    or starts a key's zygote (two would start two)."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        os.close(fd)
        raise
    return fd


def _paths() -> list[str]:
    """This process's import path as the zygote gets it: absolute folders only, mdmark's own first,
    never the working folder (``python -m mdmark`` put it first: a repository's own ``sphinx/`` or
    ``docutils/`` must not stand in for the installed ones in a process that lives on)."""
    import mdmark

    own = str(Path(mdmark.__file__).resolve().parent.parent)
    here = os.getcwd()
    return list(dict.fromkeys([own, *(p for p in sys.path if p and os.path.isabs(p) and p != here)]))


def _code_stamp() -> list[Any]:
    """mdmark's source files and the import path's folders as they are on disk: an edit of mdmark,
    or a package installed or removed, is a new key."""
    from mdmark.util.environment import package_digest

    stamps: list[Any] = [package_digest()]
    for entry in _paths():
        try:
            st = os.stat(entry)
        except OSError:
            continue
        stamps.append((entry, st.st_ino, st.st_mtime_ns))
    return stamps
