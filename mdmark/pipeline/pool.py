"""The one worker pool: every parse and render of a document runs in a bounded worker process.

A document is untrusted input: a huge table, deeply nested directives, an ``{include}`` of a FIFO
or of one file a thousand times over can take any amount of memory, CPU or time, and Sphinx and
docutils cannot be interrupted from another thread. So the process that answers (the MCP server,
the CLI) never parses: it hands each cold document to a worker process of this pool, which runs
under the bounds of :mod:`mdmark.pipeline.limits`. A worker that passes a bound, crashes, or whose
caller is stopped (a client gone, a call past its time) is killed and a new one is started on the
next task; the document gets one sentence (:func:`~mdmark.pipeline.limits.limit_message`). No lock
of the parent is held while a worker works, so one hostile project never stalls another.

Workers stay alive between tasks and calls (a few idle ones are kept per process), forked from a
zygote that made the caller's worker object once (:mod:`mdmark.pipeline.zygote`); where a zygote
cannot be had (no ``fork``, or it passed a bound while making the object) workers make their own.
A task is a module-level function ``task(object, job)`` (the pipeline's are in
:mod:`mdmark.pipeline.tasks`), so it pickles by reference; the pool knows nothing of what the
object is. Processes start with ``fork`` while this process runs one thread (the CLI: cheap), else
from a fork server that has imported the parser once (fork is unsafe once threads run: the server);
they die with this process (but the zygote of a one-shot CLI command, which outlives it for the
next command: :mod:`mdmark.pipeline.resident`), and their Sphinx scratch folders live under one temporary folder it
removes.

A worker is handed its next document while it reads the current one (when the message is small),
so it never waits for this process between two documents.

Where the kernel has Landlock, the operating system confines them too (:mod:`mdmark.util.landlock`,
the guide page ``untrusted``): an owner that names its ``worker_confinement()`` (the pipeline: the
project's folders, its cache folder, whether conf.py is trusted) gets zygotes and workers confined.
A confined worker serves only its own project (:class:`~mdmark.pipeline.zygote.Plan`). Where the
kernel has none, the pool says once which protections are missing and runs as before; a pool's
``probe`` can be replaced (tests) but only takes protection away from that pool.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from mdmark.pipeline import limits, resident
from mdmark.pipeline.limits import ZYGOTES, Clock, Failed, Limits, max_workers
from mdmark.pipeline.zygote import Plan, Worker, Zygote
from mdmark.util import landlock

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

#: Idle workers a process keeps for the next call.
KEEP_IDLE = 2
#: Jobs handed to one worker at once: the one it reads and the next.
DEPTH = 2
#: A job waits in a worker's pipe only when its message is at most this big: a worker stuck on its
#: first document must not fill the pipe, or this process would block on the write.
QUEUED_BYTES = 32 * 1024

J = TypeVar("J")
R = TypeVar("R")
W = TypeVar("W", bound="Spawnable")


class Spawnable(Protocol):
    """What a worker pool can copy into its workers."""

    def worker_spec(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """A module-level factory and its (picklable, hashable) arguments; the worker calls
        ``factory(*args, scratch=folder)`` once, with a scratch folder the pool removes."""
        ...

#: Below this many documents, using more than one worker costs more than it saves (a second

class _Shared:
    """A job at work for one caller that other callers asking for the same job wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None


class _Busy:
    """A worker at work for one call: the jobs handed to it, in order (the first is the one it reads)."""

    def __init__(self, worker: Worker, limits: Limits, now: float) -> None:
        self.worker = worker
        self.jobs: collections.deque[int] = collections.deque()
        #: The wall clock of the first job (it starts again when the next one does).
        self.clock = Clock(worker.pid, limits, now)


