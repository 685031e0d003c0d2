"""Benchmark (not a test): two versions of mdmark, A and B, on the cold path, alternated, against Sphinx.

    .venv/bin/python bench/ab_cold.py --a REV --b REV --project DIR [--project DIR ...] [--runs 5] [--command check --command build]
    .venv/bin/python bench/ab_cold.py --a main --corpus 1200 --runs 1 --command check --command build --no-edit

Each of ``REV`` is a git revision of this repository (``WORKTREE`` for the files as they are now):
it is laid out as an installed package (``mdmark/`` with ``templates/`` and ``sphinx_ext/`` under
it) in a temporary folder and run with ``PYTHONPATH`` pointing there, in this environment. Per
project, on a copy, trusted as ``bench_project.py`` trusts it, and per round, A then B then B then A
(so neither always runs first on a machine whose load moves): ``mdmark check`` (or ``--command
build``, or both) with no cache, and again after one document is edited (each version's own cache, warmed
first; ``--no-edit`` leaves that out). Each round also times Sphinx on the same copy: ``sphinx-build
-E -b html`` for a real project (issue 38's small-project reference), and for ``--corpus N`` (the
knowledge base of ``corpus.py``, Sphinx on its copy beside a minimal conf.py) ``sphinx-build -E -b
singlehtml`` and ``sphinx-build -E -j 2 -b html``, the faster of them the reference (best of the
rounds). Prints the median wall and CPU seconds of each, B/A, each ÷ the reference (wall, and CPU
against Sphinx's CPU), and the load average at each round: the machine may be shared, so compare
figures of one run only.
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

from bench_project import prepare_copy
from corpus import generate, sphinx_copy
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


def _sphinx(flags: list[str], docs: str, out: Path, where: Path, env: dict[str, str], limit: float | None) -> Timing | None:
    """``sphinx-build`` timed as :func:`runner.run` times a command; None when it passed ``limit`` seconds."""
    import resource
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen([str(BIN / "sphinx-build"), *flags, docs, str(out)], cwd=where, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        code = process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)  # the build and its forked workers
        process.wait()
        return None
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        sys.exit(f"sphinx-build {' '.join(flags)} failed ({code})")
    return Timing(wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code, "", "")


def _best(old: Timing | None, new: Timing) -> Timing:
    return new if old is None or new.wall < old.wall else old


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="revision A (a git revision, or WORKTREE)")
    parser.add_argument("--b", default="WORKTREE", help="revision B (default: the work tree)")
    parser.add_argument("--project", type=Path, action="append", default=[], help="a real project (a copy is used)")
    parser.add_argument("--corpus", type=int, action="append", default=[], help="the generated knowledge base of N documents")
    parser.add_argument("--runs", type=int, default=5, help="rounds (each runs A, B, B, A)")
    parser.add_argument("--command", choices=("check", "build"), action="append", help="the commands timed (default: check)")
    parser.add_argument("--no-edit", action="store_true", help="time the cold runs only (not one edited)")
    args = parser.parse_args()
    commands: list[str] = args.command or ["check"]
    base = Path(tempfile.mkdtemp(prefix="mdmark-ab-")).resolve()
    try:
        sites = {"A": lay_out(args.a, base / "A"), "B": lay_out(args.b, base / "B")}
        print(f"A = {args.a}, B = {args.b}; {machine()}", flush=True)
        targets: list[tuple[Path, str, Path | None]] = [(*prepare_copy(source, base), None) for source in args.project]
        for n in args.corpus:
            mine = base / f"corpus-{n}"
            generate(mine, n)
            sphinx_copy(mine, base / f"corpus-{n}-sphinx")
            targets.append((mine, "", base / f"corpus-{n}-sphinx"))
        for copy, docs, theirs in targets:
            caches = {v: CacheHome(base) for v in sites}
            envs = {
                v: {**caches[v].env(), "PYTHONPATH": str(site), "XDG_CONFIG_HOME": str(base / "config")}
                for v, site in sites.items()
            }
            plain = {**os.environ, "XDG_CONFIG_HOME": str(base / "config")}
            run([str(BIN / "mdmark"), "trust"], copy, envs["A"], ok=(0, 1, 2))  # a corpus has no conf.py to trust
            markdown = sorted((copy / docs).rglob("*.md"))
            out = base / "sphinx-out"
            # Sphinx's references: on a real project its own build; on the corpus, the faster of two.
            builders = {"-E -b html": ["-E", "-q", "-b", "html"]} if theirs is None else {
                "-E -b singlehtml": ["-E", "-q", "-b", "singlehtml"], "-E -j 2 -b html": ["-E", "-q", "-j", "2", "-b", "html"]}
            sphinx: dict[str, Timing | None] = dict.fromkeys(builders)
            hung: set[str] = set()
            cold: dict[tuple[str, str], list[Timing]] = {(c, v): [] for c in commands for v in sites}
            edited: dict[tuple[str, str], list[Timing]] = {(c, v): [] for c in commands for v in sites}
            for i in range(args.runs):
                for name, flags in builders.items():
                    shutil.rmtree(out, ignore_errors=True)
                    # Sphinx 9.0's -j 2 was seen to hang here (its parent waiting on a child that
                    # writes to it): a build that takes thrice the first one's time is left out.
                    done = [t for t in sphinx.values() if t is not None]
                    limit = 3 * min(t.wall for t in done) + 60 if done else None
                    timing = _sphinx(flags, docs or ".", out, theirs or copy, plain, limit)
                    if timing is None:
                        print(f"  sphinx-build {name} did not end in {limit:.0f} s: left out", flush=True)
                        hung.add(name)
                    else:
                        sphinx[name] = _best(sphinx[name], timing)
                for command in commands:
                    answers = set()
                    for v in ("A", "B", "B", "A"):
                        caches[v].cold(copy)
                        shutil.rmtree(copy / "dist", ignore_errors=True)
                        cold[command, v].append(run([str(BIN / "mdmark"), command], copy, envs[v], ok=(0, 1)))
                        answers.add(cold[command, v][-1].stdout if command == "check" else "")
                    if len(answers) != 1:
                        sys.exit(f"{copy.name}: A and B do not report the same drifts: not comparing them")
                    if args.no_edit:
                        continue
                    for v in ("A", "B", "B", "A"):
                        run([str(BIN / "mdmark"), command], copy, envs[v], ok=(0, 1))  # this version's cache holds the project as it is
                        append_line(markdown[(i * 7) % len(markdown)], i)
                        edited[command, v].append(run([str(BIN / "mdmark"), command], copy, envs[v], ok=(0, 1)))
                print(f"  round {i + 1}: load {os.getloadavg()[0]:.2f}", flush=True)
            reference = min((t for t in sphinx.values() if t is not None), key=lambda t: t.wall)
            print(f"{copy.name} ({len(markdown)} documents), median of {2 * args.runs} runs each; {machine()}")
            for name, best in sphinx.items():
                if best is not None:
                    print(f"  sphinx-build {name:<16} {best.wall:6.2f} s (CPU {best.cpu:5.2f} s), best of {args.runs}"
                          + (" (hung in another round)" if name in hung else ""))
            for command in commands:
                for label, timings in ((f"{command}, no cache", cold), (f"{command}, one edited", edited)):
                    a, b = timings[command, "A"], timings[command, "B"]
                    if not a:
                        continue
                    aw, bw = median([t.wall for t in a]), median([t.wall for t in b])
                    ac, bc = median([t.cpu for t in a]), median([t.cpu for t in b])
                    print(f"  {label:<18} A {aw:6.2f} s (CPU {ac:5.2f} s) = {aw / reference.wall:.3f}× (CPU {ac / reference.cpu:.3f}×)   "
                          f"B {bw:6.2f} s (CPU {bc:5.2f} s) = {bw / reference.wall:.3f}× (CPU {bc / reference.cpu:.3f}×)   "
                          f"B/A wall {bw / aw:.2f}, CPU {bc / ac:.2f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
