"""A/B (not a test): the daily path of two mdmark checkouts, alternated in one run.

    .venv/bin/python bench/ab_edit.py A=/path/to/checkout B=/path/to/other [--docs 1200] [--runs 3]

Each checkout gets its own copy of the generated knowledge base (:mod:`corpus`) and its own
``XDG_CACHE_HOME``, filled by one cold check and one cold build; then, per run and alternating
the checkouts, the same document of each copy gets one line appended (:func:`runner.append_line`)
before ``mdmark check``, then ``mdmark check`` again (nothing changed), then another line before
``mdmark build`` and ``mdmark build`` again. Each checkout runs as ``python -m mdmark`` with its
folder first on ``PYTHONPATH`` (this interpreter's packages otherwise). Prints wall and CPU (the
command and the processes it waited for) with the load average before each pair.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate  # noqa: E402
from runner import CacheHome, Timing, append_line, machine, run  # noqa: E402

STEPS = (("check", True), ("check", False), ("build", True), ("build", False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", help="NAME=FOLDER of an mdmark checkout")
    parser.add_argument("--docs", type=int, default=1200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--doc", default="auth/design-001.md", help="the document edited")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="mdmark-ab-edit-"))
    sides: list[tuple[str, Path, dict[str, str]]] = []
    for item in args.checkouts:
        name, _, folder = item.partition("=")
        project = base / name / "kb"
        generate(project, args.docs)
        home = CacheHome(base / name)
        env = {**home.env(), "PYTHONPATH": str(Path(folder).resolve())}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: compiled once, not at every run
        sides.append((name, project, env))
    for name, project, env in sides:
        for command in ("check", "build"):
            cold = run([sys.executable, "-m", "mdmark", command], project, env, ok=(0, 1))
            print(f"{name}: cold {command} {cold.wall:.2f} s wall / {cold.cpu:.2f} s CPU", flush=True)
    results: dict[tuple[str, int], list[Timing]] = {}
    for number in range(args.runs):
        for step, (command, edit) in enumerate(STEPS):
            print(f"run {number + 1}, {command} {'after one edit' if edit else 'nothing changed'}: {machine()}", flush=True)
            for name, project, env in sides:
                if edit:
                    append_line(project / args.doc, number * 10 + step)
                timing = run([sys.executable, "-m", "mdmark", command], project, env, ok=(0, 1))
                results.setdefault((name, step), []).append(timing)
                print(f"  {name}: {timing.wall:.3f} s wall / {timing.cpu:.3f} s CPU", flush=True)
    print(f"\nsummary ({machine()}):")
    for step, (command, edit) in enumerate(STEPS):
        what = f"{command} {'after one edit' if edit else 'nothing changed'}"
        cells = []
        for name, _project, _env in sides:
            timings = results[(name, step)]
            walls = sorted(t.wall for t in timings)
            cpus = sorted(t.cpu for t in timings)
            cells.append(f"{name} {walls[0]:.2f}–{walls[-1]:.2f} s / {cpus[0]:.2f}–{cpus[-1]:.2f} s")
        print(f"  {what}: " + "; ".join(cells))
    os.environ.get("KEEP_AB") or print(f"(copies in {base})")


if __name__ == "__main__":
    main()
