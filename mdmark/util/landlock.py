"""Confining a process with Linux Landlock: what it may read, write and connect to (the guide page
``untrusted``).

The processes that parse and render a repository's documents (the worker pool of
:mod:`mdmark.pipeline.pool`) run code and libraries on content from strangers; mdmark's own
checks (the file door, the sandbox of substitutions) cover what mdmark knows about, Landlock covers
the rest: a library that writes beside the source (Sphinx's compile of a ``.po`` catalog through a
symlink), an ``{include}`` that found a way around the door, a conf.py the user trusted that
opens ``~/.ssh``. A confined process may read only the project, the Python installation and the
files the interpreter needs, write only its own scratch folder and the project's cache folder (a
trusted conf.py: the project too, as ``sphinx-build`` lets it), and for an untrusted project
connect or bind no TCP socket and signal no process outside its own domain.

A few lines of ctypes over the three system calls, not a binding: the kernel's interface is
stable and versioned (the *ABI*), and each newer ABI only adds rights to handle, so the rights
handled are those the running kernel knows (:func:`handled_fs`). Where the kernel has no Landlock,
:func:`abi` is 0 and nothing is confined (the caller says so once).

Landlock confines the calling thread and the threads and processes it starts afterwards: call
:func:`restrict` before the process starts any thread.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import site
import stat
import sys
import sysconfig
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

_CREATE_RULESET = 444
_ADD_RULE = 445
_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

#: Rights that apply to a file (a rule on a file may grant only these).
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_READ = EXECUTE | READ_FILE | READ_DIR
#: Files the C library and the interpreter read (when they are there).
_SYSTEM_FILES = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
    "/etc/locale.alias", "/etc/mime.types", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
    "/dev/urandom", "/dev/random",
)  # fmt: skip
#: Folders of shared libraries, locale and timezone data.
_SYSTEM_DIRS = (
    "/lib", "/lib32", "/lib64", "/libx32", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
    "/usr/local/lib", "/usr/share/zoneinfo", "/usr/share/locale", "/usr/share/i18n",
)  # fmt: skip
#: What a conf.py the user trusted may read besides (it may run programs, as under ``sphinx-build``:
#: ``git describe`` for the release, a diagram tool), still not the user's home folder.
_TRUSTED_DIRS = ("/usr", "/bin", "/sbin", "/etc", "/opt", "/nix", "/snap")
#: The first Linux release of each ABI that brought a protection mdmark uses.
_KERNEL_OF_ABI = {1: "5.13", 4: "6.7", 6: "6.12"}

#: The confinement this process is under, once :func:`restrict` succeeded (the kernel never undoes it).
_APPLIED: Applied | None = None


@dataclass(frozen=True)
class Confinement:
    """What the workers of one project may touch besides the system's and Python's own files.

    ``read``: the project (its root, the config folder, conf.py's folder); ``write``: folders also
    writable (the project's cache folder; a trusted project's root); ``files``: single files only
    readable (the cache key); ``trusted``: conf.py runs (network allowed, programs may run)."""

    read: tuple[str, ...]
    write: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    trusted: bool = False


@dataclass(frozen=True)
class Applied:
    """What :func:`restrict` put in force: the ABI, whether TCP is closed, whether signals and
    abstract UNIX sockets are scoped to the domain, the paths granted and those writable."""

    abi: int
    network_closed: bool
    scoped: bool
    rules: tuple[str, ...] = field(default=(), compare=False)
    writable: tuple[str, ...] = field(default=(), compare=False)


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def abi() -> int:
    """The Landlock ABI of the running kernel; 0 where there is none (another OS, an old kernel,
    Landlock disabled at boot)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return int(version) if version > 0 else 0


def handled_fs(version: int) -> int:
    """The file-system rights a ruleset of ABI ``version`` handles: every right that ABI knows."""
    if version < 1:
        return 0
    top = MAKE_SYM
    if version >= 2:
        top = REFER
    if version >= 3:
        top = TRUNCATE
    if version >= 5:
        top = IOCTL_DEV
    return (top << 1) - 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def restrict(confinement: Confinement, scratch: str, version: int) -> Applied:
    """Confine this process (this thread and what it starts afterwards) for ever: read the system's,
    Python's and ``confinement``'s files, write ``scratch`` and ``confinement.write``. Raises
    :class:`OSError` when the kernel refuses (the caller must not go on unconfined)."""
    fs = handled_fs(version)
    if not fs:
        raise OSError(95, "Landlock is not available")
    closed = not confinement.trusted and version >= 4
    scoped = not confinement.trusted and version >= 6
    attr = _RulesetAttr(
        handled_access_fs=fs,
        handled_access_net=(NET_BIND_TCP | NET_CONNECT_TCP) if closed else 0,
        scoped=(SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if scoped else 0,
    )
    # The structure the kernel of this ABI knows: 8 bytes up to ABI 3, 16 up to 5, 24 from 6.
    size = 8 if version < 4 else 16 if version < 6 else 24
    libc = _libc()
    ruleset = _check(libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)), "landlock_create_ruleset")
    granted: list[str] = []
    writable: list[str] = []
    try:
        for path, access in _grants(confinement, scratch):
            if _add(libc, ruleset, path, access & fs):
                granted.append(path)
                if access & WRITE_FILE:
                    writable.append(os.path.realpath(path))
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    global _APPLIED
    _APPLIED = Applied(version, closed, scoped, tuple(granted), tuple(writable))
    return _APPLIED


