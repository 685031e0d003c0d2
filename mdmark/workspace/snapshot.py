"""The workspace as the last CLI run left it, in one authenticated file: what makes the next run's
work after one edit the edited document's, as in a resident server.

A server keeps, between two checks, each document's facts by its file's stat, which files exist
(:class:`~mdmark.workspace.main.FileTree`), the index model, the last check's per-document drifts with
what each depended on (:mod:`mdmark.check.rules.reuse`) and a build's finished sections; after an
edit it stats the files, parses the edited document and re-runs what that document's change can
reach. A CLI run is a new process and had none of it: it read every document again to key it and
loaded one cache entry per document. Here the workspace's state is written at the end of a run
that changed it, as one file, and read back at the start of the next run that needs more than the
stored answer (:mod:`mdmark.check.stored`); everything in it is checked again the way a server
checks what it kept — by stat stamps (settled ones only), content keys, and the objects' own
comparisons — so a stale part is never used, only made again.

The file lives in the project's cache folder and carries an HMAC (:mod:`mdmark.pipeline.cachestore`):
a damaged, foreign or tampered snapshot does not verify and is ignored, never unpickled. It is
made for one mdmark (its version, the digest of its package's files), one Python environment
(:func:`~mdmark.util.environment.environment_digest`), one config file and one parse key (MyST
settings and conf.py): anything else reads as no snapshot. Its file is named for the config, the
kind and the installation (that mdmark in that environment): two installations taking turns on a
project each keep theirs (:data:`KEPT_INSTALLATIONS`), a changed setting replaces it.

A check and a build keep a snapshot each (``kind``): a build's holds its page's finished
sections too, ten times the size of a check's, which a check would only pay for.

A check's snapshot is two files: the *base*, written in full, and a small *delta* beside it. The objects
that make up most of a snapshot — each document's facts, the index model, each document's HTML
fragment (:data:`_UNIT_TYPES`: values made once and never changed in place, told apart by their
content keys) — are pickled apart from the rest (the *skeleton*: the memos that hold them) and
referred to from it by number. A run that read a base refers to each such object it still holds
by its number in that base, and writes only the ones it made (the edited document's facts) with
the whole skeleton as the delta; the base is written again only when the delta has grown past
:func:`_delta_limit`, when none was read, or when it was made for another key. A delta names its
base (a random token of the base's): one left beside a newer base is not read.

One snapshot per process and workspace is written (the first run that needs one writes it): a CLI
run is one process; a long-running server writes after its first check only, and keeps its state in
memory. A one-shot CLI command (:func:`mdmark.pipeline.resident.enabled`) leaves the writing of its
snapshot to a child process once its answer is made (``detached``), which holds a lock beside the
file while it writes; the next run waits for that lock (at most :data:`WRITER_WAIT`) before reading.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pickle
import secrets
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.cachestore import read_entry_view, write_entry
from mdmark.util.environment import environment_digest, package_digest

if TYPE_CHECKING:
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.workspace.main import Workspace

__all__ = ["restore", "save"]

#: Bumped when what a snapshot holds, or how it is laid out, changes.
_FORMAT = 3

#: The classes whose objects are kept apart from the skeleton (module, class name): each a value
#: made once (a document's facts and fragment by its content key, the index model by its file's
#: stamp) and replaced, never changed in place, so a delta may point at the base's copy. Looked up
#: among the modules imported (a class not imported has no object in this process's state); named,
#: not imported, as the HTML layer sits above this one.
_UNIT_TYPES = (("mdmark.core.facts", "DocFacts"), ("mdmark.index.model", "Index"), ("mdmark.html.render", "Fragment"))


#: The snapshots written as deltas. Not a build's: most of it is its page's sections (a few large
#: objects that change with every edit), and what its objects share with the rest is lost when
#: they are written apart (a third larger at 1,200 documents).
_DELTA_KINDS = ("check",)


def _unit_types() -> frozenset[type]:
    found = (getattr(sys.modules.get(module), name, None) for module, name in _UNIT_TYPES)
    return frozenset(t for t in found if isinstance(t, type))


def _delta_limit(base_units: int) -> int:
    """How many objects of their own a delta may hold before the base is written again: a delta
    writes again, each time, every object made since its base."""
    return max(64, base_units // 8)


@dataclass
class Base:
    """What a run keeps of the snapshot it read, to write the next one as a delta of it."""

    key: str
    token: str
    #: The base's objects (:data:`_UNIT_TYPES`) by their number in it, and each one's number by
    #: ``id`` (the list keeps them alive, so the ids stay theirs).
    units: list[Any]
    numbers: dict[int, int] = field(default_factory=dict)


def _key(workspace: Workspace, config: Path, pipeline: Pipeline, kind: str) -> str:
    parts = ("snapshot", kind, _installation(), str(workspace.root), str(config), pipeline.parse_key)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


#: Snapshots of one config and kind kept, each written by another mdmark installation (its code and
#: Python environment), the most recently written: two installations taking turns on a project (the
#: editor's and the terminal's) each find their own instead of replacing the other's.
KEPT_INSTALLATIONS = 2


def _installation() -> str:
    """Which mdmark writes and reads a snapshot: its layout, version, code and Python environment
    (not the project's settings: a changed setting replaces the snapshot, never adds one)."""
    from mdmark import __version__
    from mdmark.core.facts import FACTS_VERSION

    parts = (str(_FORMAT), __version__, FACTS_VERSION, package_digest(), environment_digest())
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _file(cache_dir: Path, config: Path, kind: str, installation: str) -> Path:
    # One file per config, kind and installation (the whole key is inside).
    name = hashlib.sha256(str(config).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_dir / "snapshots" / f"{name}.{installation}.{kind}.pickle"


def _prune(path: Path, kind: str) -> None:
    """After the base ``path`` was written: the snapshots of its config and kind that other
    installations wrote go, but the :data:`KEPT_INSTALLATIONS` written last (with their deltas and
    locks), and the one file of the layout before installations were named."""
    config_part = path.name.split(".", 1)[0]
    others: list[tuple[int, Path]] = []
    for other in path.parent.glob(f"{config_part}.*.{kind}.pickle"):
        if other != path:
            try:
                others.append((other.stat().st_mtime_ns, other))
            except OSError:
                continue
    others.sort(reverse=True)
    gone = [other for _mtime, other in others[KEPT_INSTALLATIONS - 1 :]]
    gone.append(path.parent / f"{config_part}.{kind}.pickle")
    for other in gone:
        for file in (other, _delta_file(other), _lock_file(other)):
            try:
                file.unlink(missing_ok=True)
            except OSError:
                continue


def _delta_file(base: Path) -> Path:
    return base.with_name(base.name.removesuffix(".pickle") + ".delta.pickle")


def _pack(header: dict[str, Any], units: bytes, skeleton: bytes) -> bytes:
    head = json.dumps({**header, "units": len(units)}, separators=(",", ":")).encode()
    return len(head).to_bytes(4, "big") + head + units + skeleton


def _unpack(data: memoryview | None) -> tuple[dict[str, Any], memoryview, memoryview] | None:
    """The header, the objects' pickle and the skeleton's pickle of a file's data (authenticated;
    views, not copies: a build's is 30 MB)."""
    if data is None or len(data) < 4:
        return None
    size = int.from_bytes(data[:4], "big")
    try:
        header = json.loads(bytes(data[4 : 4 + size]))
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("format") != _FORMAT or not isinstance(header.get("units"), int):
        return None
    start = 4 + size
    middle = start + header["units"]
    return header, data[start:middle], data[middle:]


#: Seconds a run waits for the snapshot an earlier command's child is still writing (then reads
#: what there is: the one before, or none).
WRITER_WAIT = 10.0


def _lock_file(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _writer(lock: Path) -> str | None:
    """Fork the child that writes the snapshot, holding ``lock`` until it ends: "child" in it,
    "parent" here; None where no child can be had (this process writes it)."""
    import fcntl

    if not hasattr(os, "fork"):
        return None
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another command's child writes it now: this one writes too (each entry is replaced whole)
        os.close(fd)
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        pid = os.fork()
    except OSError:
        os.close(fd)
        return None
    if pid != 0:
        os.close(fd)  # the lock stays with the child's copy until it ends
        return "parent"
    # The child: no terminal, no pipe of the caller's (a pre-commit hook waits for their end).
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    return "child"


def _wait_for_writer(lock: Path) -> None:
    """Wait (at most :data:`WRITER_WAIT` seconds) while a child of an earlier command writes."""
    import fcntl
    import time

    try:
        fd = os.open(lock, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # none ever wrote apart
    try:
        deadline = time.monotonic() + WRITER_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except OSError:
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.01)
    finally:
        os.close(fd)


def restore(workspace: Workspace, pipeline: Pipeline, config: Path | None, kind: str) -> bool:
    """Fill a workspace made in this process from the snapshot of ``config``'s project, once;
    whether a snapshot was read. A workspace that already did work is left as it is."""
    if config is None or pipeline.cache_dir is None or workspace.snapshot_read or not workspace.pristine():
        return False
    workspace.snapshot_read = True
    path = _file(pipeline.cache_dir, config, kind, _installation())
    _wait_for_writer(_lock_file(path))
    base = _unpack(read_entry_view(path))  # authenticated, or None
    if base is None:
        return False
    key = _key(workspace, config, pipeline, kind)
    header, units_data, skeleton = base
    if header.get("key") != key or not isinstance(header.get("token"), str):
        return False
    delta = _unpack(read_entry_view(_delta_file(path)))
    if delta is not None and (delta[0].get("key") != key or delta[0].get("base") != header["token"]):
        delta = None  # one left by a run that read an older base, or made for another key
    from mdmark.workspace.picklefn import loads

    enabled = gc.isenabled()
    gc.disable()  # tens of thousands of small objects: the collector would run dozens of times for nothing
    try:
        try:
            units = loads(units_data)
            fresh = loads(delta[1]) if delta is not None else []
            if delta is not None:
                skeleton = delta[2]
            # Numbered objects only where some were written apart (a build's are not).
            value = loads(skeleton, units=(units, fresh)) if units or fresh else loads(skeleton)
        except Exception:  # noqa: BLE001 - an entry this user's mdmark wrote that no longer loads (code changed): unused
            return False
        if not isinstance(value, dict) or not isinstance(units, list) or not isinstance(fresh, list):
            return False
        # What is adopted lives as long as the workspace: out of the collector's generations, or its
        # next full collection would walk every object of it again (most of a second at 1,200 documents).
        # Only then: a snapshot not used is garbage, and frozen garbage is never collected.
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    workspace.adopt_state(pipeline, value)
    workspace.snapshot_base = Base(key, header["token"], units, {id(unit): number for number, unit in enumerate(units)})
    workspace.snapshot_used = True
    return True


def save(workspace: Workspace, pipeline: Pipeline, config: Path | None, kind: str, detached: bool = False) -> bool:
    """Write the workspace's state as the snapshot of ``config``'s project, once per workspace:
    as a delta of the snapshot read when one was and the delta stays small, else in full;
    whether it was written (the cache is an optimisation: a failure changes nothing else).

    ``detached``: written by a child process while this one goes on (a CLI command ends as soon
    as its answer is made: the snapshot, 30 MB for a build at 1,200 documents, is for the next
    command); the next run's :func:`restore` waits for that child's lock."""
    if config is None or pipeline.cache_dir is None or workspace.snapshot_written:
        return False
    workspace.snapshot_written = True
    base, workspace.snapshot_base = workspace.snapshot_base, None  # written once: the base's objects need not stay
    writer = _writer(_lock_file(_file(pipeline.cache_dir, config, kind, _installation()))) if detached else None
    if writer == "parent":
        return True  # the child writes it
    if writer == "child":
        try:
            _write(workspace, pipeline, config, kind, base)
        finally:
            # The writer, whatever happened: nothing of the command's own end is its to do (its
            # atexit would end the command's workers, its output is the command's).
            os._exit(0)
    return _write(workspace, pipeline, config, kind, base)


def _write(workspace: Workspace, pipeline: Pipeline, config: Path, kind: str, base: Base | None) -> bool:
    from mdmark.pipeline.contentcache import ensure_cache_dir
    from mdmark.workspace.picklefn import dumps

    key = _key(workspace, config, pipeline, kind)
    if base is not None and (base.key != key or kind not in _DELTA_KINDS):
        base = None
    state = workspace.state(pipeline, kind)
    try:
        skeleton, fresh = _skeleton(state, base.numbers if base is not None else None, kind)
        if base is not None and len(fresh) > _delta_limit(len(base.units)):
            base = None
            skeleton, fresh = _skeleton(state, None, kind)
        units = dumps(fresh)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return False  # something kept cannot be written: no snapshot (the next run starts as before)
    assert pipeline.cache_dir is not None
    path = _file(pipeline.cache_dir, config, kind, _installation())
    try:
        ensure_cache_dir(pipeline.cache_dir)
        if base is not None:
            write_entry(_delta_file(path), _pack({"format": _FORMAT, "key": key, "base": base.token}, units, skeleton))
        else:
            write_entry(path, _pack({"format": _FORMAT, "key": key, "token": secrets.token_hex(16)}, units, skeleton))
            _delta_file(path).unlink(missing_ok=True)  # a delta of the base replaced (its token no longer matches anyway)
            _prune(path, kind)
    except OSError:
        return False
    return True


class _Numbers:
    """The numbers of :func:`_skeleton` (see :class:`mdmark.workspace.picklefn.Numbered`)."""

    def __init__(self, base: dict[int, int] | None, kind: str) -> None:
        self.types = _unit_types() if kind in _DELTA_KINDS else frozenset()
        self.base = base
        self.fresh: list[Any] = []
        self.own: dict[int, int] = {}

    def number(self, obj: Any) -> int:
        found = self.base.get(id(obj)) if self.base is not None else None
        if found is not None:
            return found
        mine = self.own.get(id(obj))
        if mine is None:
            mine = self.own[id(obj)] = len(self.fresh) if self.base is None else -1 - len(self.fresh)
            self.fresh.append(obj)
        return mine


def _skeleton(state: dict[str, Any], numbers: dict[int, int] | None, kind: str) -> tuple[bytes, list[Any]]:
    """The state pickled with each object of :data:`_UNIT_TYPES` as a number into the list
    returned (the objects to write beside it); for a delta (``numbers``: the base's numbers by
    ``id``), the base's number for one the base holds, else a negative one into that list."""
    from mdmark.workspace.picklefn import dumps

    made = _Numbers(numbers, kind)
    if not made.types:
        return dumps(state), []  # nothing written apart: no call per object to ask
    return dumps(state, made), made.fresh
