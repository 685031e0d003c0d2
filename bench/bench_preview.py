"""Benchmark (not a test): ``mdmark preview`` save → reload event, next to a ``sphinx-build`` incremental rebuild.

    .venv/bin/python bench/bench_preview.py [--docs 1200] [--runs 10] [--sphinx-runs 3] [--keep DIR]
    .venv/bin/python bench/bench_preview.py --profile OUT.prof [--docs 1200] [--runs 10] [--keep DIR]

(``--sphinx-runs 0`` leaves sphinx-build out: a before/after comparison of mdmark alone.)

``--profile``: no server; the preview's refresh (:meth:`mdmark.preview.session.Preview.refresh`, the
page's build and the drift panel's check) runs in this process, once cold and once warm, then
``--runs`` times after one save each without and then under cProfile (written to ``OUT.prof``); prints each
refresh's wall time split into the build and the check, and the top functions. cProfile makes
Python code about twice as slow: the split, not the total, is the figure to read.

Generates the knowledge base of :mod:`bench.corpus`, starts ``mdmark preview --port 0`` on it (cold
parse cache; the time to the startup line is the cold build), opens the page's event stream as the
browser does, then ``--runs`` times appends a sentence to one document and times the save → the
``reload`` event on the stream (and the fetch of the new page after it). For reference, in the same
run: ``sphinx-build -b singlehtml`` (myst_parser + sphinx_design, :func:`corpus.sphinx_copy`)
rebuilding incrementally after the same change, which is what ``sphinx-autobuild`` runs per save.

Prints p50 and p90 of each (target: save → reload event ≤ 300 ms p50 at 1,200 documents).
"""

from __future__ import annotations

import argparse
import gc
import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import side_by_side  # noqa: E402
from runner import BIN, CacheHome, append_line, machine, median, percentile, run  # noqa: E402