class Pool:
    """Worker processes shared by every call of this process (see the module's docstring).

    At most :func:`max_workers` run at once; a job identical to one at work for another caller
    (twenty sessions exporting the same cold document) waits for that one's result instead of
    parsing again, as the callers did when they took turns on one lock.
    """

    def __init__(self, probe: Callable[[], int] = landlock.abi) -> None:
        """``probe``: the Landlock ABI of the kernel (0: none). Tests hand one that answers 0 to
        see the fallback; the probe can only take protection away from this pool, never from another."""
        self._probe = probe
        #: The probe's answer, asked once; whether the missing protections were said.
        self._abi: int | None = None
        self._noticed = False
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._scratch: str | None = None
        self._live = 0
        self._shared: dict[Any, _Shared] = {}
        #: Zygotes by spec, oldest first.
        self._zygotes: collections.OrderedDict[Any, Zygote] = collections.OrderedDict()
        #: Specs whose zygote passed a bound while making the object: their workers make their own.
        self._no_zygote: set[Any] = set()

    def _scratch_dir(self) -> str:
        with self._lock:
            if self._scratch is None:
                self._scratch = tempfile.mkdtemp(prefix="mdmark-workers-")
                atexit.register(shutil.rmtree, self._scratch, True)
            return self._scratch

    def _make(self, memory: int, plan: Plan | None = None) -> Worker:
        # Chosen at each start: fork only while this process runs one thread.
        return Worker.start(_context(), self._scratch_dir(), memory, plan)

    def abi(self) -> int:
        """The Landlock ABI this pool confines with (0: none), asked of the probe once."""
        with self._lock:
            if self._abi is None:
                self._abi = max(0, self._probe())
            return self._abi

    def plan(self, owner: Spawnable) -> Plan | None:
        """How ``owner``'s workers are confined: None for an owner that names no confinement, or
        where the kernel has no Landlock (said once, with what is missing: today's door stays)."""
        confinement = getattr(owner, "worker_confinement", None)
        if confinement is None:
            return None
        version = self.abi()
        missing = landlock.missing_protections(version)
        if missing:
            with self._lock:
                say, self._noticed = not self._noticed, True
            if say:
                print(landlock.missing_sentence(missing), file=sys.stderr, flush=True)
        if version < 1:
            return None
        made = confinement()
        assert isinstance(made, landlock.Confinement)
        return Plan(made, version)

    def _start_zygote(self, spec: Any, limits: Limits, plan: Plan | None = None) -> Zygote | None:
        """The zygote of ``spec``, started now (not waited for) if there is none or it broke; None
        where workers make their own."""
        if not _can_fork():
            return None
        with self._lock:
            if spec in self._no_zygote:
                return None
            zygote = self._zygotes.get(spec)
            if zygote is not None and not zygote.broken:
                return zygote
        zygote = _resident_zygote(spec, limits, plan)
        if zygote is None:
            zygote = Zygote.start(_context(), spec, self._scratch_dir(), limits, plan)
        old: list[Zygote] = []
        with self._lock:
            self._zygotes[spec] = zygote
            while len(self._zygotes) > ZYGOTES:
                old.append(self._zygotes.popitem(last=False)[1])
        for gone in old:
            gone.close()
        return zygote

    def _zygote(self, spec: Any, limits: Limits, plan: Plan | None = None) -> Zygote | None:
        """The ready zygote of ``spec``, started now if there is none; None where workers make their own."""
        zygote = self._start_zygote(spec, limits, plan)
        if zygote is None:
            return None
        ready, failed = zygote.settle()
        with self._lock:
            if failed:  # it passed a bound while making the object: workers make their own
                if self._zygotes.get(spec) is zygote:
                    del self._zygotes[spec]
                self._no_zygote.add(spec)
            elif spec in self._zygotes:
                self._zygotes.move_to_end(spec)
        return zygote if ready else None

    def prepare(self, owner: Spawnable) -> None:
        """Start the zygote of ``owner`` now without waiting for it (see :func:`prepare`)."""
        self._start_zygote(owner.worker_spec(), Limits.current(), self.plan(owner))

    def _take(self, limits: Limits, spec: Any, plan: Plan | None = None) -> Worker | None:
        """An idle worker holding ``spec``'s object, a new one, or None when :func:`max_workers` are
        at work. A confined worker (``plan``) serves only the project it is confined to."""
        memory = limits.memory
        spare: Worker | None = None
        with self._lock:
            for worker in list(self._idle):
                if worker.spec == spec and worker.memory == memory and worker.plan == plan:
                    self._idle.remove(worker)
                    if worker.alive():
                        self._live += 1
                        return worker
                    worker.kill()
            if self._live >= max_workers():
                return None
            self._live += 1
        try:
            zygote = self._zygote(spec, limits, plan)
            forked = zygote.fork() if zygote is not None else None
            if forked is not None:
                return forked
            with self._lock:  # no zygote: an unconfined idle worker of another spec makes this one's object itself
                while self._idle and spare is None and plan is None:
                    candidate = self._idle.pop()
                    if candidate.memory == memory and candidate.plan is None and candidate.alive():
                        spare = candidate
                    else:
                        candidate.kill()
            if spare is not None:
                return spare
            made = self._make(memory, plan)
            if plan is not None:
                made.spec = spec  # confined to this project: it serves this spec only
            return made
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        with self._lock:
            self._live -= 1

    def _give(self, worker: Worker) -> None:
        if worker.retiring:
            self._drop(worker)
            return
        with self._lock:
            self._live -= 1
            self._idle.append(worker)
            # The one just used is kept: the next call most likely wants the same project.
            surplus = self._idle[:-KEEP_IDLE] if len(self._idle) > KEEP_IDLE else []
            del self._idle[: len(surplus)]
        for old in surplus:
            old.kill()

    def _drop(self, worker: Worker) -> None:
        self._release()
        worker.kill()

    def run(
        self,
        owner: W,
        task: Callable[[W, J], R],
        jobs: Sequence[J],
        width: int = 1,
        meanwhile: Callable[[], object] | None = None,
        done: Callable[[int, R | Failed], None] | None = None,
    ) -> list[R | Failed]:
        """``task(worker's copy of owner, job)`` for every job, on at most ``width`` workers at once;
        the results in job order, a :class:`Failed` for a job whose worker did not finish it. Jobs
        start in the order given (a caller puts the big ones first).

        ``meanwhile()`` runs here once the first jobs are handed out; ``done(i, result)`` as each
        job ends. A stop of the calling thread (:class:`~mdmark.server.limits.CallStopped`, Ctrl+C)
        kills the workers at work and propagates.
        """
        call = _Call(self, owner, task, jobs, width, done)
        try:
            while call.unfinished():
                call.hand_out()
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                call.receive()
                call.check_clocks()
                call.take_shared()
        except BaseException:
            call.abandon()
            raise
        return call.outcomes()

    def prestart(self, count: int = KEEP_IDLE) -> None:
        """Start ``count`` idle workers now, so that the first call does not wait for one."""
        memory = Limits.current().memory
        for _ in range(count):
            with self._lock:
                self._live += 1
            self._give(self._make(memory))

    def close(self) -> None:
        """End the idle workers and the zygotes (the next call starts from this process as it is now)."""
        with self._lock:
            idle, self._idle = self._idle, []
            zygotes = list(self._zygotes.values())
            self._zygotes.clear()
            self._no_zygote.clear()
        for worker in idle:
            worker.kill()
        for zygote in zygotes:
            zygote.close()


