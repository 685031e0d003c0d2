"""The one worker pool: cold parses and cold builds run their documents in worker processes.

Each worker makes its own :class:`~mdmark.pipeline.pipeline.Pipeline` (its own Sphinx application) for the
caller's project and settings, once, and then runs tasks against it. A task is a module-level
function ``task(pipeline, job)``, so it pickles by reference. Workers start with ``fork`` when this
process runs one thread (cheap), else ``spawn`` (fork is unsafe once threads run: the server), and
die with their parent; their Sphinx scratch folders are made under one temporary folder that the
parent removes, as workers end without running finalizers.
"""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from mdmark.pipeline.pipeline import Pipeline

J = TypeVar("J")
R = TypeVar("R")

#: Below this many documents, starting worker processes costs more than they save.
PARALLEL_THRESHOLD = 24

#: This worker process's pipeline, made by :func:`_start` (None in the parent).
_WORKER: Pipeline | None = None


def worker_count() -> int:
    """Worker processes for a cold parse or build: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def parallel(jobs: int) -> bool:
    """Whether ``jobs`` documents are worth worker processes."""
    return jobs >= PARALLEL_THRESHOLD and worker_count() > 1


def run_in_workers(
    pipeline: Pipeline,
    task: Callable[[Pipeline, J], R],
    jobs: Sequence[J],
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[R]:
    """``task(worker's pipeline, job)`` for every job, in worker processes, results in job order.

    ``meanwhile()`` runs in this process once the jobs are handed out, before the first result is
    taken: work of the caller's that does not need the results overlaps with the workers'.
    """
    method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    workers = min(worker_count(), max(1, len(jobs)))
    spec = (
        str(pipeline.config_root),
        pipeline.settings,
        str(pipeline.cache_dir) if pipeline.cache_dir is not None else None,
        str(pipeline.conf) if pipeline.conf is not None else None,
    )
    with tempfile.TemporaryDirectory(prefix="mdmark-workers-") as scratch:
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(method),
            initializer=_start,
            initargs=(*spec, scratch),
        )
        try:
            # Small chunks: documents differ in cost, and one worker must not be left with a long last chunk.
            chunk = max(1, min(8, len(jobs) // (workers * 8)))
            results = pool.map(functools.partial(_run, task), jobs, chunksize=chunk)
            if meanwhile is not None:
                meanwhile()
            yield from results
        except BaseException:
            # A failure (or Ctrl+C) here stops at once: the jobs not yet started are dropped.
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)


def _start(config_root: str, settings: Any, cache_dir: str | None, conf: str | None, scratch: str) -> None:
    global _WORKER
    from mdmark.util.lifeline import die_with_parent
    from mdmark.pipeline.pipeline import Pipeline

    die_with_parent()
    _WORKER = Pipeline(
        Path(config_root),
        settings,
        Path(cache_dir) if cache_dir is not None else None,
        Path(conf) if conf is not None else None,
        scratch=Path(scratch),
    )


def _run(task: Callable[[Pipeline, J], R], job: J) -> R:
    assert _WORKER is not None, "a task runs in a worker started by run_in_workers"
    return task(_WORKER, job)