class Preview:
    """A running ``mdmark preview`` and one event stream to it (what an open page holds)."""

    def __init__(self, project: Path, env: dict[str, str], errfile: Path) -> None:
        self.errfile = errfile
        started = time.perf_counter()
        with errfile.open("wb") as err:
            self.proc = subprocess.Popen(
                [str(BIN / "mdmark"), "preview", "--port", "0"],
                cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
            )
        while True:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/ ", errfile.read_text(encoding="utf-8", errors="replace"))
            if found:
                break
            if self.proc.poll() is not None:
                sys.exit(f"mdmark preview did not start:\n{errfile.read_text(encoding='utf-8', errors='replace')}")
            time.sleep(0.02)
        self.cold = time.perf_counter() - started
        self.port = int(found.group(1))
        self.stream: http.client.HTTPResponse | None = None
        self.buffer = b""

    def page(self) -> str:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request("GET", "/")
            return connection.getresponse().read().decode("utf-8")
        finally:
            connection.close()

    def version(self) -> str:
        found = re.search(r'id="mdmark-preview"[^>]* data-version="(\d+)"', self.page())
        assert found is not None, "the page has no drift panel"
        return found.group(1)

    def listen(self) -> None:
        """Open the event stream as the page at the current version does."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.request("GET", f"/events?v={self.version()}")
        self.stream = connection.getresponse()
        assert self.stream.status == 200

    def next_reload(self) -> None:
        """Block until the next ``reload`` event."""
        assert self.stream is not None
        while b"event: reload" not in self.buffer:
            chunk = self.stream.read1(65536)
            if not chunk:
                sys.exit("the event stream closed")
            self.buffer += chunk
        self.buffer = self.buffer.split(b"event: reload", 1)[1].split(b"\n\n", 1)[-1]

    def stop(self) -> float:
        started = time.perf_counter()
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        return time.perf_counter() - started


def profile(mine: Path, changed: str, env: dict[str, str], runs: int, out: Path) -> None:
    """The preview's refresh in this process: cold, warm, then ``runs`` saves under cProfile."""
    import cProfile
    import io
    import pstats

    os.environ.update(env)
    os.chdir(mine)
    from mdmark.preview.session import Preview as Session

    session = Session(mine)
    split: dict[str, float] = {}
    render, drift = session._render, session._drift

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(*args)
            finally:
                split[name] = time.perf_counter() - started

        return run

    session._render = timed("build", render)  # type: ignore[method-assign]
    session._drift = timed("check", drift)  # type: ignore[method-assign]
    for name in ("cold", "warm"):
        started = time.perf_counter()
        session.refresh()
        print(f"{name} refresh: {time.perf_counter() - started:.2f}s (build {split['build']:.2f}s, check {split['check']:.2f}s)", flush=True)
        if name == "cold":
            # As mdmark.preview.server.serve does after the cold build.
            gc.collect()
            gc.freeze()
    for i in range(runs):
        append_line(mine / changed, i)
        started, cpu = time.perf_counter(), time.process_time()
        session.refresh()
        # This process's CPU time (not the worker's parse): the figure the machine's load moves least.
        print(f"save {i + 1}: refresh {(time.perf_counter() - started) * 1000:.0f} ms, CPU {(time.process_time() - cpu) * 1000:.0f} ms "
              f"(build {split['build'] * 1000:.0f} ms, check {split['check'] * 1000:.0f} ms) ({machine()})", flush=True)
        time.sleep(0.2)
    profiler = cProfile.Profile()
    for i in range(runs):
        append_line(mine / changed, runs + i)
        started = time.perf_counter()
        profiler.enable()
        session.refresh()
        profiler.disable()
        print(f"save {i + 1}: refresh {(time.perf_counter() - started) * 1000:.0f} ms under cProfile "
              f"(build {split['build'] * 1000:.0f} ms, check {split['check'] * 1000:.0f} ms) ({machine()})", flush=True)
    profiler.dump_stats(out)
    for order in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(order).print_stats(40)
        print(text.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1200)
    parser.add_argument("--runs", type=int, default=10, help="saves timed in the preview")
    parser.add_argument("--sphinx-runs", type=int, default=3, help="incremental sphinx-build runs timed (0: no sphinx-build)")
    parser.add_argument("--keep", type=Path, help="generate the corpus here and keep it")
    parser.add_argument("--profile", type=Path, help="profile the refresh in this process, written here (no server)")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="mdmark-bench-preview-"))
    if args.keep is not None and (base / "corpus.txt").is_file():
        # A kept corpus is used again (generating 1,200 documents takes a while); its saved document too.
        _, changed = (base / "corpus.txt").read_text(encoding="utf-8").split("\n", 1)
        mine, theirs = base / "mdmark", base / "sphinx"
    else:
        corpus, mine, theirs = side_by_side(base, args.docs)
        changed = corpus.sample(1)[0].rel
        if args.keep is not None:
            (base / "corpus.txt").write_text(f"{args.docs}\n{changed}", encoding="utf-8")
    print(f"corpus: {args.docs} documents in {base}; the saved document: {changed} ({machine()})", flush=True)
    if args.profile is not None:
        # The parse cache of a kept corpus is kept too: the profile is of the saves, not the cold build.
        profile(mine, changed, {**os.environ, "XDG_CACHE_HOME": str(base / "xdg-profile")}, args.runs, args.profile.absolute())
        return
    caches = CacheHome(base)
    caches.cold(mine)

    preview = Preview(mine, caches.env(), base / "preview.err")
    print(f"mdmark preview cold start (build + check, to the startup line): {preview.cold:.2f}s", flush=True)
    # The warm refresh right after the start (it catches saves made during the cold build) settles first.
    time.sleep(2.0)
    preview.listen()
    saves: list[float] = []
    fetches: list[float] = []
    try:
        for i in range(args.runs):
            saved = time.perf_counter()
            append_line(mine / changed, i)
            preview.next_reload()
            told = time.perf_counter()
            page = preview.page()
            fetched = time.perf_counter()
            if f"追記 {i}:" not in page:
                sys.exit(f"run {i + 1}: the reloaded page does not have the saved sentence")
            saves.append(told - saved)
            fetches.append(fetched - told)
            print(f"run {i + 1}: save → reload event {saves[-1] * 1000:.0f} ms, page fetch {fetches[-1] * 1000:.0f} ms", flush=True)
            time.sleep(0.3)
    finally:
        stopped = preview.stop()
    print(f"Ctrl+C → exit: {stopped:.2f}s", flush=True)

    if args.sphinx_runs == 0:  # a before/after comparison of mdmark alone
        print(f"\nmdmark preview save → reload event p50 {median(saves) * 1000:.0f} ms, p90 {percentile(saves, 0.9) * 1000:.0f} ms "
              f"(sphinx-build not run: --sphinx-runs 0)")
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
        return
    sphinx = [str(BIN / "sphinx-build"), "-q", "-b", "singlehtml", ".", "_build"]
    cold = run(sphinx, theirs).wall
    print(f"sphinx-build cold (reference): {cold:.2f}s", flush=True)
    theirs_times: list[float] = []
    for i in range(args.sphinx_runs):
        append_line(theirs / changed, i)
        theirs_times.append(run(sphinx, theirs).wall)
        print(f"sphinx run {i + 1}: incremental rebuild {theirs_times[-1]:.2f}s", flush=True)

    print()
    print(f"{'':36}{'p50':>10}{'p90':>10}")
    print(f"{'mdmark preview save → reload event':36}{median(saves) * 1000:8.0f}ms{percentile(saves, 0.9) * 1000:8.0f}ms")
    print(f"{'mdmark preview page fetch':36}{median(fetches) * 1000:8.0f}ms{percentile(fetches, 0.9) * 1000:8.0f}ms")
    print(f"{'sphinx-build incremental (1 change)':36}{median(theirs_times) * 1000:8.0f}ms{percentile(theirs_times, 0.9) * 1000:8.0f}ms")
    print(f"\nratio (p50): {median(saves) / median(theirs_times):.3f}× sphinx-build incremental; target save → reload ≤ 300 ms p50")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
