"""Benchmark (not a test): ``mdmark build`` against ``sphinx-build -E -b singlehtml`` on one corpus.

    .venv/bin/python bench/bench_build.py [--docs 500] [--runs 2] [--keep DIR]

Generates the corpus of :mod:`bench.corpus`, then, alternating the two tools ``--runs`` times and
keeping each best time:

* mdmark cold: ``mdmark build`` with no parse cache;
* mdmark one changed: ``mdmark build`` again after appending a line to one document;
* Sphinx cold: ``sphinx-build -E -b singlehtml`` with myst_parser + sphinx_design on a copy of the
  same documents (plus a root page whose toctree globs them, so the single page holds them all);
* Sphinx one changed (for reference): ``sphinx-build -b singlehtml`` after the same change.

Prints the times and the ratios against Sphinx cold (targets: cold ≤ 0.5×, one changed ≤ 0.1×).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate  # noqa: E402

BIN = Path(sys.executable).parent

SPHINX_CONF = """\
extensions = ["myst_parser", "sphinx_design"]
myst_enable_extensions = ["colon_fence", "deflist", "tasklist", "dollarmath", "substitution", "attrs_inline"]
myst_heading_anchors = 3
root_doc = "index"
exclude_patterns = ["dist", ".mdmark_cache", "_build"]
suppress_warnings = ["toc.not_included", "myst.header"]
"""

SPHINX_ROOT = "# Benchmark\n\n```{toctree}\n:glob:\n\ndocs/*\n```\n"


def _run(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return elapsed


def _touch(doc: Path, run: int) -> None:
    with open(doc, "a", encoding="utf-8") as handle:
        handle.write(f"\n追記 {run}。\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="generate the corpus here and keep it")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="mdmark-bench-"))
    mine = base / "mdmark"
    theirs = base / "sphinx"
    for folder in (mine, theirs):
        shutil.rmtree(folder, ignore_errors=True)
    generate(mine, args.docs)
    shutil.copytree(mine, theirs)
    (theirs / "index.md").write_text(SPHINX_ROOT, encoding="utf-8")
    (theirs / "conf.py").write_text(SPHINX_CONF, encoding="utf-8")
    changed_mine = mine / "docs" / f"doc{args.docs // 2:04d}.md"
    changed_theirs = theirs / "docs" / f"doc{args.docs // 2:04d}.md"
    mdmark = [str(BIN / "mdmark"), "build"]
    sphinx = [str(BIN / "sphinx-build"), "-q", "-b", "singlehtml", ".", "_build"]

    times: dict[str, list[float]] = {"mdmark cold": [], "mdmark one changed": [], "sphinx cold": [], "sphinx one changed": []}
    print(f"corpus: {args.docs} documents in {base} ({os.cpu_count()} CPUs)", flush=True)
    for run in range(args.runs):
        shutil.rmtree(mine / ".mdmark_cache", ignore_errors=True)
        times["mdmark cold"].append(_run(mdmark, mine))
        _touch(changed_mine, run)
        times["mdmark one changed"].append(_run(mdmark, mine))
        times["sphinx cold"].append(_run(sphinx[:1] + ["-E"] + sphinx[1:], theirs))
        _touch(changed_theirs, run)
        times["sphinx one changed"].append(_run(sphinx, theirs))
        print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()), flush=True)

    best = {k: min(v) for k, v in times.items()}
    sphinx_cold = best["sphinx cold"]
    print()
    print(f"{'':24}{'best':>9}{'× sphinx -E':>14}")
    for name, value in best.items():
        print(f"{name:24}{value:8.2f}s{value / sphinx_cold:13.2f}×")
    print()
    print(f"cold ratio {best['mdmark cold'] / sphinx_cold:.2f}× (target ≤ 0.5×); "
          f"one changed {best['mdmark one changed'] / sphinx_cold:.3f}× (target ≤ 0.1×)")
    size = (mine / "dist" / "docs.html").stat().st_size
    print(f"page size {size / 1e6:.1f} MB")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
