"""Benchmark (not a test): where a cold run's wall time goes — start-up (imports, conf.py and the
extensions' ``setup()``, the index) against the documents' parse and render — in every process.

    .venv/bin/python bench/timeline.py --project DIR [--command check|build] [--runs 2] [--sphinx html]

``DIR`` may be the generated knowledge base (``python bench/corpus.py DIR 1200``): Sphinx then reads
a copy of it beside ``corpus.py``'s conf.py.

On a copy of ``DIR`` (a real project: its conf.py trusted as ``bench_project.py`` trusts it, a config
written when it has none), with an empty parse cache each run, the command runs with a
``sitecustomize`` (on ``PYTHONPATH``, this run only) that notes, in each process (the CLI, its zygote,
the workers forked from it), when Sphinx finished importing, when the Sphinx application was made
(``App.__init__``: conf.py and every extension's ``setup()``), and each document's read and render.
Nothing of mdmark is changed: the hooks wrap its functions as their modules load. Prints, per run,
the CLI's start-up until the first document is read, the application's making, the documents'
span and their summed CPU-bound time per process, and what came after the last document, beside
``sphinx-build -E -b <builder>`` of the same copy (wall and CPU) and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import textwrap
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_project import prepare_copy  # noqa: E402
from corpus import sphinx_copy  # noqa: E402
from runner import BIN, CacheHome, machine, run  # noqa: E402

#: The hooks, written as ``sitecustomize.py``: each event is one JSON line appended to ``$MDMARK_TIMELINE``.
HOOKS = textwrap.dedent('''
    import importlib.abc, importlib.util, json, os, sys, time

    _OUT = os.environ.get("MDMARK_TIMELINE")
    # Opened once, here, in the CLI's process: its zygote and workers inherit the descriptor, so
    # they note events although the kernel lets them open nothing outside their own folders.
    _FD = os.open(_OUT, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600) if _OUT else -1

    def _note(event, start=None):
        if _FD < 0:
            return
        line = {"pid": os.getpid(), "ppid": os.getppid(), "event": event, "t": time.time(),
                "cpu": time.process_time()}
        if start is not None:
            line["start"] = start
        try:
            os.write(_FD, (json.dumps(line) + "\\n").encode())
        except OSError:
            pass  # a process that closed what it inherited: its events are not noted

    def _timed(event, func):
        def wrapper(*args, **kwargs):
            start = time.time()
            try:
                return func(*args, **kwargs)
            finally:
                _note(event, start)
        wrapper.__wrapped__ = func
        return wrapper

    def _patch(name, module):
        if name == "mdmark.pipeline.reading":
            module.App.__init__ = _timed("app", module.App.__init__)
            module.App.read = _timed("read", module.App.read)
            module._parse_with = _timed("parse", module._parse_with)
        elif name == "mdmark.html.render":
            module._render = _timed("render", module._render)
        elif name == "sphinx.application":
            _note("sphinx imported")

    _TARGETS = {"mdmark.pipeline.reading", "mdmark.html.render", "sphinx.application"}

    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname not in _TARGETS:
                return None
            sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(fullname)
            finally:
                sys.meta_path.insert(0, self)
            if spec is None or spec.loader is None:
                return None
            loader = spec.loader
            original = loader.exec_module

            def exec_module(module):
                original(module)
                _patch(fullname, module)

            loader.exec_module = exec_module
            return spec

    if _OUT:
        sys.meta_path.insert(0, _Finder())
        _note("python started")
''')


def summarise(lines: list[dict[str, object]], wall: float, started: float) -> dict[str, float]:
    """The run's phases, in seconds from the CLI's start (``started``)."""
    by_pid: dict[int, list[dict[str, object]]] = defaultdict(list)
    for line in lines:
        by_pid[int(str(line["pid"]))].append(line)
    docs = [line for line in lines if line["event"] in ("parse", "render")]
    apps = [line for line in lines if line["event"] == "app"]
    reads = [line for line in lines if line["event"] == "read"]
    sphinx = [float(str(line["t"])) for line in lines if line["event"] == "sphinx imported"]
    first = min((float(str(line["start"])) for line in docs), default=started)
    last = max((float(str(line["t"])) for line in docs), default=started)
    workers = {int(str(line["pid"])) for line in docs}
    summed = sum(float(str(line["t"])) - float(str(line["start"])) for line in lines if line["event"] == "parse")
    rendered = sum(float(str(line["t"])) - float(str(line["start"])) for line in lines if line["event"] == "render")
    return {
        "wall": wall,
        "sphinx imported": min(sphinx, default=started) - started,
        "app made from": min((float(str(a["start"])) for a in apps), default=started) - started,
        "app made at": max((float(str(a["t"])) for a in apps), default=started) - started,
        "first document": first - started,
        "last document": last - started,
        "after the documents": started + wall - last,
        "documents": float(len({line["t"] for line in reads})),
        "workers": float(len(workers)),
        "parse (summed)": summed,
        "of which Sphinx read": sum(float(str(r["t"])) - float(str(r["start"])) for r in reads),
        "render (summed, parse included)": rendered,
    }


def time_project(source: Path, base: Path, hooks: Path, commands: list[str], runs: int, builder: str) -> None:
    """Every run of one project: Sphinx, then each command from no cache with the hooks on."""
    copy, docs = prepare_copy(source, base)
    caches = CacheHome(base)
    env = {**caches.env(), "XDG_CONFIG_HOME": str(base / "config")}
    run([str(BIN / "mdmark"), "trust", "--config", str(copy / "mdmark.config.yaml")], copy, env, ok=(0, 1, 2))  # none: no conf.py
    theirs = copy
    if not (copy / docs / "conf.py").is_file():  # the generated corpus: Sphinx reads it beside corpus.py's conf.py
        theirs = base / f"{copy.name}-sphinx"
        sphinx_copy(copy, theirs)
    for i in range(runs):
        shutil.rmtree(base / "sphinx-out", ignore_errors=True)
        sphinx = None
        if builder != "none":
            sphinx = run([str(BIN / "sphinx-build"), "-E", "-q", "-b", builder, docs or ".", str(base / "sphinx-out")], theirs, env)
            print(f"{source.name} run {i + 1}: sphinx-build -E -b {builder} {sphinx.wall:.2f} s (CPU {sphinx.cpu:.2f} s)", flush=True)
        print(f"{source.name} run {i + 1}: load {os.getloadavg()[0]:.2f}", flush=True)
        for command in commands:
            caches.cold(copy)
            shutil.rmtree(copy / "dist", ignore_errors=True)
            log = base / "timeline.jsonl"
            log.unlink(missing_ok=True)
            timed = {**env, "MDMARK_TIMELINE": str(log), "PYTHONPATH": str(hooks)}
            timing = run([str(BIN / "mdmark"), command], copy, timed, ok=(0, 1))
            lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            log.unlink()
            cli = min(lines, key=lambda line: float(line["t"]))  # the CLI's "python started"
            phases = summarise(lines, timing.wall, float(cli["t"]))
            shown = ", ".join(f"{k} {v:.0f}" if k in ("documents", "workers") else f"{k} {v:.2f}" for k, v in phases.items())
            ratio = f" = {timing.wall / sphinx.wall:.2f}× (CPU {timing.cpu / sphinx.cpu:.2f}×)" if sphinx else ""
            print(f"  {command}: {timing.wall:.2f} s (CPU {timing.cpu:.2f} s){ratio}; {shown}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, action="append", required=True, help="a real project (a copy is used)")
    parser.add_argument("--command", choices=("check", "build"), action="append", help="default: check and build")
    parser.add_argument("--runs", type=int, default=2, help="runs of each (the machine may be shared)")
    parser.add_argument("--sphinx", default="html", help="the builder sphinx-build is timed with (default html; none: not timed)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mdmark-timeline-")).resolve()
    hooks = base / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(HOOKS, encoding="utf-8")
    print(machine(), flush=True)
    try:
        for source in args.project:
            time_project(source, base, hooks, args.command or ["check", "build"], args.runs, args.sphinx)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
