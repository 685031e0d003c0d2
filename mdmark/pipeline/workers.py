"""The one worker pool: every parse and render of a document runs in a bounded worker process.

A document is untrusted input: a huge table, deeply nested directives, an ``{include}`` of a FIFO
or of one file a thousand times over can take any amount of memory, CPU or time, and Sphinx and
docutils cannot be interrupted from another thread. So the process that answers (the MCP server,
the CLI) never parses: it hands each cold document to a worker process of this pool, which runs
under operating-system limits — address space (``RLIMIT_AS``), CPU seconds per task
(``RLIMIT_CPU``, set afresh before each task), no core files — and a wall-clock bound the parent
enforces. A worker that passes a bound, crashes, or whose caller is stopped (a client gone, a
call past its time) is killed and a new one is started on the next task; the document gets one
sentence (:func:`limit_message`). No lock of the parent is held while a worker works, so one
hostile project never stalls another.

Workers stay alive between tasks and calls (a few idle ones are kept per process): each keeps its
own copy of the caller's worker object — for the pipeline, its own
:class:`~mdmark.pipeline.pipeline.Pipeline` (its own Sphinx application) for the same project and
settings, as :meth:`~mdmark.pipeline.pipeline.Pipeline.worker_spec` says how — so only the first
task of a project pays for making one. A task is a module-level function ``task(object, job)``, so
it pickles by reference; the pool knows nothing of what the object is. Workers start with ``fork`` while this
process runs one thread (the CLI: cheap), else from a fork server that has imported the parser
once (fork is unsafe once threads run: the server); they die with their parent, and their Sphinx
scratch folders live under one temporary folder the parent removes.
"""

from __future__ import annotations

import atexit
import collections
import multiprocessing
import os
import resource
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

J = TypeVar("J")
R = TypeVar("R")
W = TypeVar("W", bound="Spawnable")