class _Call(Generic[J, R]):
    """One call of :meth:`Pool.run`: its jobs, the workers at work for it, and the jobs it shares
    with other callers (one identical to a job at work for another caller waits for that one)."""

    def __init__(
        self,
        pool: Pool,
        owner: Spawnable,
        task: Callable[[Any, J], R],
        jobs: Sequence[J],
        width: int,
        done: Callable[[int, R | Failed], None] | None,
    ) -> None:
        self.pool = pool
        self.limits = Limits.current()
        self.spec = owner.worker_spec()
        self.plan = pool.plan(owner)
        self.task = task
        self.place = (self.spec, task)
        self.jobs = jobs
        self.width = max(1, min(width, len(jobs)))
        self.done = done
        self.results: list[R | Failed | None] = [None] * len(jobs)
        self.pending = collections.deque(range(len(jobs)))
        self.busy: dict[Connection, _Busy] = {}
        #: Jobs another caller is doing: its shared entry, by job.
        self.waiting: dict[int, _Shared] = {}
        #: Jobs this call does for others too.
        self.leading: dict[int, _Shared] = {}
        #: The pickled message of the next job (pickled once, even while it waits for a worker).
        self.message: tuple[int, bytes] | None = None

    def unfinished(self) -> bool:
        return bool(self.pending or self.busy or self.waiting)

    def outcomes(self) -> list[R | Failed]:
        return [r for r in self.results if r is not None]

    def finish(self, i: int, result: R | Failed) -> None:
        self.results[i] = result
        shared = self.leading.pop(i, None)
        if shared is not None:
            with self.pool._lock:
                self.pool._shared.pop(_key(self.place, self.jobs[i]), None)
            shared.result = result
            shared.done.set()
        if self.done is not None:
            self.done(i, result)

    def next_job(self) -> int | None:
        """The next pending job this call does itself (one another caller does is waited for)."""
        while self.pending:
            i = self.pending[0]
            key = _key(self.place, self.jobs[i])
            if key is not None and i not in self.leading:  # leading it already: it was handed back
                with self.pool._lock:
                    other = self.pool._shared.get(key)
                    if other is None:
                        self.leading[i] = self.pool._shared[key] = _Shared()
                if other is not None:
                    self.pending.popleft()
                    self.waiting[i] = other
                    continue
            return i
        return None

    def hand(self, entry: _Busy, i: int, message: bytes) -> bool:
        try:
            entry.worker.conn.send_bytes(message)
        except (OSError, ValueError):
            return False
        self.pending.popleft()
        entry.jobs.append(i)
        entry.worker.served += 1
        return True

    def lost(self, entry: _Busy, failure: Failed | None) -> None:
        """The worker ended: its first job gets ``failure``; the ones behind it go back to the queue."""
        del self.busy[entry.worker.conn]
        self.pool._drop(entry.worker)
        if failure is not None and entry.jobs:
            self.finish(entry.jobs.popleft(), failure)
        self.pending.extendleft(reversed(entry.jobs))

    def release(self, entry: _Busy) -> None:
        """The worker has no job of this call left: back to the pool."""
        del self.busy[entry.worker.conn]
        self.pool._give(entry.worker)

    def hand_out(self) -> None:
        """New workers first (up to ``width``), then a second job to each worker whose message is
        small: it never waits for this process between two documents, and a small message never
        fills the pipe of a worker that is stuck on its first."""
        while len(self.busy) < self.width and self.next_job() is not None:
            worker = self.pool._take(self.limits, self.spec, self.plan)
            if worker is None:
                break  # every worker is at work: wait for one to come back
            self.busy[worker.conn] = _Busy(worker, self.limits, time.monotonic())
        for entry in list(self.busy.values()):
            self.queue(entry)

    def queue(self, entry: _Busy) -> None:
        """Hand ``entry``'s worker jobs until it has :data:`DEPTH` of them."""
        from multiprocessing.reduction import ForkingPickler

        while len(entry.jobs) < DEPTH and not entry.worker.retiring and (i := self.next_job()) is not None:
            if self.message is None or self.message[0] != i:
                self.message = (i, bytes(ForkingPickler.dumps((self.spec, self.task, self.jobs[i], self.limits.cpu))))
            if entry.jobs and len(self.message[1]) > QUEUED_BYTES:
                break
            if not entry.jobs:
                entry.clock.start(time.monotonic())
            if not self.hand(entry, i, self.message[1]):
                self.lost(entry, None)  # died while idle: the job goes to another
                break

    def receive(self) -> None:
        """Take the answers the workers have sent. Short waits: a stop of this thread is raised
        between two of them."""
        if self.busy:
            ready = wait(list(self.busy), timeout=0.05)
        else:
            time.sleep(0.02)
            ready = []
        for conn in ready:
            assert isinstance(conn, Connection)
            entry = self.busy[conn]
            try:
                kind, value = conn.recv()
            except (EOFError, OSError):
                self.lost(entry, entry.worker.death())
                continue
            i = entry.jobs.popleft()
            entry.clock.start(time.monotonic())
            if kind == "memory":
                self.lost(entry, None)  # the worker ends: what it had queued goes to another
            elif not entry.jobs and not self.pending:
                self.release(entry)
            self.finish(i, value if kind == "ok" else Failed(kind, value))

    def check_clocks(self) -> None:
        """End the workers whose job passed a wall-clock bound (:class:`Clock`)."""
        now = time.monotonic()
        for entry in list(self.busy.values()):
            if entry.jobs and (failure := entry.clock.verdict(now)) is not None:
                self.lost(entry, failure)
            elif not entry.jobs:  # its queued job went to another caller, or it retires
                self.release(entry)

    def take_shared(self) -> None:
        """The results of the jobs other callers did for this one."""
        for i, shared in list(self.waiting.items()):
            if shared.done.is_set():
                del self.waiting[i]
                if isinstance(shared.result, Failed) and shared.result.reason == "stopped":
                    self.pending.append(i)  # its caller went away: this one does it
                else:
                    self.finish(i, shared.result)

    def abandon(self) -> None:
        """The call is stopped: kill its workers, and tell the callers waiting for its jobs."""
        for entry in self.busy.values():
            self.pool._drop(entry.worker)
        for i in list(self.leading):
            self.results[i] = None
            shared = self.leading.pop(i)
            with self.pool._lock:
                self.pool._shared.pop(_key(self.place, self.jobs[i]), None)
            shared.result = Failed("stopped")
            shared.done.set()