def enter(confinement: Confinement, scratch: str, version: int) -> Applied:
    """:func:`restrict` this process, then send what libraries write to temporary files to
    ``scratch`` (the one folder it may write besides ``confinement.write``)."""
    import tempfile

    from mdmark.util.conflock import LOCK_DIR_ENV

    # The lock that orders conf.py's runs stays the one file every process shares (mdmark.util.conflock).
    os.environ.setdefault(LOCK_DIR_ENV, tempfile.gettempdir())
    sys.dont_write_bytecode = True  # the installation is read-only now: no attempt to write there
    done = restrict(confinement, scratch, version)
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    return done


def refused(exc: BaseException) -> bool:
    """Whether ``exc`` is likely the kernel's refusal of this confined process: a permission error
    on no file (a connection) or on a file outside the folders it may write (inside them, only the
    file's own mode can refuse)."""
    if _APPLIED is None or not isinstance(exc, PermissionError):
        return False
    if not exc.filename:
        return True
    try:
        real = os.path.realpath(os.fsdecode(exc.filename))
    except TypeError:  # a file descriptor, not a name
        return True
    return not any(real == w or real.startswith(w.rstrip(os.sep) + os.sep) for w in _APPLIED.writable)


# -- what is said ----------------------------------------------------------------------------------


def missing_protections(version: int) -> list[str]:
    """The protections a kernel of Landlock ABI ``version`` (0: none) cannot give, each named."""
    missing: list[str] = []
    if version < 1:
        missing.append(f"ファイルの読み書きの制限（Landlock、Linux {_KERNEL_OF_ABI[1]} から）")
    if version < 4:
        missing.append(f"信頼していないプロジェクトの TCP の遮断（Landlock ABI 4、Linux {_KERNEL_OF_ABI[4]} から）")
    if version < 6:
        missing.append(f"信頼していないプロジェクトのシグナルと抽象 UNIX ソケットの遮断（Landlock ABI 6、Linux {_KERNEL_OF_ABI[6]} から）")
    return missing


def missing_sentence(missing: list[str]) -> str:
    """The one notice of the protections this machine lacks."""
    return (
        f"mdmark: この OS・カーネルには {'・'.join(missing)} が無いので、文書を読む作業プロセスのその部分は"
        "OS で閉じ込めず mdmark 自身の確かめ（埋め込むファイルの扉・信頼していない conf.py を動かさないこと）だけで守るため、"
        "守りを強めるには新しい Linux で動かしてください（今の守りの一覧は `mdmark trust --status`）。"
    )


def denied_sentence(exc: OSError) -> str:
    """What a confined process was refused by the kernel, and what to do about it."""
    if exc.filename:
        shown = str(exc.filename)
        if os.path.islink(shown):
            shown += f"`（リンクの先は `{os.path.realpath(shown)}`）"
        else:
            shown += "`"
        return (
            f"`{shown} を読み書きしようとしたが、文書を読む作業プロセスは OS（Landlock）でプロジェクト・Python・"
            "自分の作業フォルダとキャッシュの外には触れない（信頼していない conf.py ならプロジェクトの中にも書けない）ので止めたため、"
            "そのファイルを使う拡張・設定・取り込みを外すか、ファイルをプロジェクトの中に置いてください。"
        )
    return (
        f"文書を読む作業プロセスが OS（Landlock）に禁じられた操作（{exc.strerror or exc}）をしようとした（信頼していない"
        " conf.py のプロジェクトではネットワークにつなげない）ので止めたため、ネットワークを使う拡張・設定を外すか、"
        "conf.py を確かめてから `mdmark trust` で信頼してください。"
    )


