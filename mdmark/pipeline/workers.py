"""The one worker pool: every parse and render of a document runs in a bounded worker process.

A document is untrusted input: a huge table, deeply nested directives, an ``{include}`` of a FIFO
or of one file a thousand times over can take any amount of memory, CPU or time, and Sphinx and
docutils cannot be interrupted from another thread. So the process that answers (the MCP server,
the CLI) never parses: it hands each cold document to a worker process of this pool, which runs
under operating-system limits — address space (``RLIMIT_AS``), CPU seconds per task
(``RLIMIT_CPU``, set afresh before each task: the bound of a document's work, which a busy machine
does not change), no core files — and wall-clock bounds the parent enforces, which only catch a
worker that does not work (blocked on a FIFO, stalled; see :class:`_Clock`). A worker that passes a bound, crashes, or whose caller is stopped (a client gone, a
call past its time) is killed and a new one is started on the next task; the document gets one
sentence (:func:`limit_message`). No lock of the parent is held while a worker works, so one
hostile project never stalls another.

Workers stay alive between tasks and calls (a few idle ones are kept per process): each keeps its
own copy of the caller's worker object — for the pipeline, its own
:class:`~mdmark.pipeline.pipeline.Pipeline` (its own Sphinx application) for the same project and
settings, as :meth:`~mdmark.pipeline.pipeline.Pipeline.worker_spec` says how. Making that object
(conf.py and every extension's ``setup()``: about a second) is done once per project, not once per
worker: a bounded *zygote* process makes it (under the same memory and CPU limits, and the wall
clock) and then only forks; each worker forked from it starts with the object made, applies its
own limits and is killed and replaced on its own. The zygote also reaps its workers and tells the
parent how each ended. Where a zygote cannot be had (no ``fork``, or it passed a bound while
making the object) workers make their own, as before. A task is a module-level function
``task(object, job)``, so it pickles by reference; the pool knows nothing of what the object is.
Processes start with ``fork`` while this process runs one thread (the CLI: cheap), else from a fork
server that has imported the parser once (fork is unsafe once threads run: the server); they die
with this process, and their Sphinx scratch folders live under one temporary folder it removes.

A worker is handed its next document while it reads the current one (when the message is small),
so it never waits for this process between two documents.

Where the kernel has Landlock, the operating system confines them too (:mod:`mdmark.util.landlock`,
the guide page ``untrusted``): an owner that names its ``worker_confinement()`` (the pipeline: the
project's folders, its cache folder, whether conf.py is trusted) gets zygotes and workers confined
before they start any thread or make anything — a zygote's forked workers inherit its domain. A
confined worker serves only its own project (:class:`Plan`), writes only a scratch folder of its
own, and a refusal by the kernel is said as a sentence. Where the kernel has none, the pool says
once which protections are missing and runs as before; a pool's ``probe`` can be replaced (tests)
but only takes protection away from that pool.

Memory: every worker and zygote that may run at once, together, maps at most half of the
machine's memory (:func:`worker_memory`, :func:`max_workers`), each on top of what it starts with.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import math
import multiprocessing
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mdmark.util import landlock

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

#: Below this many documents, using more than one worker costs more than it saves (a second
#: worker forked from a zygote costs a fork, not a Sphinx application).
PARALLEL_THRESHOLD = 8

#: Address space one worker may map at most: several times what a real document's parse needs.
#: On a smaller machine each gets less (:func:`worker_memory`).
MEMORY_BYTES = 1536 * 1024 * 1024
MEMORY_ENV = "MDMARK_WORKER_MEMORY_MB"
#: The share of the machine's memory all pool processes of one mdmark process may map together.
MEMORY_SHARE = 0.5
#: Address space below which a worker cannot read an ordinary document: on a machine whose share
#: gives less, fewer workers run (:func:`max_workers`) rather than smaller ones.
MEMORY_FLOOR = 384 * 1024 * 1024
#: CPU seconds one task (one document) may use: the bound of a document's work, which a busy
#: machine does not change (the kernel counts the worker's own CPU time, ``RLIMIT_CPU``).
CPU_SECONDS = 120
CPU_ENV = "MDMARK_PARSE_CPU"
#: Wall-clock seconds a worker may spend on one task without using any CPU: blocked (a FIFO, a
#: stall), not slow. A worker that works, however slowly a loaded machine lets it, is not stopped.
#: Generous: a read also waits, without CPU, for another process that runs the same conf.py
#: (:mod:`mdmark.util.conflock`).
WALL_SECONDS = 120.0
WALL_ENV = "MDMARK_PARSE_TIMEOUT"
#: The wall clock of one task at most, for a worker that neither blocks for good nor passes its
#: CPU bound (one that waits and works in turns): this many times its CPU bound, and at least
#: :data:`CEILING_FLOOR` seconds — room for a machine ten times over-committed.
CEILING_PER_CPU = 10
CEILING_FLOOR = 60.0
#: Idle workers a process keeps for the next call.
KEEP_IDLE = 2
#: Projects (pipelines) one worker keeps.
PIPELINES_PER_WORKER = 4
#: Zygotes (one per project and settings, each holding a Sphinx application) one process keeps.
ZYGOTES = 4
#: Jobs handed to one worker at once: the one it reads and the next.
DEPTH = 2
#: Documents after which a worker forked from a zygote is replaced by a fresh fork: Sphinx's
#: environment keeps something of every document it reads (titles, tables of contents, labels)
#: and the worker's memory caches keep their facts and fragments, so a worker that read 7,000
#: documents of a cold 14,000-document build held 450 MB and growing; a fork costs milliseconds.
RECYCLE_TASKS = 500
#: A job waits in a worker's pipe only when its message is at most this big: a worker stuck on its
#: first document must not fill the pipe, or this process would block on the write.
QUEUED_BYTES = 32 * 1024

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


# -- memory from the machine's ------------------------------------------------------------------------


def machine_memory() -> int | None:
    """Bytes of memory this process may use on its machine: the physical memory, or its control
    group's limit when lower (a container); None where neither can be read (not on Linux)."""
    found: list[int] = []
    try:
        found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    found.extend(_cgroup_limits())
    found = [n for n in found if n > 0]
    return min(found) if found else None


