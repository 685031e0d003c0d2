"""The one worker pool: cold parses and cold builds run their documents in worker processes.

Each worker makes its own copy of the caller's worker object once — for the pipeline, its own
:class:`~mdmark.pipeline.pipeline.Pipeline` (its own Sphinx application) for the same project and
settings, as :meth:`~mdmark.pipeline.pipeline.Pipeline.worker_spec` says how — and then runs tasks
against it. A task is a module-level function ``task(object, job)``, so it pickles by reference;
the pool knows nothing of what the object is. Workers start with ``fork`` when this
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
from typing import Any, Protocol, TypeVar

J = TypeVar("J")
R = TypeVar("R")
W = TypeVar("W", bound="Spawnable")


class Spawnable(Protocol):
    """What a worker pool can copy into its workers."""

    def worker_spec(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """A module-level factory and its (picklable) arguments; the worker calls
        ``factory(*args, scratch=folder)`` once, with a scratch folder the pool removes."""
        ...


#: Below this many documents, starting worker processes costs more than they save.
PARALLEL_THRESHOLD = 24

#: This worker process's copy of the caller's object, made by :func:`_start` (None in the parent).
_WORKER: Any = None


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
    owner: W,
    task: Callable[[W, J], R],
    jobs: Sequence[J],
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[R]:
    """``task(worker's copy of owner, job)`` for every job, in worker processes, results in job order.

    ``meanwhile()`` runs in this process once the jobs are handed out, before the first result is
    taken: work of the caller's that does not need the results overlaps with the workers'.
    """
    method = "fork" if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    workers = min(worker_count(), max(1, len(jobs)))
    factory, args = owner.worker_spec()
    with tempfile.TemporaryDirectory(prefix="mdmark-workers-") as scratch:
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(method),
            initializer=_start,
            initargs=(factory, args, scratch),
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


def _start(factory: Callable[..., Any], args: tuple[Any, ...], scratch: str) -> None:
    global _WORKER
    from mdmark.util.lifeline import die_with_parent

    die_with_parent()
    _WORKER = factory(*args, scratch=Path(scratch))


def _run(task: Callable[[Any, J], R], job: J) -> R:
    assert _WORKER is not None, "a task runs in a worker started by run_in_workers"
    return task(_WORKER, job)
