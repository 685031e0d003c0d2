"""How mdmark's costs grow with the number of documents: bench/README.md's scaling table, from one run.

For each size (default 300, 1,200, 5,000 and 14,000 documents of ``bench/corpus.py``) it measures,
with no cache and then warm: ``mdmark check`` and ``mdmark build`` cold (wall, CPU, peak RSS of the
command and its workers), ``mdmark check`` with nothing changed and after one document is edited,
and, through a running ``mdmark serve``: ``check`` warm and after an edit, ``find_docs related_to``
(p50) and the server's RSS. ``--sphinx`` also times ``sphinx-build -E -b singlehtml`` on a copy
(minutes at 14,000 documents) and prints the ratios. The machine is shared: each cold figure is
the best of ``--cold-runs``; the load average at the start and the end is printed with the table.

    python bench/bench_scale.py                       # 300, 1200, 5000, 14000 without Sphinx
    python bench/bench_scale.py --sizes 300 1200 --sphinx
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcp import start_server  # noqa: E402
from corpus import Corpus, generate, sphinx_copy  # noqa: E402
from runner import BIN, CacheHome, append_line, machine, median  # noqa: E402


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    code: int


@dataclass
class Size:
    docs: int
    sphinx: Run | None = None
    cold_check: Run | None = None
    cold_build: Run | None = None
    warm_check: list[float] = field(default_factory=list)
    edited_check: list[float] = field(default_factory=list)
    mcp: dict[str, list[float]] = field(default_factory=dict)
    server_rss_mb: float = 0.0


def measured(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Wall time, CPU and peak RSS of ``cmd`` and the processes it waited for (``wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if code not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({code}):\n{stderr[-3000:]}")
    # ru_maxrss is the largest single process among those waited for (KiB on Linux).
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)


def _best(old: Run | None, new: Run) -> Run:
    return new if old is None or new.wall < old.wall else old


def cli(size: Size, corpus: Corpus, mine: Path, theirs: Path | None, base: Path, cold_runs: int, warm_runs: int) -> None:
    check = [str(BIN / "mdmark"), "check"]
    for _ in range(cold_runs):
        if theirs is not None:
            shutil.rmtree(theirs / "_build", ignore_errors=True)
            size.sphinx = _best(size.sphinx, measured([str(BIN / "sphinx-build"), "-E", "-q", "-b", "singlehtml", ".", "_build"], theirs))
        builds = CacheHome(base)
        builds.cold(mine)
        size.cold_build = _best(size.cold_build, measured([str(BIN / "mdmark"), "build"], mine, builds.env()))
        checks = CacheHome(base)
        checks.cold(mine)
        size.cold_check = _best(size.cold_check, measured(check, mine, checks.env()))
    # Warm runs use the last cold check's cache; the corpus's files are older than the stamps' tick.
    time.sleep(2.5)
    for _ in range(warm_runs):
        size.warm_check.append(measured(check, mine, checks.env()).wall)
    for i, doc in enumerate(corpus.sample(warm_runs)):
        append_line(mine / doc.rel, i)
        size.edited_check.append(measured(check, mine, checks.env()).wall)
    os.environ["XDG_CACHE_HOME"] = str(checks.folder)


async def _mcp(size: Size, port: int, corpus: Corpus, runs: int) -> None:
    from mcp import Client

    async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=3600) as client:

        async def call(name: str, **arguments: Any) -> Any:
            result = await client.call_tool(name, {**arguments, "project_dir": str(corpus.root)})
            if result.is_error:
                sys.exit(f"{name} failed: {result.content}")
            return result

        async def timed(label: str, count: int, make: Any) -> None:
            samples = []
            for i in range(count):
                start = time.perf_counter()
                await make(i)
                samples.append((time.perf_counter() - start) * 1000)
            size.mcp[label] = samples

        await call("check")
        related = corpus.sample(runs + 1)
        await call("find_docs", related_to=related[-1].id)
        await timed("check warm", runs, lambda i: call("check"))
        await timed("find_docs related_to", runs, lambda i: call("find_docs", related_to=related[i].id))

        async def edited(i: int) -> None:
            append_line(corpus.root / related[i].rel, 100 + i)
            await call("check")

        await timed("check after one edit", runs, edited)


def mcp(size: Size, corpus: Corpus, base: Path, runs: int) -> None:
    import anyio

    folder = base / "serve"
    folder.mkdir(exist_ok=True)
    proc, port = start_server(folder, dict(os.environ))
    try:
        anyio.run(_mcp, size, port, corpus, runs)
        with open(f"/proc/{proc.pid}/status", encoding="utf-8") as status:
            peak = next(line for line in status if line.startswith("VmHWM:"))
        size.server_rss_mb = int(peak.split()[1]) / 1024
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def table(sizes: list[Size]) -> str:
    def ratio(run: Run | None, sphinx: Run | None) -> str:
        if run is None:
            return "—"
        text = f"{run.wall:.1f} s, {run.rss_mb:,.0f} MB"
        return text + (f" = {run.wall / sphinx.wall:.2f}×" if sphinx is not None else "")

    head = "| measure | " + " | ".join(f"{s.docs:,} docs" for s in sizes) + " |"
    rows = [head, "|---|" + "---|" * len(sizes)]

    def row(name: str, cells: list[str]) -> None:
        rows.append(f"| {name} | " + " | ".join(cells) + " |")

    if any(s.sphinx for s in sizes):
        row("`sphinx-build -E -b singlehtml`", [f"{s.sphinx.wall:.1f} s" if s.sphinx else "—" for s in sizes])
    row("`mdmark check`, no cache (wall, peak RSS)", [ratio(s.cold_check, s.sphinx) for s in sizes])
    row("`mdmark build`, no cache (wall, peak RSS)", [ratio(s.cold_build, s.sphinx) for s in sizes])
    row("`mdmark check`, nothing changed", [f"{median(s.warm_check):.2f} s" for s in sizes])
    row("`mdmark check`, one document edited", [f"{median(s.edited_check):.2f} s" for s in sizes])
    for label in ("check warm", "check after one edit", "find_docs related_to"):
        row(f"MCP `{label}` (p50)", [f"{median(s.mcp[label]):,.0f} ms" if label in s.mcp else "—" for s in sizes])
    row("server peak RSS", [f"{s.server_rss_mb:,.0f} MB" for s in sizes])
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1200, 5000, 14000], help="documents per corpus")
    parser.add_argument("--sphinx", action="store_true", help="also time sphinx-build on each corpus (slow)")
    parser.add_argument("--cold-runs", type=int, default=1, help="cold rounds per size (best)")
    parser.add_argument("--warm-runs", type=int, default=5, help="warm and edited CLI checks (median)")
    parser.add_argument("--mcp-runs", type=int, default=10, help="calls per MCP figure (p50)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()

    print(f"machine: {machine()}; load average at start: {os.getloadavg()}", flush=True)
    sizes: list[Size] = []
    for docs in args.sizes:
        base = Path(tempfile.mkdtemp(prefix=f"mdmark-scale-{docs}-")).resolve()
        try:
            mine = base / "mdmark"
            corpus = generate(mine, docs)
            theirs = None
            if args.sphinx:
                theirs = base / "sphinx"
                sphinx_copy(mine, theirs)
            size = Size(docs=len(corpus.docs))
            cli(size, corpus, mine, theirs, base, args.cold_runs, args.warm_runs)
            mcp(size, corpus, base, args.mcp_runs)
            sizes.append(size)
            print(table(sizes), flush=True)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    print(f"\nload average at the end: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps([s.__dict__ for s in sizes], default=lambda o: o.__dict__, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