def failed_sentence(exc: OSError) -> str:
    """Why a worker read nothing: the kernel refused to confine it."""
    return (
        f"文書を読む作業プロセスを OS（Landlock）で閉じ込められなかった（{exc.strerror or exc}）ので読むのを止めたため、"
        "Landlock の呼び出しを止めていない環境（seccomp で landlock_* を禁じていないコンテナなど）で動かしてください。"
    )


def _add(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> bool:
    """Grant ``access`` beneath ``path``; False when it is not there (nothing to grant)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= _FILE_RIGHTS
        rule = _PathBeneathAttr(allowed_access=access, parent_fd=fd)
        _check(libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)), f"landlock_add_rule {path}")
    finally:
        os.close(fd)
    return True


def _grants(confinement: Confinement, scratch: str) -> Iterator[tuple[str, int]]:
    everything = (1 << 64) - 1
    for path in python_paths():
        yield path, _READ
    for path in (*_SYSTEM_DIRS, *_SYSTEM_FILES):
        yield path, _READ
    if confinement.trusted:
        for path in _TRUSTED_DIRS:
            yield path, _READ
        for path in _git_config():
            yield path, _READ
    yield f"/proc/{os.getpid()}", READ_FILE | READ_DIR
    yield "/dev/null", READ_FILE | WRITE_FILE | TRUNCATE
    for path in (*confinement.read, *confinement.files):
        yield path, _READ
    for path in (scratch, *confinement.write):
        yield path, everything


def _git_config() -> Iterator[str]:
    """The user's git configuration files: a trusted conf.py may run git, which refuses to run when
    its configuration cannot be read."""
    home = os.environ.get("HOME", "")
    if home:
        yield os.path.join(home, ".gitconfig")
    xdg = os.environ.get("XDG_CONFIG_HOME", "") or (os.path.join(home, ".config") if home else "")
    if xdg:
        yield os.path.join(xdg, "git")


def python_paths() -> list[str]:
    """Where the running interpreter and its packages are: prefixes, the standard library,
    site-packages, ``sys.path``, the folders of packages imported (an editable install's are
    outside site-packages). Never the root, the home folder or a folder above it."""
    found: list[str] = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(Exception):  # a virtual environment without user site
            found.append(sysconfig.get_path(name))
    with contextlib.suppress(Exception):  # a virtual environment without user site
        found.extend(site.getsitepackages())
    with contextlib.suppress(Exception):  # a virtual environment without user site
        found.append(site.getusersitepackages())
    found.extend(p for p in sys.path if p)
    found.extend(_module_places())
    return _narrow(found)


def _module_places() -> Iterator[str]:
    """The folders (or single files) of the top-level modules imported so far, and what editable
    installs map package names to."""
    for name, module in list(sys.modules.items()):
        if "." in name or module is None:
            continue
        for place in list(getattr(module, "__path__", None) or ()):
            if isinstance(place, str):
                yield place
        origin = getattr(module, "__file__", None)
        if isinstance(origin, str) and not hasattr(module, "__path__"):
            yield origin
    for finder in sys.meta_path:
        mapping = getattr(finder, "MAPPING", None) or getattr(sys.modules.get(getattr(finder, "__module__", "")), "MAPPING", None)
        if isinstance(mapping, dict):
            yield from (str(v) for v in mapping.values())


def _narrow(paths: Iterable[str]) -> list[str]:
    """``paths`` resolved, without the root, the home folder or a folder above it (a ``sys.path``
    entry of ``~`` would open ``~/.ssh``), and without those inside another (one rule covers them)."""
    home = os.path.realpath(os.path.expanduser("~"))
    above_home = {home, *map(str, Path(home).parents)}
    kept: list[str] = []
    # Folders first: the modules' files inside them need no rule of their own.
    for path in sorted((p for p in paths if p and os.path.isabs(p)), key=len):
        if any(path == k or path.startswith(k + os.sep) for k in kept):
            continue
        real = os.path.realpath(path)
        if real in above_home or real == "/" or any(real == k or real.startswith(k + os.sep) for k in kept):
            continue
        kept.append(real)
    return kept
