"""The pool's processes: the worker's loop, the zygote that forks workers, and the parent's handles
on both (:mod:`mdmark.pipeline.pool` decides which runs what).

Workers stay alive between tasks and calls: each keeps its own copy of the caller's worker object —
for the pipeline, its own :class:`~mdmark.pipeline.pipeline.Pipeline` (its own Sphinx application)
for the same project and settings, as :meth:`~mdmark.pipeline.pipeline.Pipeline.worker_spec` says
how. Making that object (conf.py and every extension's ``setup()``: about a second) is done once per
project, not once per worker: a bounded *zygote* process makes it (under the same memory and CPU
limits, and the wall clock) and then only forks; each worker forked from it starts with the object
made, applies its own limits and is killed and replaced on its own. The zygote also reaps its
workers and tells the parent how each ended.

Where the kernel has Landlock, zygotes and workers are confined (:class:`Plan`,
:mod:`mdmark.util.landlock`) before they start any thread or make anything — a zygote's forked
workers inherit its domain. A confined worker writes only a scratch folder of its own, and a
refusal by the kernel is said as a sentence.
"""

from __future__ import annotations

import collections
import hmac
import multiprocessing
import os
import signal
import socket
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.limits import Clock, Failed, Limits, bound_process, cpu_from_now, mapped_bytes
from mdmark.util import landlock

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.context import BaseContext

#: Projects (pipelines) one worker keeps.
PIPELINES_PER_WORKER = 4
#: Documents after which a worker forked from a zygote is replaced by a fresh fork: Sphinx's
#: environment keeps something of every document it reads (titles, tables of contents, labels)
#: and the worker's memory caches keep their facts and fragments, so a worker that read 7,000
#: documents of a cold 14,000-document build held 450 MB and growing; a fork costs milliseconds.
RECYCLE_TASKS = 500


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
    bound_process(memory, mapped)
    if made is None:
        made = collections.OrderedDict()
    while True:
        try:
            spec, task, job, cpu = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone or closed the pool
        cpu_from_now(cpu)
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
    if plan is not None:
        try:
            scratch = _confine(plan, scratch)
        except OSError:
            os._exit(4)  # no zygote: each worker confines itself, and says why when it cannot
    bound_process(memory)
    cpu_from_now(cpu)
    made = _make(spec, scratch)
    conn.send("ready")
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if not _serve(conn, request, scratch, memory, made, cpu, [conn]):
            os._exit(0)


def resident_main(
    listener: socket.socket,
    token: bytes,
    spec: tuple[Any, ...],
    scratch: str,
    memory: int,
    cpu: int,
    plan: Plan | None,
    idle: float,
) -> None:
    """A zygote that outlives the command that started it (:mod:`mdmark.pipeline.resident`): made
    as :func:`_zygote_main` makes one, then serving every client that connects to ``listener`` and
    proves it knows ``token``, until no client and no worker has been there for ``idle`` seconds."""
    if plan is not None:
        try:
            scratch = _confine(plan, scratch)
        except OSError:
            os._exit(4)
    # No lifeline: the command that started it ends first. Its workers keep theirs (to it).
    bound_process(memory, lifeline=False)
    cpu_from_now(cpu)
    made = _make(spec, scratch)
    clients: list[Connection] = []
    reaper = _Reaper()
    quiet_since = time.monotonic()
    while True:
        reaper.collect()
        now = time.monotonic()
        if clients or reaper.children:
            quiet_since = now
        elif now - quiet_since >= idle:
            os._exit(0)
        for ready in wait([listener, *clients], timeout=1.0):
            if ready is listener:
                admitted = _admit(listener, token)
                if admitted is not None:
                    clients.append(admitted)
                continue
            assert isinstance(ready, Connection)
            try:
                request = ready.recv()
                served = _serve(ready, request, scratch, memory, made, cpu, [listener, *clients], reaper)
            except Exception:  # noqa: BLE001 - a client gone, or one that sent what no mdmark sends: dropped, the others served
                served = False
            if not served:
                clients.remove(ready)
                ready.close()


def _make(spec: tuple[Any, ...], scratch: str) -> collections.OrderedDict[tuple[Any, ...], Any]:
    """The object of ``spec``, made once for every worker to start with (empty when making it
    failed: each worker makes it again and says why for each document, as before)."""
    import gc

    # Importing Sphinx and making the application allocate a few hundred thousand objects that all
    # live on, nearly none of them garbage (a few hundred): the collector's passes over them while
    # they are made, and a full collection after, were a fifth of the zygote's CPU — the time a CLI
    # run after one edit waits for. Off until they are frozen (then on again, for the workers).
    gc.disable()
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
    gc.freeze()
    gc.enable()
    return made


def _serve(
    conn: Connection,
    request: Any,
    scratch: str,
    memory: int,
    made: collections.OrderedDict[tuple[Any, ...], Any],
    cpu: int,
    closing: list[Any],
    reaper: _Reaper | None = None,
) -> bool:
    """Answer one request of a zygote's client: ``("fork",)`` and a pipe end (a worker is forked,
    its pid the answer) or ``("reap", pid)`` (its exit code). False when the client is gone.
    ``closing``: what a forked worker closes first (the zygote's ends of its clients)."""
    from multiprocessing.reduction import recv_handle

    if request[0] == "fork":
        try:
            fd = recv_handle(conn)
        except (EOFError, OSError):
            return False
        # Forking costs a little CPU each time: the bound is on one request, not on the zygote's life.
        cpu_from_now(cpu)
        mapped = mapped_bytes()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                for end in closing:  # a client must see the zygote's end close when the zygote ends
                    end.close()
                _worker_main(Connection(fd), scratch, memory, made, None, mapped)
            except BaseException:  # noqa: BLE001 - the worker's end, whatever ended it
                code = 1
            os._exit(code)
        os.close(fd)
        if reaper is not None:
            reaper.children.add(pid)
        conn.send(pid)
    elif request[0] == "reap":
        conn.send(reaper.reap(int(request[1])) if reaper is not None else _reap(int(request[1])))
    return True