def _cgroup_limits() -> list[int]:
    """The ``memory.max`` of this process's control group (v2) and of each group above it."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as lines:
            group = next((line.split("::", 1)[1].strip() for line in lines if line.startswith("0::")), None)
    except OSError:
        return []
    if group is None:
        return []
    limits: list[int] = []
    folder = Path("/sys/fs/cgroup") / group.lstrip("/")
    for place in (folder, *folder.parents):
        if not str(place).startswith("/sys/fs/cgroup"):
            break
        try:
            text = (place / "memory.max").read_text(encoding="ascii").strip()
        except OSError:
            continue
        if text.isdigit():
            limits.append(int(text))
    return limits


def memory_share() -> int | None:
    """Address space all pool processes of this process may map together (:data:`MEMORY_SHARE` of
    :func:`machine_memory`); None where the machine's memory is not known."""
    total = machine_memory()
    return int(total * MEMORY_SHARE) if total else None


def worker_memory() -> int:
    """Address space one worker (or zygote) may map beyond what it starts with: the memory share
    split over every worker and zygote that may run at once, at most :data:`MEMORY_BYTES`."""
    share = memory_share()
    if share is None:
        return MEMORY_BYTES
    return min(MEMORY_BYTES, share // (max_workers() + ZYGOTES))


@dataclass(frozen=True)
class Limits:
    """The bounds of one task: address space (bytes), CPU seconds, and wall-clock seconds without
    using any CPU (``wall``: blocked); :attr:`ceiling` is the wall clock at most."""

    memory: int
    cpu: int
    wall: float

    @property
    def ceiling(self) -> float:
        """Wall-clock seconds one task may take at most, whatever it does (see :data:`CEILING_PER_CPU`)."""
        return max(CEILING_FLOOR, CEILING_PER_CPU * self.cpu, self.wall)

    @classmethod
    def current(cls) -> Limits:
        """The defaults, or what the environment asks for (tests and small machines lower them)."""
        return cls(
            memory=int(_positive(MEMORY_ENV, worker_memory() / 2**20) * 2**20),
            cpu=max(1, int(_positive(CPU_ENV, CPU_SECONDS))),
            wall=_positive(WALL_ENV, WALL_SECONDS),
        )


@dataclass(frozen=True)
class Failed:
    """A task that did not finish: ``reason`` is ``memory``, ``cpu`` (its CPU bound), ``stall``
    (no CPU used for :attr:`Limits.wall` seconds), ``time`` (the wall clock's :attr:`Limits.ceiling`;
    or, where a worker's CPU time cannot be read, :attr:`Limits.wall`), ``crash``, ``refused``
    (mdmark's own sentence in ``detail``) or ``error`` (the task raised; ``detail`` says what).
    For ``stall`` and ``time``, ``detail`` is the figure in seconds that was passed."""

    reason: str
    detail: str = ""


def limit_message(shown: str, failure: Failed, limits: Limits | None = None) -> str:
    """The one sentence for a document whose worker did not finish it: which bound, and its figure."""
    bounds = limits or Limits.current()
    what = f"`{shown}` を読む"
    if failure.reason == "memory":
        return (
            f"{what}のに使うメモリが上限（{bounds.memory // 2**20:,} MB）を超えたので読むのを止めたため、"
            "大きな表・深い入れ子・同じファイルを何度も取り込む {include}・大きな画像が無いか確かめて、文書を分けるか小さくしてください。"
        )
    if failure.reason == "cpu":
        return (
            f"{what}のに CPU を上限の {bounds.cpu} 秒使っても終わらなかったので止めたため、"
            f"大きな表・深い入れ子・多すぎる見出しや取り込みが無いか確かめて、文書を分けてください（上限は環境変数 {CPU_ENV} で変えられます）。"
        )
    if failure.reason == "stall":
        return (
            f"{what}ワーカーが {failure.detail or f'{bounds.wall:g}'} 秒のあいだ CPU をまったく使わずに待ち続けたので止めたため、"
            "取り込んでいるファイル（{include}・literalinclude・画像）がすぐ読み出せるふつうのファイルか確かめてください"
            f"（待つ上限は環境変数 {WALL_ENV} で変えられます）。"
        )
    if failure.reason == "time":
        return (
            f"{what}のが {failure.detail or f'{bounds.ceiling:g}'} 秒たっても終わらなかったので止めたため、"
            f"取り込んでいるファイルがすぐ読み出せるか確かめて、文書を分けてください（上限は環境変数 {CPU_ENV} の {CEILING_PER_CPU} 倍で、"
            f"少なくとも {CEILING_FLOOR:g} 秒です）。"
        )
    if failure.reason == "refused":
        return failure.detail
    if failure.reason == "crash":
        return (
            f"{what}プロセスが途中で終わった（{failure.detail}）ので、深すぎる入れ子や大きすぎる表が無いか確かめて、文書を分けてください。"
        )
    return f"{what}途中で MyST・Sphinx が止まった（{failure.detail}）ので、この文書の記法を確かめてください。"


# -- the worker process ----------------------------------------------------------------------------


def _bound_process(memory: int, mapped: int | None = None) -> None:
    """What every pool process does first (once confined, :func:`_confine`): end with this
    process's parent (the pool's process), leave Ctrl+C to it, write no core file, and map at most
    ``memory`` more bytes than ``mapped`` (default: what it maps now)."""
    from mdmark.util.lifeline import die_with_parent

    global _IN_WORKER
    _IN_WORKER = True
    die_with_parent()
    # A stop of the parent (Ctrl+C in a terminal reaches the whole group) is the parent's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A killed worker must not leave a core file in the folder the user started mdmark from.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # On top of what the process has mapped already: a worker forked from a large parent (the CLI)
    # or from a zygote starts with its mappings, which are not the document's doing.
    _lower(resource.RLIMIT_AS, (_mapped() if mapped is None else mapped) + memory)


def _cpu_from_now(cpu: int) -> None:
    """Let this process use ``cpu`` more CPU seconds (at least: the limit is in whole seconds)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _lower(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu)


def _worker_main(
    conn: Connection,
    scratch: str,
    memory: int,
    made: collections.OrderedDict[tuple[Any, ...], Any] | None = None,
    plan: Plan | None = None,
    mapped: int | None = None,
) -> None:
    """Serve tasks until the parent closes the pipe. ``made``: objects the zygote made already;
    ``plan``: how to confine this process first (a zygote's worker is confined already);
    ``mapped``: what the zygote mapped when it forked this worker (its /proc is out of reach)."""
    from mdmark.core.errors import MdmarkError

    refusal: str | None = None
    if plan is not None:
        try:
            scratch = _confine(plan, scratch)
        except OSError as exc:  # never serve unconfined what should be confined: say why instead
            refusal = landlock.failed_sentence(exc)
    _bound_process(memory, mapped)
    if made is None:
        made = collections.OrderedDict()
    while True:
        try:
            spec, task, job, cpu = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone or closed the pool
        _cpu_from_now(cpu)
        try:
            if refusal is not None:
                raise MdmarkError(refusal)
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
        except Exception as exc:  # noqa: BLE001 - reported for this document only; the worker goes on
            answer = _error_answer(exc)
        try:
            conn.send(answer)
        except MemoryError:
            os._exit(3)
        except (OSError, ValueError):
            return
        if answer[0] == "memory":
            os._exit(3)  # a worker that ran out of memory may be left in any state


def _zygote_main(
    conn: Connection, spec: tuple[Any, ...], scratch: str, memory: int, cpu: int, plan: Plan | None = None
) -> None:
    """Make the object of ``spec`` once (conf.py, the extensions' ``setup()``), under the bounds of
    a task and confined by ``plan``, then fork a worker for each request of the parent (confined as
    it is) and reap the ones it asks about."""
    import gc
    from multiprocessing.reduction import recv_handle

    if plan is not None:
        try:
            scratch = _confine(plan, scratch)
        except OSError:
            os._exit(4)  # no zygote: each worker confines itself, and says why when it cannot
    _bound_process(memory)
    _cpu_from_now(cpu)
    made: collections.OrderedDict[tuple[Any, ...], Any] = collections.OrderedDict()
    try:
        factory, args = spec
        owner = factory(*args, scratch=Path(scratch))
        warm_up = getattr(owner, "warm_up", None)
        if warm_up is not None:
            warm_up()
        made[spec] = owner
    except MemoryError:
        os._exit(3)
    except Exception:  # noqa: BLE001, S110 - each worker makes it again and says why for each document, as before
        pass
    # What is made now stays shared with the workers: the collector must not touch (copy) it in each.
    gc.collect()
    gc.freeze()
    conn.send("ready")
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if request[0] == "fork":
            try:
                fd = recv_handle(conn)
            except (EOFError, OSError):
                os._exit(0)
            # Forking costs a little CPU each time: the bound is on one request, not on the zygote's life.
            _cpu_from_now(cpu)
            mapped = _mapped()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    conn.close()  # the parent must see the zygote's end close when the zygote ends
                    _worker_main(Connection(fd), scratch, memory, made, None, mapped)
                except BaseException:  # noqa: BLE001 - the worker's end, whatever ended it
                    code = 1
                os._exit(code)
            os.close(fd)
            conn.send(pid)
        elif request[0] == "reap":
            conn.send(_reap(int(request[1])))


# -- confinement by the operating system --------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How the workers of one project are confined: its paths, and the Landlock ABI to use."""

    confinement: landlock.Confinement
    abi: int


def _confine(plan: Plan, scratch: str) -> str:
    """Confine this process with Landlock (:mod:`mdmark.util.landlock`) before it starts any thread
    (a thread started earlier would stay outside); its scratch folder becomes one of its own inside
    the pool's, so one project's workers reach no other project's. Raises :class:`OSError` when the
    kernel refuses."""
    own = tempfile.mkdtemp(prefix="confined-", dir=scratch)
    landlock.enter(plan.confinement, own, plan.abi)
    return own


def _error_answer(exc: Exception) -> tuple[str, str]:
    """The answer for a task that raised ``exc``: the kernel's refusal of a confined process is
    said as mdmark's own sentence (what was touched, why it is refused), anything else as it is."""
    if isinstance(exc, PermissionError) and landlock.refused(exc):
        return ("refused", landlock.denied_sentence(exc))
    return ("error", f"{type(exc).__name__}: {exc}")


def _reap(pid: int) -> int | None:
    """The exit code of a worker of this zygote, as :attr:`multiprocessing.Process.exitcode`
    says it (minus the signal that ended it); one that lingers past a few seconds is killed."""
    deadline = time.monotonic() + 5
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            deadline = time.monotonic() + 5
        time.sleep(0.01)


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


def _kill_process(process: Any) -> None:
    """Kill a process started by multiprocessing and reap it; one already gone, or closed, is fine."""
    try:
        process.kill()
        process.join(5)
    except (OSError, ValueError, AssertionError):
        pass


def _failure(code: int | None) -> Failed:
    """Why a process that ended with ``code`` (:attr:`multiprocessing.Process.exitcode`) ended."""
    if code == -signal.SIGXCPU:
        return Failed("cpu")
    if code == 3 or code == -signal.SIGKILL:  # out of memory, ours or the kernel's
        return Failed("memory")
    if code is not None and code < 0:
        return Failed("crash", signal.Signals(-code).name)
    return Failed("crash", f"終了コード {code}")


class _Worker:
    """A worker process: started here (``zygote`` None), or forked by a zygote for its spec."""

    def __init__(
        self,
        conn: Connection,
        memory: int,
        process: Any = None,
        pid: int = 0,
        zygote: _Zygote | None = None,
        plan: Plan | None = None,
    ) -> None:
        self.conn = conn
        self.memory = memory
        self.process = process
        self.pid = pid
        self.zygote = zygote
        #: The spec whose object the worker holds from its start (its zygote's).
        self.spec = zygote.spec if zygote is not None else None
        #: How it is confined (None: not at all); a confined worker serves only its own project.
        self.plan = zygote.plan if zygote is not None else plan
        #: Jobs handed to it so far.
        self.served = 0

    @property
    def retiring(self) -> bool:
        """Whether the worker takes no more jobs (see :data:`RECYCLE_TASKS`; only a zygote's are cheap to replace)."""
        return self.zygote is not None and self.served >= RECYCLE_TASKS

    @classmethod
    def start(cls, context: BaseContext, scratch: str, memory: int, plan: Plan | None = None) -> _Worker:
        mine, theirs = context.Pipe()
        process: Any = context.Process(  # type: ignore[attr-defined]
            target=_worker_main, args=(theirs, scratch, memory, None, plan), name="mdmark-worker", daemon=True
        )
        process.start()
        theirs.close()
        return cls(mine, memory, process=process, pid=process.pid, plan=plan)

    def alive(self) -> bool:
        if self.process is not None:
            return bool(self.process.is_alive())
        try:
            return not self.conn.poll(0)  # an idle worker has nothing to say: something here is its end
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        if self.process is not None:
            _kill_process(self.process)
        else:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            if self.zygote is not None:
                self.zygote.reap(self.pid)
        self.close()

    def close(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass

    def death(self) -> Failed:
        """Why the worker ended (it has, or is about to: its end of the pipe closed)."""
        if self.process is not None:
            self.process.join(5)
            return _failure(self.process.exitcode)
        code = self.zygote.reap(self.pid) if self.zygote is not None else None
        return _failure(code) if code is not None else Failed("crash", "終了コード 不明")


class _Zygote:
    """The process that made the object of one spec and forks workers that start with it."""

    def __init__(
        self, context: BaseContext, spec: tuple[Any, ...], scratch: str, limits: Limits, plan: Plan | None = None
    ) -> None:
        self.spec = spec
        self.plan = plan
        self.memory = limits.memory
        self.limits = limits
        mine, theirs = context.Pipe()
        self.process: Any = context.Process(  # type: ignore[attr-defined]
            target=_zygote_main, args=(theirs, spec, scratch, limits.memory, limits.cpu, plan), name="mdmark-zygote", daemon=True
        )
        self.process.start()
        theirs.close()
        self.conn = mine
        #: One request and its answer at a time (the server's calls run in threads).
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.broken = False
        #: Held by the one caller that waits for the zygote's word; the others wait for :attr:`ready`.
        self._settling = threading.Lock()

    def settle(self) -> tuple[bool, bool]:
        """Wait until the object is made: (whether the zygote is ready, whether this caller saw it
        fail to become ready). One caller reads the zygote's word, the others wait for it."""
        if self._settling.acquire(blocking=False):
            try:
                if not self.ready.is_set():
                    ok = self.wait_ready()
                    return ok, not ok
            finally:
                self._settling.release()
        while not self.ready.wait(0.05):  # short waits: a stop of this thread is raised between two
            pass
        return not self.broken, False

    def wait_ready(self) -> bool:
        """Wait (within the wall-clock bounds of a task, :class:`_Clock`) until the object is made;
        False when the zygote passed a bound or died. Short waits: a stop of this thread is raised
        between two.

        The clock starts when the caller starts waiting, not at the zygote's start: one started
        ahead (:func:`prepare`) shares the machine with its caller's own work until then, and must
        not get less time than one started when it is needed (its CPU bound holds throughout)."""
        clock = _Clock(self.process.pid, self.limits, time.monotonic())
        try:
            while clock.verdict(time.monotonic()) is None:
                if self.conn.poll(0.05):
                    if self.conn.recv() == "ready":
                        self.ready.set()
                        return True
                    break
        except (EOFError, OSError):
            pass
        except BaseException:
            self.kill()
            raise
        self.kill()
        return False

    def fork(self) -> _Worker | None:
        """A new worker forked from the zygote; None when the zygote is gone."""
        from multiprocessing.reduction import send_handle

        mine, theirs = multiprocessing.Pipe()
        try:
            with self.lock:
                self.conn.send(("fork",))
                send_handle(self.conn, theirs.fileno(), self.process.pid)
                pid = self.conn.recv()
        except (EOFError, OSError, ValueError):
            mine.close()
            self.kill()
            return None
        finally:
            theirs.close()
        return _Worker(mine, self.memory, pid=int(pid), zygote=self)

    def reap(self, pid: int) -> int | None:
        """The exit code of a worker that ended (None: not known, the zygote is gone)."""
        try:
            with self.lock:
                self.conn.send(("reap", pid))
                code = self.conn.recv()
        except (EOFError, OSError, ValueError):
            return None
        return code if isinstance(code, int) else None

    def kill(self) -> None:
        self.broken = True
        self.ready.set()  # whoever waits for it stops waiting
        _kill_process(self.process)
        try:
            self.conn.close()
        except OSError:
            pass


class _Shared:
    """A job at work for one caller that other callers asking for the same job wait for."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None


def _cpu_ticks(pid: int) -> int | None:
    """The CPU time (user and system, in clock ticks) process ``pid`` has used so far; None where
    it cannot be read (no /proc, the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime and stime, fields 14 and 15
    except (OSError, ValueError, IndexError):
        return None


class _Clock:
    """The wall-clock bounds of one task of process ``pid``, which only catch a task that does not
    work: every :attr:`Limits.wall` seconds the process must have used some CPU, or it is blocked
    (``stall``); a task that works, however slowly a busy machine lets it, runs until its CPU bound
    (the kernel's) or the :attr:`Limits.ceiling`. Where the process's CPU time cannot be read, the
    task may take :attr:`Limits.wall` seconds of wall clock (``time``), as every task did before."""

    def __init__(self, pid: int, limits: Limits, now: float) -> None:
        self.pid = pid
        self.limits = limits
        self.start(now)

    def start(self, now: float) -> None:
        """A new task starts now."""
        self.since = self.mark = now
        self.ticks = _cpu_ticks(self.pid)

    def verdict(self, now: float) -> Failed | None:
        """The bound the task has passed by ``now``, or None."""
        if now >= self.since + self.limits.ceiling:
            return Failed("time", f"{self.limits.ceiling:g}")
        if now < self.mark + self.limits.wall:
            return None
        ticks = _cpu_ticks(self.pid)
        if ticks is None or self.ticks is None:
            return Failed("time", f"{self.limits.wall:g}")
        if ticks <= self.ticks:
            return Failed("stall", f"{self.limits.wall:g}")
        self.mark, self.ticks = now, ticks
        return None


class _Busy:
    """A worker at work for one call: the jobs handed to it, in order (the first is the one it reads)."""

    def __init__(self, worker: _Worker, limits: Limits, now: float) -> None:
        self.worker = worker
        self.jobs: collections.deque[int] = collections.deque()
        #: The wall clock of the first job (it starts again when the next one does).
        self.clock = _Clock(worker.pid, limits, now)


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
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._scratch: str | None = None
        self._live = 0
        self._shared: dict[Any, _Shared] = {}
        #: Zygotes by spec, oldest first.
        self._zygotes: collections.OrderedDict[Any, _Zygote] = collections.OrderedDict()
        #: Specs whose zygote passed a bound while making the object: their workers make their own.
        self._no_zygote: set[Any] = set()

    def _scratch_dir(self) -> str:
        with self._lock:
            if self._scratch is None:
                self._scratch = tempfile.mkdtemp(prefix="mdmark-workers-")
                atexit.register(shutil.rmtree, self._scratch, True)
            return self._scratch

    def _make(self, memory: int, plan: Plan | None = None) -> _Worker:
        # Chosen at each start: fork only while this process runs one thread.
        return _Worker.start(_context(), self._scratch_dir(), memory, plan)

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

    def _start_zygote(self, spec: Any, limits: Limits, plan: Plan | None = None) -> _Zygote | None:
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
        zygote = _Zygote(_context(), spec, self._scratch_dir(), limits, plan)
        old: list[_Zygote] = []
        with self._lock:
            self._zygotes[spec] = zygote
            while len(self._zygotes) > ZYGOTES:
                old.append(self._zygotes.popitem(last=False)[1])
        for gone in old:
            gone.kill()
        return zygote

    def _zygote(self, spec: Any, limits: Limits, plan: Plan | None = None) -> _Zygote | None:
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

    def _take(self, limits: Limits, spec: Any, plan: Plan | None = None) -> _Worker | None:
        """An idle worker holding ``spec``'s object, a new one, or None when :func:`max_workers` are
        at work. A confined worker (``plan``) serves only the project it is confined to."""
        memory = limits.memory
        spare: _Worker | None = None
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

    def _give(self, worker: _Worker) -> None:
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
        the results in job order, a :class:`Failed` for a job whose worker did not finish it. Jobs
        start in the order given (a caller puts the big ones first).

        ``meanwhile()`` runs here once the first jobs are handed out; ``done(i, result)`` as each
        job ends. A stop of the calling thread (:class:`~mdmark.server.limits.CallStopped`, Ctrl+C)
        kills the workers at work and propagates.
        """
        from multiprocessing.reduction import ForkingPickler

        limits = Limits.current()
        spec = owner.worker_spec()
        plan = self.plan(owner)
        place = (spec, task)
        results: list[R | Failed | None] = [None] * len(jobs)
        pending = collections.deque(range(len(jobs)))
        busy: dict[Connection, _Busy] = {}
        #: Jobs another caller is doing: its shared entry, by job.
        waiting: dict[int, _Shared] = {}
        #: Jobs this call does for others too.
        leading: dict[int, _Shared] = {}
        width = max(1, min(width, len(jobs)))
        #: The pickled message of the next job (pickled once, even while it waits for a worker).
        message: tuple[int, bytes] | None = None

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

        def next_job() -> int | None:
            """The next pending job this call does itself (one another caller does is waited for)."""
            while pending:
                i = pending[0]
                key = _key(place, jobs[i])
                if key is not None and i not in leading:  # leading it already: it was handed back
                    with self._lock:
                        other = self._shared.get(key)
                        if other is None:
                            leading[i] = self._shared[key] = _Shared()
                    if other is not None:
                        pending.popleft()
                        waiting[i] = other
                        continue
                return i
            return None

        def hand(entry: _Busy, i: int, message: bytes) -> bool:
            try:
                entry.worker.conn.send_bytes(message)
            except (OSError, ValueError):
                return False
            pending.popleft()
            entry.jobs.append(i)
            entry.worker.served += 1
            return True

        def lost(entry: _Busy, failure: Failed | None) -> None:
            """The worker ended: its first job gets ``failure``; the ones behind it go back to the queue."""
            del busy[entry.worker.conn]
            self._drop(entry.worker)
            if failure is not None and entry.jobs:
                finish(entry.jobs.popleft(), failure)
            pending.extendleft(reversed(entry.jobs))

        try:
            while pending or busy or waiting:
                # New workers first (up to ``width``), then a second job to each worker whose
                # message is small: it never waits for this process between two documents, and a
                # small message never fills the pipe of a worker that is stuck on its first.
                while len(busy) < width and next_job() is not None:
                    worker = self._take(limits, spec, plan)
                    if worker is None:
                        break  # every worker is at work: wait for one to come back
                    busy[worker.conn] = _Busy(worker, limits, time.monotonic())
                for entry in list(busy.values()):
                    while len(entry.jobs) < DEPTH and not entry.worker.retiring and (i := next_job()) is not None:
                        if message is None or message[0] != i:
                            message = (i, bytes(ForkingPickler.dumps((spec, task, jobs[i], limits.cpu))))
                        if entry.jobs and len(message[1]) > QUEUED_BYTES:
                            break
                        if not entry.jobs:
                            entry.clock.start(time.monotonic())
                        if not hand(entry, i, message[1]):
                            lost(entry, None)  # died while idle: the job goes to another
                            break
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
                    entry = busy[conn]
                    try:
                        kind, value = conn.recv()
                    except (EOFError, OSError):
                        lost(entry, entry.worker.death())
                        continue
                    i = entry.jobs.popleft()
                    entry.clock.start(time.monotonic())
                    if kind == "memory":
                        lost(entry, None)  # the worker ends: what it had queued goes to another
                    elif not entry.jobs and not pending:
                        del busy[conn]
                        self._give(entry.worker)
                    finish(i, value if kind == "ok" else Failed(kind, value))
                now = time.monotonic()
                for entry in list(busy.values()):
                    if entry.jobs and (failure := entry.clock.verdict(now)) is not None:
                        lost(entry, failure)
                    elif not entry.jobs:  # its queued job went to another caller, or it retires
                        del busy[entry.worker.conn]
                        self._give(entry.worker)
                for i, shared in list(waiting.items()):
                    if shared.done.is_set():
                        del waiting[i]
                        if isinstance(shared.result, Failed) and shared.result.reason == "stopped":
                            pending.append(i)  # its caller went away: this one does it
                        else:
                            finish(i, shared.result)
        except BaseException:
            for entry in busy.values():
                self._drop(entry.worker)
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
        """End the idle workers and the zygotes (the next call starts from this process as it is now)."""
        with self._lock:
            idle, self._idle = self._idle, []
            zygotes = list(self._zygotes.values())
            self._zygotes.clear()
            self._no_zygote.clear()
        for worker in idle:
            worker.kill()
        for zygote in zygotes:
            zygote.kill()


def _key(place: tuple[Any, ...], job: Any) -> Any:
    """What makes two jobs the same (None: a job that cannot be compared)."""
    try:
        hash(job)
    except TypeError:
        return None
    return (place, job)


def max_workers() -> int:
    """Workers one process runs at once: two per core, at least four — fewer when the machine's
    memory share (:data:`MEMORY_SHARE`) cannot give each of them and each zygote :data:`MEMORY_FLOOR`."""
    wanted = max(4, 2 * worker_count())
    share = memory_share()
    if share is None:
        return wanted
    return max(1, min(wanted, share // MEMORY_FLOOR - ZYGOTES))


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
    width = worker_count() if parallel(len(jobs)) else 1
    return _POOL.run(owner, task, jobs, width, meanwhile, done)


def protections(probe: Callable[[], int] | None = None) -> list[str]:
    """What protects the processes that read documents on this machine, one line each (``mdmark
    trust --status``): the confinement by the kernel, the network, signals, memory and CPU bounds."""
    version = max(0, (probe or landlock.abi)())
    lines: list[str] = []
    if version >= 1:
        lines.append(
            f"ファイル: 有効（Landlock ABI {version}）。文書を読む作業プロセスが読めるのはプロジェクト・Python・システムのライブラリだけ、"
            "書けるのは自分の作業フォルダとプロジェクトのキャッシュだけ（信頼した conf.py はプロジェクトの中にも書ける）。"
        )
    for missing in landlock.missing_protections(version):
        lines.append(f"無効: {missing}。")
    if version >= 4:
        lines.append("ネットワーク: 有効。信頼していない conf.py のプロジェクトの作業プロセスは TCP でつなぐことも待ち受けることもできない。")
    if version >= 6:
        lines.append("シグナル・抽象 UNIX ソケット: 有効。信頼していないプロジェクトの作業プロセスは自分たちの外のプロセスに届かない。")
    limits = Limits.current()
    machine = machine_memory()
    workers, zygotes = max_workers(), ZYGOTES
    memory = f"メモリ: 作業プロセス 1 つに {limits.memory // 2**20:,} MB まで、同時に作業プロセス {workers} 個と zygote {zygotes} 個"
    if os.environ.get(MEMORY_ENV):
        memory += f"（1 つあたりの上限は環境変数 {MEMORY_ENV} の値）。"
    elif machine:
        memory += f"で合計 {limits.memory * (workers + zygotes) // 2**20:,} MB まで（マシンのメモリ {machine // 2**20:,} MB の半分以下）。"
    else:
        memory += "（マシンのメモリが分からないので 1 つあたりの既定の上限）。"
    lines.append(memory)
    lines.append(f"CPU: 文書 1 つに CPU {limits.cpu} 秒・時間 {limits.wall:g} 秒まで。")
    return lines


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
