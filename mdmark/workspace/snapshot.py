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
settings and conf.py): anything else reads as no snapshot.

A check and a build keep a snapshot each (``kind``): a build's holds its page's finished
sections too, ten times the size of a check's, which a check would only pay for.

One snapshot per process and workspace is written (the first run that needs one writes it): a CLI
run is one process; a long-running server writes after its first check only, and keeps its state in
memory.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.cachestore import read_entry, write_entry
from mdmark.util.environment import environment_digest

if TYPE_CHECKING:
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.workspace.main import Workspace

__all__ = ["restore", "save"]

#: Bumped when what a snapshot holds changes.
_FORMAT = 1


def _package_digest() -> str:
    """The stamps of mdmark's own files: an edited checkout (an editable install keeps its version)
    must not meet the drifts or tables an older mdmark made."""
    import mdmark

    parts: list[str] = []
    top = os.path.dirname(mdmark.__file__)
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                parts.append(f"{folder}/{name}\0{info.st_ino}\0{info.st_size}\0{info.st_mtime_ns}")
    return hashlib.sha256("\1".join(parts).encode()).hexdigest()


def _key(workspace: Workspace, config: Path, pipeline: Pipeline, kind: str) -> str:
    from mdmark import __version__
    from mdmark.core.facts import FACTS_VERSION

    digest = workspace.package_digest
    if digest is None:
        digest = workspace.package_digest = _package_digest()
    parts = ("snapshot", kind, str(_FORMAT), __version__, FACTS_VERSION, digest, environment_digest(), str(workspace.root), str(config), pipeline.parse_key)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _file(cache_dir: Path, config: Path, kind: str) -> Path:
    # One file per config and kind (the key is inside): a changed setting replaces the snapshot, never adds one.
    name = hashlib.sha256(str(config).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return cache_dir / "snapshots" / f"{name}.{kind}.pickle"


def restore(workspace: Workspace, pipeline: Pipeline, config: Path | None, kind: str) -> bool:
    """Fill a workspace made in this process from the snapshot of ``config``'s project, once;
    whether a snapshot was read. A workspace that already did work is left as it is."""
    if config is None or pipeline.cache_dir is None or workspace.snapshot_read or not workspace.pristine():
        return False
    workspace.snapshot_read = True
    data = read_entry(_file(pipeline.cache_dir, config, kind))  # authenticated, or None
    if data is None:
        return False
    from mdmark.workspace.picklefn import loads

    enabled = gc.isenabled()
    gc.disable()  # tens of thousands of small objects: the collector would run dozens of times for nothing
    try:
        try:
            value = loads(data)
        except Exception:  # noqa: BLE001 - an entry this user's mdmark wrote that no longer loads (code changed): unused
            return False
        if not isinstance(value, dict) or value.get("key") != _key(workspace, config, pipeline, kind):
            return False
        # What is adopted lives as long as the workspace: out of the collector's generations, or its
        # next full collection would walk every object of it again (most of a second at 1,200 documents).
        # Only then: a snapshot not used is garbage, and frozen garbage is never collected.
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    workspace.adopt_state(pipeline, value["state"])
    workspace.snapshot_used = True
    return True


def save(workspace: Workspace, pipeline: Pipeline, config: Path | None, kind: str) -> bool:
    """Write the workspace's state as the snapshot of ``config``'s project, once per workspace;
    whether it was written (the cache is an optimisation: a failure changes nothing else)."""
    if config is None or pipeline.cache_dir is None or workspace.snapshot_written:
        return False
    workspace.snapshot_written = True
    from mdmark.pipeline.contentcache import ensure_cache_dir
    from mdmark.workspace.picklefn import dumps

    value = {"key": _key(workspace, config, pipeline, kind), "state": workspace.state(pipeline, kind)}
    try:
        data = dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return False  # something kept cannot be written: no snapshot (the next run starts as before)
    try:
        ensure_cache_dir(pipeline.cache_dir)
        write_entry(_file(pipeline.cache_dir, config, kind), data)
    except OSError:
        return False
    return True