def _key(place: tuple[Any, ...], job: Any) -> Any:
    """What makes two jobs the same (None: a job that cannot be compared)."""
    try:
        hash(job)
    except TypeError:
        return None
    return (place, job)


def _resident_zygote(spec: Any, limits: Limits, plan: Plan | None) -> Zygote | None:
    """The resident zygote of ``spec`` (:mod:`mdmark.pipeline.resident`), connected to or started now
    (not waited for); None where this process's zygotes are its own children."""
    if not resident.enabled():
        return None
    found = resident.connect(spec, limits, plan)
    if found is None:
        return None
    conn, pid = found
    return Zygote(spec, limits, plan, conn, pid, ending=lambda: resident.forget(spec, limits, plan, pid))


def _can_fork() -> bool:
    return hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()


def _context() -> BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        # The fork server imports the parser once; each worker forked from it starts warm.
        context.set_forkserver_preload(["mdmark.pipeline.pipeline", "mdmark.html.render", "myst_parser.parsers.sphinx_"])
        return context
    return multiprocessing.get_context("spawn")


_POOL = Pool()
atexit.register(_POOL.close)


def run_bounded(
    owner: W,
    task: Callable[[W, J], R],
    jobs: Sequence[J],
    meanwhile: Callable[[], object] | None = None,
    done: Callable[[int, R | Failed], None] | None = None,
) -> list[R | Failed]:
    """``task`` for every job in this process's bounded workers (one per core for many jobs)."""
    # By the module's names: a test stands in for the machine's core count there.
    width = limits.worker_count() if limits.parallel(len(jobs)) else 1
    return _POOL.run(owner, task, jobs, width, meanwhile, done)


def prepare(owner: Spawnable) -> None:
    """Start the zygote of ``owner`` now, without waiting for it: its Sphinx application (conf.py,
    every extension's ``setup()``) is made while this process does the rest of its work before the
    first task (the CLI: importing the rules, reading the index, finding the documents). Call it
    only when a task is likely to follow: a zygote not used costs that set-up's CPU for nothing."""
    _POOL.prepare(owner)


@contextlib.contextmanager
def fresh_pool() -> Iterator[None]:
    """Within the block, tasks run in a pool of their own, as in a new process: no worker or zygote
    of before serves them, and the ones started are ended after (a caller that runs independent
    commands in one process)."""
    global _POOL
    saved, _POOL = _POOL, Pool()
    try:
        yield
    finally:
        mine, _POOL = _POOL, saved
        mine.close()


def prestart() -> None:
    """Start this process's idle workers in the background (the server does at start)."""
    threading.Thread(target=_POOL.prestart, name="mdmark-workers-start", daemon=True).start()
