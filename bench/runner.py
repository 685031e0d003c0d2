"""What the benchmark scripts share: timing a command (wall and CPU) and cold parse caches.

mdmark's parse cache lives in ``.mdmark_cache/`` beside the config, or in a per-user cache
folder under ``$XDG_CACHE_HOME`` (the cache layer is moving there); :class:`CacheHome` runs
commands with ``XDG_CACHE_HOME`` pointed at a folder of its own and clears both places for a
cold run, so no run ever reads a cache another run (or the user) left behind.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
PROJECT_CACHE = ".mdmark_cache"


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds
    cpu: float  # user + system seconds of the command and every process it waited for
    code: int
    stdout: str
    stderr: str


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, ok: tuple[int, ...] = (0,)) -> Timing:
    """Run ``cmd`` to completion; exits the benchmark with its stderr when the exit code is not in ``ok``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, done.returncode, done.stdout, done.stderr)


class CacheHome:
    """A private ``XDG_CACHE_HOME`` for mdmark runs, emptied (with the project's cache) by :meth:`cold`."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.folder = Path(tempfile.mkdtemp(prefix="xdg-cache-", dir=base))

    def env(self) -> dict[str, str]:
        return {**os.environ, "XDG_CACHE_HOME": str(self.folder)}

    def cold(self, project: Path) -> None:
        shutil.rmtree(project / PROJECT_CACHE, ignore_errors=True)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)

    def where(self, project: Path) -> str:
        """Where the cache ended up and how big it is (a sanity line: a cold run must have written one)."""
        found = []
        for place in (project / PROJECT_CACHE, self.folder):
            size = sum(f.stat().st_size for f in place.rglob("*") if f.is_file()) if place.is_dir() else 0
            if size:
                found.append(f"{place} ({size / 1e6:.1f} MB)")
        return ", ".join(found) or "nowhere (the cold figures may not be cold)"


def median(values: list[float]) -> float:
    return statistics.median(values)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def append_line(doc: Path, run: int) -> None:
    """Edit a document the way a writer does: one more sentence at the end."""
    with open(doc, "a", encoding="utf-8") as handle:
        handle.write(f"\n追記 {run}: 手順を一つ足した。\n")


def machine() -> str:
    """Cores (all, and usable by this process) and the load average: the machine is shared."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return f"{os.cpu_count()} cores ({usable} usable), load average {load}"
