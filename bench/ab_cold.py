"""Benchmark (not a test): two versions of mdmark, A and B, on the cold path of real projects, alternated.

    .venv/bin/python bench/ab_cold.py --a REV --b REV --project DIR [--project DIR ...] [--runs 5] [--command build]

Each of ``REV`` is a git revision of this repository (``WORKTREE`` for the files as they are now):
it is laid out as an installed package (``mdmark/`` with ``templates/`` and ``sphinx_ext/`` under
it) in a temporary folder and run with ``PYTHONPATH`` pointing there, in this environment. Per
project, on a copy, trusted as ``bench_project.py`` trusts it, and per round, A then B then B then A
(so neither always runs first on a machine whose load moves): ``mdmark check`` (or ``--command
build``) with no cache, and again after one document is edited (each version's own cache, warmed first). Prints the
median wall and CPU seconds of each, with the machine's load average before and after: the machine
may be shared, so compare figures of one run only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_project import CONF_FOLDERS, PROJECT_CONFIG
from runner import BIN, CacheHome, Timing, append_line, machine, median, run

REPO = HERE.parent


def lay_out(rev: str, into: Path) -> Path:
    """``into/mdmark``: the package of ``rev`` (or of the work tree) as it installs."""
    tree = into / "tree"
    if rev == "WORKTREE":
        shutil.copytree(REPO, tree, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", "tests", "bench"))
    else:
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "mdmark", "templates", "sphinx_ext"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    package = into / "site" / "mdmark"
    shutil.copytree(tree / "mdmark", package)
    shutil.copytree(tree / "templates", package / "templates")
    shutil.copytree(tree / "sphinx_ext", package / "sphinx_ext")
    return into / "site"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="revision A (a git revision, or WORKTREE)")
    parser.add_argument("--b", default="WORKTREE", help="revision B (default: the work tree)")
    parser.add_argument("--project", type=Path, action="append", required=True, help="a real project (a copy is used)")
    parser.add_argument("--runs", type=int, default=5, help="rounds (each runs A, B, B, A)")
    parser.add_argument("--command", choices=("check", "build"), default="check", help="the command timed (default: check)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mdmark-ab-")).resolve()
    try:
        sites = {"A": lay_out(args.a, base / "A"), "B": lay_out(args.b, base / "B")}
        print(f"A = {args.a}, B = {args.b}; {machine()}", flush=True)
        for source in args.project:
            copy = base / source.name
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".mdmark_cache", "dist", "_build", ".git"))
            docs = next((d for d in CONF_FOLDERS if (copy / d / "conf.py").is_file()), "")
            config = copy / "mdmark.config.yaml"
            if not config.is_file():
                config.write_text(PROJECT_CONFIG.format(docs=docs), encoding="utf-8")
            caches = {v: CacheHome(base) for v in sites}
            envs = {
                v: {**caches[v].env(), "PYTHONPATH": str(site), "XDG_CONFIG_HOME": str(base / "config")}
                for v, site in sites.items()
            }
            run([str(BIN / "mdmark"), "trust"], copy, envs["A"])
            markdown = sorted((copy / docs).rglob("*.md"))
            cold: dict[str, list[Timing]] = {v: [] for v in sites}
            edited: dict[str, list[Timing]] = {v: [] for v in sites}
            check = [str(BIN / "mdmark"), args.command]
            for i in range(args.runs):
                answers = set()
                for v in ("A", "B", "B", "A"):
                    caches[v].cold(copy)
                    cold[v].append(run(check, copy, envs[v], ok=(0, 1)))
                    answers.add(cold[v][-1].stdout if args.command == "check" else "")
                if len(answers) != 1:
                    sys.exit(f"{source.name}: A and B do not report the same drifts: not comparing them")
                for v in ("A", "B", "B", "A"):
                    run(check, copy, envs[v], ok=(0, 1))  # this version's cache holds the project as it is
                    append_line(markdown[(i * 7) % len(markdown)], i)
                    edited[v].append(run(check, copy, envs[v], ok=(0, 1)))
                print(f"  round {i + 1}: load {os.getloadavg()[0]:.2f}", flush=True)
            print(f"{source.name} ({len(markdown)} documents), median of {2 * args.runs} runs each; {machine()}")
            for label, timings in ((f"{args.command}, no cache", cold), (f"{args.command}, one edited", edited)):
                a, b = timings["A"], timings["B"]
                aw, bw = median([t.wall for t in a]), median([t.wall for t in b])
                ac, bc = median([t.cpu for t in a]), median([t.cpu for t in b])
                print(f"  {label:<18} A {aw:6.2f} s (CPU {ac:5.2f} s)   B {bw:6.2f} s (CPU {bc:5.2f} s)   "
                      f"B/A wall {bw / aw:.2f}, CPU {bc / ac:.2f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
