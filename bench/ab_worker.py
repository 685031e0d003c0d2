"""Benchmark (not a test): two versions of mdmark, A and B, on what a cold worker pays per document.

    .venv/bin/python bench/ab_worker.py --a main [--b WORKTREE] [--docs 1200] [--count 300] [--runs 3] [--render]

Each version is laid out as ``ab_cold.py`` lays it out; per round, A then B then B then A, a fresh
Python process of that version makes the Sphinx application of the generated knowledge base
(``corpus.py``) and then reads ``--count`` of its documents one after another with no cache, as a
worker of a cold check does (``--render``: parsed and rendered, as a worker of a cold build does).
Prints each version's median CPU per document (the process's own CPU, the application's making
left out), B/A and the load average: a few per cent is the size of what this compares, so it runs
without any profiler and alternates.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ab_cold import lay_out  # noqa: E402
from corpus import generate  # noqa: E402
from runner import machine, median  # noqa: E402

#: What one measured process runs (``argv``: project, documents, render or not, scratch folder).
MEASURE = """
import json, sys, time
from pathlib import Path
from mdmark.pipeline.pipeline import Pipeline
from mdmark.pipeline.tasks import run_here
from mdmark.project.main import Project

project, count, render, scratch = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", Path(sys.argv[4])
opened = Project.open(project)
pipeline = Pipeline(opened.root, opened.config.markdown, scratch / "cache", opened.config.sphinx_conf,
                    scratch=scratch, runner=run_here)
pipeline.application()
paths = sorted(project.rglob("*.md"))[:count]
start = time.process_time()
if render:
    from mdmark.html import render as html

    for path in paths:
        html._render_task(pipeline, (str(path), opened.config.html.lang))
else:
    for path in paths:
        pipeline.facts_many([path])
print(json.dumps({"per_doc_ms": (time.process_time() - start) * 1000 / len(paths), "docs": len(paths)}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="revision A (a git revision, or WORKTREE)")
    parser.add_argument("--b", default="WORKTREE", help="revision B (default: the work tree)")
    parser.add_argument("--docs", type=int, default=1200, help="documents in the corpus")
    parser.add_argument("--count", type=int, default=300, help="documents read per process")
    parser.add_argument("--runs", type=int, default=3, help="rounds (each runs A, B, B, A)")
    parser.add_argument("--render", action="store_true", help="parse and render (a cold build's worker)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mdmark-abw-")).resolve()
    try:
        sites = {"A": lay_out(args.a, base / "A"), "B": lay_out(args.b, base / "B")}
        project = base / "corpus"
        generate(project, args.docs)
        print(f"A = {args.a}, B = {args.b}; {args.count} documents of {args.docs}, "
              f"{'parse and render' if args.render else 'parse'}; {machine()}", flush=True)
        seen: dict[str, list[float]] = {"A": [], "B": []}
        for i in range(args.runs):
            for v in ("A", "B", "B", "A"):
                scratch = base / f"scratch-{v}"
                shutil.rmtree(scratch, ignore_errors=True)
                scratch.mkdir()
                env = {**os.environ, "PYTHONPATH": str(sites[v]), "XDG_CACHE_HOME": str(scratch / "xdg")}
                done = subprocess.run(
                    [sys.executable, "-c", MEASURE, str(project), str(args.count), "1" if args.render else "0", str(scratch)],
                    env=env, capture_output=True, text=True, check=True,
                )
                seen[v].append(json.loads(done.stdout.strip().splitlines()[-1])["per_doc_ms"])
            print(f"  round {i + 1}: A {seen['A'][-2]:.2f} / {seen['A'][-1]:.2f} ms, B {seen['B'][-2]:.2f} / "
                  f"{seen['B'][-1]:.2f} ms a document; load {os.getloadavg()[0]:.2f}", flush=True)
        a, b = median(seen["A"]), median(seen["B"])
        print(f"median CPU a document: A {a:.2f} ms, B {b:.2f} ms, B/A {b / a:.3f}; {machine()}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
