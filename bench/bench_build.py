"""Benchmark (not a test): ``mdmark build`` against ``sphinx-build -E -b singlehtml`` on one corpus.

    .venv/bin/python bench/bench_build.py [--docs 500] [--runs 2] [--keep DIR]

Generates the knowledge base of :mod:`bench.corpus`, then, alternating the two tools ``--runs`` times and
keeping each best time:

* mdmark cold: ``mdmark build`` with no parse cache;
* mdmark one changed: ``mdmark build`` again after appending a line to one document;
* Sphinx cold: ``sphinx-build -E -b singlehtml`` with myst_parser + sphinx_design on a copy of the
  same documents (:func:`corpus.sphinx_copy`; the corpus's root ``index.md`` holds the toctree);
* Sphinx one changed (for reference): ``sphinx-build -b singlehtml`` after the same change.

Prints the times and the ratios against Sphinx cold (targets: cold ≤ 0.5×, one changed ≤ 0.1×).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import side_by_side  # noqa: E402
from runner import BIN, CacheHome, append_line, machine, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="generate the corpus here and keep it")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="mdmark-bench-"))
    corpus, mine, theirs = side_by_side(base, args.docs)
    changed = corpus.sample(1)[0].rel
    changed_mine, changed_theirs = mine / changed, theirs / changed
    caches = CacheHome(base)
    mdmark = [str(BIN / "mdmark"), "build"]
    sphinx = [str(BIN / "sphinx-build"), "-q", "-b", "singlehtml", ".", "_build"]

    times: dict[str, list[float]] = {"mdmark cold": [], "mdmark one changed": [], "sphinx cold": [], "sphinx one changed": []}
    print(f"corpus: {args.docs} documents in {base} ({machine()})", flush=True)
    for i in range(args.runs):
        caches.cold(mine)
        times["mdmark cold"].append(run(mdmark, mine, caches.env()).wall)
        append_line(changed_mine, i)
        times["mdmark one changed"].append(run(mdmark, mine, caches.env()).wall)
        shutil.rmtree(theirs / "_build", ignore_errors=True)
        times["sphinx cold"].append(run(sphinx[:1] + ["-E"] + sphinx[1:], theirs).wall)
        append_line(changed_theirs, i)
        times["sphinx one changed"].append(run(sphinx, theirs).wall)
        print(f"run {i + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()), flush=True)

    best = {k: min(v) for k, v in times.items()}
    sphinx_cold = best["sphinx cold"]
    print()
    print(f"{'':24}{'best':>9}{'× sphinx -E':>14}")
    for name, value in best.items():
        print(f"{name:24}{value:8.2f}s{value / sphinx_cold:13.2f}×")
    print()
    print(f"cold ratio {best['mdmark cold'] / sphinx_cold:.2f}× (target ≤ 0.5×); "
          f"one changed {best['mdmark one changed'] / sphinx_cold:.3f}× (target ≤ 0.1×)")
    size = (mine / "dist" / "kb.html").stat().st_size
    print(f"page size {size / 1e6:.1f} MB")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
