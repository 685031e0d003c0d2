"""The bounds of the pool's processes (:mod:`mdmark.pipeline.pool`): what one task may use, how many
processes may run at once, and the sentence for a document whose worker passed a bound.

A worker runs under operating-system limits — address space (``RLIMIT_AS``), CPU seconds per task
(``RLIMIT_CPU``, set afresh before each task: the bound of a document's work, which a busy machine
does not change), no core files — and wall-clock bounds the parent enforces, which only catch a
worker that does not work (blocked on a FIFO, stalled; see :class:`Clock`).

Memory: every worker and zygote that may run at once, together, maps at most half of the
machine's memory (:func:`worker_memory`, :func:`max_workers`), each on top of what it starts with.
"""

from __future__ import annotations

import math
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mdmark.util import landlock

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
#: Zygotes (one per project and settings, each holding a Sphinx application) one process keeps.
ZYGOTES = 4

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


def bound_process(memory: int, mapped: int | None = None, lifeline: bool = True) -> None:
    """What every pool process does first (once confined: :mod:`mdmark.pipeline.zygote`): end with this
    process's parent (the pool's process; not a resident zygote, ``lifeline`` False, which outlives
    the command that started it), leave Ctrl+C to it, write no core file, and map at most
    ``memory`` more bytes than ``mapped`` (default: what it maps now)."""
    from mdmark.util.lifeline import die_with_parent

    if lifeline:
        die_with_parent()
    # A stop of the parent (Ctrl+C in a terminal reaches the whole group) is the parent's to handle.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A killed worker must not leave a core file in the folder the user started mdmark from.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # On top of what the process has mapped already: a worker forked from a large parent (the CLI)
    # or from a zygote starts with its mappings, which are not the document's doing.
    _lower(resource.RLIMIT_AS, (mapped_bytes() if mapped is None else mapped) + memory)


def cpu_from_now(cpu: int) -> None:
    """Let this process use ``cpu`` more CPU seconds (at least: the limit is in whole seconds)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    _lower(resource.RLIMIT_CPU, math.ceil(used.ru_utime + used.ru_stime) + cpu)


def mapped_bytes() -> int:
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


class Clock:
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


def max_workers() -> int:
    """Workers one process runs at once: two per core, at least four — fewer when the machine's
    memory share (:data:`MEMORY_SHARE`) cannot give each of them and each zygote :data:`MEMORY_FLOOR`."""
    wanted = max(4, 2 * worker_count())
    share = memory_share()
    if share is None:
        return wanted
    return max(1, min(wanted, share // MEMORY_FLOOR - ZYGOTES))


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