def _admit(listener: socket.socket, token: bytes) -> Connection | None:
    """The connection of a client of a resident zygote that sent ``token`` first (told "ready"),
    else None (closed): a confined worker of another project may reach the socket, never the token."""
    try:
        sock, _ = listener.accept()
    except OSError:
        return None
    conn = Connection(sock.detach())
    try:
        if conn.poll(2) and hmac.compare_digest(conn.recv_bytes(len(token) + 1), token):
            conn.send("ready")
            return conn
    except (EOFError, OSError):
        pass
    conn.close()
    return None


class _Reaper:
    """A resident zygote's workers: each one that ended is reaped at once (its clients come and
    go; nobody may ask), its exit code kept for a client that asks later."""

    #: Exit codes kept for a later question at most (the oldest go first).
    KEPT = 256

    def __init__(self) -> None:
        self.children: set[int] = set()
        self.ended: collections.OrderedDict[int, int] = collections.OrderedDict()

    def collect(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            if pid == 0:
                return
            self.children.discard(pid)
            self.ended[pid] = os.waitstatus_to_exitcode(status)
            while len(self.ended) > self.KEPT:
                self.ended.popitem(last=False)

    def reap(self, pid: int) -> int | None:
        if pid in self.ended:
            return self.ended.pop(pid)
        if pid not in self.children:
            return None
        self.children.discard(pid)
        return _reap(pid)


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


class Worker:
    """A worker process: started here (``zygote`` None), or forked by a zygote for its spec."""

    def __init__(
        self,
        conn: Connection,
        memory: int,
        process: Any = None,
        pid: int = 0,
        zygote: Zygote | None = None,
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
    def start(cls, context: BaseContext, scratch: str, memory: int, plan: Plan | None = None) -> Worker:
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


class Zygote:
    """The process that made the object of one spec and forks workers that start with it: a child
    of this process (:meth:`start`), or a resident one that outlives the command
    (:mod:`mdmark.pipeline.resident`, which this process only talks to)."""

    def __init__(
        self,
        spec: tuple[Any, ...],
        limits: Limits,
        plan: Plan | None,
        conn: Connection,
        pid: int,
        process: Any = None,
        ending: Callable[[], None] | None = None,
    ) -> None:
        self.spec = spec
        self.plan = plan
        self.memory = limits.memory
        self.limits = limits
        self.conn = conn
        #: The zygote's process id (0: not known, a resident one whose record was lost).
        self.pid = pid
        #: The child process (None: a resident zygote, which this process only talks to).
        self.process = process
        #: How a resident zygote is ended when it breaks (:func:`mdmark.pipeline.resident.forget`).
        self._ending = ending
        #: One request and its answer at a time (the server's calls run in threads).
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.broken = False
        #: Held by the one caller that waits for the zygote's word; the others wait for :attr:`ready`.
        self._settling = threading.Lock()

    @classmethod
    def start(
        cls, context: BaseContext, spec: tuple[Any, ...], scratch: str, limits: Limits, plan: Plan | None = None
    ) -> Zygote:
        """A zygote started now as a child of this process (not waited for)."""
        mine, theirs = context.Pipe()
        process: Any = context.Process(  # type: ignore[attr-defined]
            target=_zygote_main, args=(theirs, spec, scratch, limits.memory, limits.cpu, plan), name="mdmark-zygote", daemon=True
        )
        process.start()
        theirs.close()
        return cls(spec, limits, plan, mine, process.pid, process)

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
        """Wait (within the wall-clock bounds of a task, :class:`Clock`) until the object is made;
        False when the zygote passed a bound or died. Short waits: a stop of this thread is raised
        between two.

        The clock starts when the caller starts waiting, not at the zygote's start: one started
        ahead (:func:`prepare`) shares the machine with its caller's own work until then, and must
        not get less time than one started when it is needed (its CPU bound holds throughout)."""
        clock = Clock(self.pid, self.limits, time.monotonic())
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

    def fork(self) -> Worker | None:
        """A new worker forked from the zygote; None when the zygote is gone."""
        from multiprocessing.reduction import send_handle

        mine, theirs = multiprocessing.Pipe()
        try:
            with self.lock:
                self.conn.send(("fork",))
                send_handle(self.conn, theirs.fileno(), self.pid)
                pid = self.conn.recv()
        except (EOFError, OSError, ValueError):
            mine.close()
            self.kill()
            return None
        finally:
            theirs.close()
        return Worker(mine, self.memory, pid=int(pid), zygote=self)

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
        """End the zygote: it broke, passed a bound, or (a child) is no longer wanted."""
        self.broken = True
        self.ready.set()  # whoever waits for it stops waiting
        if self.process is not None:
            _kill_process(self.process)
        elif self._ending is not None:
            self._ending()
        self._hang_up()

    def close(self) -> None:
        """This process is done with the zygote: a child ends, a resident one goes on serving others."""
        if self.process is not None:
            self.kill()
            return
        self.broken = True
        self.ready.set()
        self._hang_up()

    def _hang_up(self) -> None:
        try:
            self.conn.close()
        except OSError:
            pass