class Spawnable(Protocol):
    """What a worker pool can copy into its workers."""

    def worker_spec(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """A module-level factory and its (picklable, hashable) arguments; the worker calls
        ``factory(*args, scratch=folder)`` once, with a scratch folder the pool removes."""
        ...

#: Below this many documents, using more than one worker costs more than it saves.
PARALLEL_THRESHOLD = 24

#: Address space one worker may map: several times what a real document's parse needs, and
#: far below what stalls a machine.
MEMORY_BYTES = 1536 * 1024 * 1024
MEMORY_ENV = "MDMARK_WORKER_MEMORY_MB"
#: CPU seconds one task (one document) may use.
CPU_SECONDS = 120
CPU_ENV = "MDMARK_PARSE_CPU"
#: Wall-clock seconds one task may take (a FIFO blocks without using any CPU).
WALL_SECONDS = 120.0
WALL_ENV = "MDMARK_PARSE_TIMEOUT"
#: Idle workers a process keeps for the next call.
KEEP_IDLE = 2
#: Projects (pipelines) one worker keeps.
PIPELINES_PER_WORKER = 4

#: Whether this process is a worker of the pool (it parses in-process; everyone else asks a worker).
_IN_WORKER = False


def in_worker() -> bool:
    """Whether this process is a pool worker, where documents are parsed and rendered in-process."""
    return _IN_WORKER


def worker_count() -> int:
    """Worker processes for a cold parse or build: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def parallel(jobs: int) -> bool:
    """Whether ``jobs`` documents are worth more than one worker process."""
    return jobs >= PARALLEL_THRESHOLD and worker_count() > 1


def _positive(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


@dataclass(frozen=True)
class Limits:
    """The bounds of one task: address space (bytes), CPU seconds, wall-clock seconds."""

    memory: int
    cpu: int
    wall: float

    @classmethod
    def current(cls) -> Limits:
        """The defaults, or what the environment asks for (tests and small machines lower them)."""
        return cls(
            memory=int(_positive(MEMORY_ENV, MEMORY_BYTES / 2**20) * 2**20),
            cpu=max(1, int(_positive(CPU_ENV, CPU_SECONDS))),
            wall=_positive(WALL_ENV, WALL_SECONDS),
        )


@dataclass(frozen=True)
class Failed:
    """A task that did not finish: ``reason`` is ``memory``, ``cpu``, ``time``, ``crash``,
    ``refused`` (mdmark's own sentence in ``detail``) or ``error`` (the task raised; ``detail``
    says what)."""

    reason: str
    detail: str = ""


def limit_message(shown: str, failure: Failed, limits: Limits | None = None) -> str:
    """The one sentence for a document whose worker did not finish it."""
    bounds = limits or Limits.current()
    what = f"`{shown}` を読む"
    if failure.reason == "memory":
        return (
            f"{what}のに使うメモリが上限（{bounds.memory // 2**20:,} MB）を超えたので読むのを止めたため、"
            "大きな表・深い入れ子・同じファイルを何度も取り込む {include}・大きな画像が無いか確かめて、文書を分けるか小さくしてください。"
        )
    if failure.reason == "cpu":
        return (
            f"{what}計算が上限（CPU {bounds.cpu} 秒）を超えたので読むのを止めたため、"
            "大きな表・深い入れ子・多すぎる見出しや取り込みが無いか確かめて、文書を分けてください。"
        )
    if failure.reason == "time":
        return (
            f"{what}のが {bounds.wall:g} 秒で終わらなかったので止めたため、FIFO などふつうのファイルでないものを取り込んでいないか、"
            f"文書が大きすぎないかを確かめてください（上限は環境変数 {WALL_ENV} で変えられます）。"
        )
    if failure.reason == "refused":
        return failure.detail
    if failure.reason == "crash":
        return (
            f"{what}プロセスが途中で終わった（{failure.detail}）ので、深すぎる入れ子や大きすぎる表が無いか確かめて、文書を分けてください。"
        )
    return f"{what}途中で MyST・Sphinx が止まった（{failure.detail}）ので、この文書の記法を確かめてください。"


# -- the worker process ----------------------------------------------------------------------------


def _worker_main(conn: Connection, scratch: str, memory: int) -> None:
    global _IN_WORKER
    from mdmark.errors import MdmarkError
    from mdmark.util.lifeline import die_with_parent

    _IN_WORKER = True
    die_with_parent()
    # A stop of the parent (Ctrl+C in a terminal reaches the whole group) is the parent's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A killed worker must not leave a core file in the folder the user started mdmark from.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # On top of what the worker has mapped already: a worker forked from a large parent (the CLI)
    # starts with the parent's mappings, which are not the document's doing.
    _lower(resource.RLIMIT_AS, _mapped() + memory)
    made: collections.OrderedDict[tuple[Any, ...], Any] = collections.OrderedDict()
    while True:
        try:
            spec, task, job, cpu = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone or closed the pool
        used = resource.getrusage(resource.RUSAGE_SELF)
        _lower(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime) + cpu)
        try:
            owner = made.get(spec)
            if owner is None:
                factory, args = spec
                owner = made[spec] = factory(*args, scratch=Path(scratch))
                while len(made) > PIPELINES_PER_WORKER:
                    made.popitem(last=False)
            made.move_to_end(spec)
            answer: tuple[str, Any] = ("ok", task(owner, job))
        except MemoryError:
            answer = ("memory", "")
        except MdmarkError as exc:  # mdmark's own sentence (a conf.py that fails): said as it is
            answer = ("refused", exc.message)
        except RecursionError:
            answer = ("crash", "入れ子が深すぎる")
        except Exception as exc:  # reported for this document only; the worker goes on
            answer = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(answer)
        except MemoryError:
            os._exit(3)
        except (OSError, ValueError):
            return
        if answer[0] == "memory":
            os._exit(3)  # a worker that ran out of memory may be left in any state


def _mapped() -> int:
    """Bytes of address space this process maps now (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _lower(limit: int, soft: int) -> None:
    """Set the soft ``limit`` (never above the hard one, which stays as it is)."""
    _, hard = resource.getrlimit(limit)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    try:
        resource.setrlimit(limit, (soft, hard))
    except (ValueError, OSError):
        pass  # a platform without this limit: the wall-clock bound still holds


# -- the parent's side ---------------------------------------------------------------------------------


class _Worker:
    def __init__(self, context: BaseContext, scratch: str, memory: int) -> None:
        mine, theirs = context.Pipe()
        self.process: Any = context.Process(  # type: ignore[attr-defined]
            target=_worker_main, args=(theirs, scratch, memory), name="mdmark-worker", daemon=True
        )
        self.process.start()
        theirs.close()
        self.conn = mine
        self.memory = memory

    def alive(self) -> bool:
        return bool(self.process.is_alive())

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.join(5)
        except (OSError, ValueError, AssertionError):
            pass
        self.close()

    def close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass

    def death(self) -> Failed:
        """Why the worker ended (it has, or is about to: its end of the pipe closed)."""
        self.process.join(5)
        code = self.process.exitcode
        if code == -signal.SIGXCPU:
            return Failed("cpu")
        if code == 3 or code == -signal.SIGKILL:  # out of memory, ours or the kernel's
            return Failed("memory")
        if code is not None and code < 0:
            return Failed("crash", signal.Signals(-code).name)
        return Failed("crash", f"終了コード {code}")


class _Shared:
    """A job at work for one caller that other callers asking for the same job wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None


class Pool:
    """Worker processes shared by every call of this process (see the module's docstring).

    At most :func:`max_workers` run at once; a job identical to one at work for another caller
    (twenty sessions exporting the same cold document) waits for that one's result instead of
    parsing again, as the callers did when they took turns on one lock.
    """

    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._scratch: str | None = None
        self._live = 0
        self._shared: dict[Any, _Shared] = {}

    def _make(self, memory: int) -> _Worker:
        with self._lock:
            if self._scratch is None:
                self._scratch = tempfile.mkdtemp(prefix="mdmark-workers-")
                atexit.register(shutil.rmtree, self._scratch, True)
            scratch = self._scratch
        # Chosen at each start: fork only while this process runs one thread.
        return _Worker(_context(), scratch, memory)

    def _take(self, memory: int) -> _Worker | None:
        """An idle worker, a new one, or None when :func:`max_workers` are at work."""
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive() and worker.memory == memory:
                    self._live += 1
                    return worker
                worker.kill()
            if self._live >= max_workers():
                return None
            self._live += 1
        try:
            return self._make(memory)
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        with self._lock:
            self._live -= 1

    def _give(self, worker: _Worker) -> None:
        with self._lock:
            self._live -= 1
            if len(self._idle) < KEEP_IDLE:
                self._idle.append(worker)
                return
        worker.kill()

    def _drop(self, worker: _Worker) -> None:
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
        the results in job order, a :class:`Failed` for a job whose worker did not finish it.

        ``meanwhile()`` runs here once the first jobs are handed out; ``done(i, result)`` as each
        job ends. A stop of the calling thread (:class:`~mdmark.server.limits.CallStopped`, Ctrl+C)
        kills the workers at work and propagates.
        """
        limits = Limits.current()
        spec = owner.worker_spec()
        place = (spec, task)
        results: list[R | Failed | None] = [None] * len(jobs)
        pending = collections.deque(range(len(jobs)))
        busy: dict[Connection, tuple[_Worker, int, float]] = {}
        #: Jobs another caller is doing: its shared entry, by job.
        waiting: dict[int, _Shared] = {}
        #: Jobs this call does for others too.
        leading: dict[int, _Shared] = {}
        width = max(1, min(width, len(jobs)))

        def finish(i: int, result: R | Failed) -> None:
            results[i] = result
            shared = leading.pop(i, None)
            if shared is not None:
                with self._lock:
                    self._shared.pop(_key(place, jobs[i]), None)
                shared.result = result
                shared.done.set()
            if done is not None:
                done(i, result)

        try:
            while pending or busy or waiting:
                while pending and len(busy) < width:
                    i = pending[0]
                    key = _key(place, jobs[i])
                    if key is not None and i not in leading:  # leading it already: waiting for a worker
                        with self._lock:
                            other = self._shared.get(key)
                            if other is None:
                                leading[i] = self._shared[key] = _Shared()
                        if other is not None:
                            pending.popleft()
                            waiting[i] = other
                            continue
                    worker = self._take(limits.memory)
                    if worker is None:
                        break  # every worker is at work: wait for one to come back
                    pending.popleft()
                    try:
                        worker.conn.send((spec, task, jobs[i], limits.cpu))
                    except (OSError, ValueError):
                        self._drop(worker)  # died while idle: the job goes to a fresh one
                        pending.appendleft(i)
                        continue
                    busy[worker.conn] = (worker, i, time.monotonic() + limits.wall)
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                # Short waits: a stop of this thread is raised between two of them.
                if busy:
                    ready = wait(list(busy), timeout=0.05)
                else:
                    time.sleep(0.02)
                    ready = []
                for conn in ready:
                    assert isinstance(conn, Connection)
                    worker, i, _ = busy.pop(conn)
                    try:
                        kind, value = conn.recv()
                    except (EOFError, OSError):
                        failure = worker.death()
                        self._drop(worker)
                        finish(i, failure)
                        continue
                    if kind == "memory":
                        self._drop(worker)
                    else:
                        self._give(worker)
                    finish(i, value if kind == "ok" else Failed(kind, value))
                now = time.monotonic()
                for conn, (worker, i, deadline) in list(busy.items()):
                    if now >= deadline:
                        del busy[conn]
                        self._drop(worker)
                        finish(i, Failed("time"))
                for i, shared in list(waiting.items()):
                    if shared.done.is_set():
                        del waiting[i]
                        if isinstance(shared.result, Failed) and shared.result.reason == "stopped":
                            pending.append(i)  # its caller went away: this one does it
                        else:
                            finish(i, shared.result)
        except BaseException:
            for worker, _, _ in busy.values():
                self._drop(worker)
            for i in list(leading):
                results[i] = None
                shared = leading.pop(i)
                with self._lock:
                    self._shared.pop(_key(place, jobs[i]), None)
                shared.result = Failed("stopped")
                shared.done.set()
            raise
        return [r for r in results if r is not None]

    def prestart(self, count: int = KEEP_IDLE) -> None:
        """Start ``count`` idle workers now, so that the first call does not wait for one."""
        memory = Limits.current().memory
        for _ in range(count):
            with self._lock:
                self._live += 1
            self._give(self._make(memory))

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()


def _key(place: tuple[Any, ...], job: Any) -> Any:
    """What makes two jobs the same (None: a job that cannot be compared)."""
    try:
        hash(job)
    except TypeError:
        return None
    return (place, job)


def max_workers() -> int:
    """Workers one process runs at once: two per core, at least four."""
    return max(4, 2 * worker_count())


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
    width = worker_count() if parallel(len(jobs)) else 1
    return _POOL.run(owner, task, jobs, width, meanwhile, done)


def prestart() -> None:
    """Start this process's idle workers in the background (the server does at start)."""
    threading.Thread(target=_POOL.prestart, name="mdmark-workers-start", daemon=True).start()
