"""Profile (not a test): where the warm answers spend their time, with cProfile.

    .venv/bin/python bench/profile_warm.py [--docs 1200] [--project DIR] [--out DIR] [--top 30]

On the knowledge base of :mod:`corpus` (generated, or an existing ``--project`` folder holding
``mdmark.config.yaml``), with a private ``XDG_CACHE_HOME``:

1. ``cli``: ``mdmark check`` once to fill the parse cache, then ``python -m cProfile -m mdmark
   check`` — the warm CLI run exactly as a user starts it, imports included;
2. ``edit``: the same after appending a line to one document;
3. ``mcp``: in this process, :func:`mdmark.tools.registry.call_tool` ``check`` once (the server's
   first call) and then profiled a second time — the code a warm ``mdmark serve`` runs per call,
   without the HTTP transport (cProfile sees only the thread it runs in, and the server runs
   tool calls in worker threads);
   The same for ``find_docs`` with ``related_to``, and ``list_tags`` for comparison;
3b. ``mcpedit``: in this process, ``check`` and ``find_docs`` ``related_to`` each profiled over
   ``--edits`` calls, each right after one line is appended to the same document (as a writer
   saves an edit) — and, timed apart, that document's re-parse alone through the same worker
   pool, so what is the pool's and what is the answer's own work can be told apart;
4. ``build`` (not by default): ``mdmark build`` with every document's parse and fragment cached —
   the serial part of a build that the worker processes do not share;
5. ``render`` (not by default): ``--cold-docs`` documents parsed and rendered to HTML in this
   process with no cache, as each worker of a cold build does;
6. ``cold`` (not by default): ``--cold-docs`` documents parsed one after another in this process
   with no cache (the application created beforehand) — what each worker of a cold run pays per
   document.

Writes ``<out>/<name>.prof`` (for ``python -m pstats`` or snakeviz) and prints the top functions
by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import generate  # noqa: E402
from runner import CacheHome, append_line, machine, run  # noqa: E402


def show(name: str, prof: Path, top: int) -> None:
    for order in ("cumulative", "tottime"):
        out = io.StringIO()
        stats = pstats.Stats(str(prof), stream=out)
        stats.strip_dirs().sort_stats(order).print_stats(top)
        body = out.getvalue()
        # Keep the header line with the total and the table; drop pstats' preamble.
        lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith(("Ordered by", "List reduced"))]
        print(f"\n=== {name}: top {top} by {order} ===")
        print("\n".join(lines))


def profile_cli(name: str, project: Path, caches: CacheHome, out: Path, top: int) -> None:
    prof = out / f"{name}.prof"
    start = time.perf_counter()
    run([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "mdmark", "check"], project, caches.env(), ok=(0, 1))
    print(f"\n{name}: {time.perf_counter() - start:.2f} s under cProfile")
    show(name, prof, top)


def _per_document(name: str, project: Path, out: Path, top: int, count: int, each: Callable[[Path], object]) -> None:
    """Profile ``each`` over ``count`` documents, after one call that creates the Sphinx application."""
    files = sorted(p for p in project.rglob("*.md") if ".mdmark_cache" not in p.parts)[: count + 1]
    start = time.perf_counter()
    each(files[0])
    app = time.perf_counter() - start
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.runcall(lambda: [each(path) for path in files[1:]])
    took = time.perf_counter() - start
    prof = out / f"{name}.prof"
    profiler.dump_stats(str(prof))
    print(f"\n{name}: application {app:.2f} s, {len(files) - 1} documents {took:.2f} s under cProfile "
          f"({took / (len(files) - 1) * 1000:.1f} ms each)")
    show(name, prof, top)


def profile_cold(project: Path, out: Path, top: int, count: int, scratch: Path) -> None:
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.pipeline.tasks import run_here
    from mdmark.project.main import Project

    opened = Project.open(project)
    # What a worker of a cold check has: its own pipeline, writing the entries of this run's cache.
    scratch.mkdir(parents=True, exist_ok=True)
    pipeline = Pipeline(opened.root, opened.config.markdown, scratch / "cache", opened.config.sphinx_conf, scratch=scratch, runner=run_here)
    # A cold check keeps the trees (in the disk cache) but sends none back.
    _per_document("cold_parse", project, out, top, count, lambda path: pipeline.facts_many([path]))


def profile_render(project: Path, out: Path, top: int, count: int, scratch: Path) -> None:
    from mdmark.html import render
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.pipeline.tasks import run_here
    from mdmark.project.main import Project

    opened = Project.open(project)
    # What a worker of a cold build has: its own pipeline, with the cache folder of this run.
    scratch.mkdir(parents=True, exist_ok=True)
    pipeline = Pipeline(opened.root, opened.config.markdown, scratch / "cache", opened.config.sphinx_conf, scratch=scratch, runner=run_here)
    lang = opened.config.html.lang
    _per_document("cold_render", project, out, top, count, lambda path: render._render_task(pipeline, (str(path), lang)))


def profile_calls(project: Path, out: Path, top: int, related_to: str) -> None:
    from mdmark.tools.registry import call_tool

    def once(tool: str, **arguments: str) -> None:
        outcome = call_tool(tool, {**arguments, "project_dir": str(project)})
        if outcome.is_error:
            raise SystemExit(f"{tool} failed: {outcome.texts}")

    for name, tool, arguments in (
        ("mcp_check", "check", {}),
        ("mcp_related_to", "find_docs", {"related_to": related_to}),
        ("mcp_list_tags", "list_tags", {}),
    ):
        start = time.perf_counter()
        once(tool, **arguments)  # the first call: loads the project (and the disk cache) into this process
        first = time.perf_counter() - start
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.runcall(once, tool, **arguments)
        warm = time.perf_counter() - start
        prof = out / f"{name}.prof"
        profiler.dump_stats(str(prof))
        print(f"\n{name}: first call {first:.2f} s, warm call {warm:.3f} s under cProfile")
        show(name, prof, top)


def profile_edited(project: Path, out: Path, top: int, related_to: str, edited: Path, edits: int) -> None:
    from mdmark.tools.registry import call_tool

    def once(tool: str, **arguments: str) -> None:
        outcome = call_tool(tool, {**arguments, "project_dir": str(project)})
        if outcome.is_error:
            raise SystemExit(f"{tool} failed: {outcome.texts}")

    from bench_mcp import reparse_ms

    reparse = reparse_ms(project, edited, edits, first_line=20_000)
    print(f"\nre-parse of {edited.name} alone (the worker pool's part): "
          f"median {sorted(reparse)[len(reparse) // 2]:.1f} ms over {edits}")
    for name, tool, arguments in (
        ("mcp_check_edited", "check", {}),
        ("mcp_related_to_edited", "find_docs", {"related_to": related_to}),
    ):
        once(tool, **arguments)
        profiler = cProfile.Profile()
        took = []
        for n in range(edits):
            append_line(edited, 30_000 + n)
            start = time.perf_counter()
            profiler.runcall(once, tool, **arguments)
            took.append((time.perf_counter() - start) * 1000)
        prof = out / f"{name}.prof"
        profiler.dump_stats(str(prof))
        print(f"\n{name}: {edits} calls after one edit each, median {sorted(took)[len(took) // 2]:.0f} ms under cProfile")
        show(name, prof, top)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1200)
    parser.add_argument("--project", type=Path, help="profile this generated project instead of generating one")
    parser.add_argument("--out", type=Path, help="write the .prof files here (default: a temporary folder)")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--only", default="cli,edit,mcp", help="which: cli, edit, mcp, mcpedit, build, cold, render (comma-separated)")
    parser.add_argument("--edits", type=int, default=10, help="calls the mcpedit profile makes, one edit before each")
    parser.add_argument("--cold-docs", type=int, default=150, help="documents the cold profile parses")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="mdmark-profile-"))
    try:
        if args.project:
            project = args.project.resolve()
        else:
            project = base / "project"
            generate(project, args.docs)
        out = (args.out or base / "profiles").resolve()
        out.mkdir(parents=True, exist_ok=True)
        caches = CacheHome(base)
        os.environ["XDG_CACHE_HOME"] = str(caches.folder)  # for the in-process calls too
        print(f"project {project}; {machine()}", flush=True)
        only = set(args.only.split(","))
        if only - {"cold", "render"}:  # the cold profiles start from no cache
            start = time.perf_counter()
            run([sys.executable, "-m", "mdmark", "check"], project, caches.env(), ok=(0, 1))
            print(f"filling the cache: {time.perf_counter() - start:.1f} s ({caches.where(project)})", flush=True)
        if "cli" in only:
            profile_cli("cli_check", project, caches, out, args.top)
        if "edit" in only:
            import yaml

            index = yaml.safe_load((project / "index.yaml").read_text(encoding="utf-8"))
            edited = index["docs"][len(index["docs"]) // 2]["path"]
            append_line(project / edited, int(time.time()))
            profile_cli("cli_check_one_edited", project, caches, out, args.top)
        if "mcp" in only:
            import yaml

            index = yaml.safe_load((project / "index.yaml").read_text(encoding="utf-8"))
            profile_calls(project, out, args.top, index["docs"][len(index["docs"]) // 3]["id"])
        if "mcpedit" in only:
            import yaml

            index = yaml.safe_load((project / "index.yaml").read_text(encoding="utf-8"))
            docs = index["docs"]
            profile_edited(project, out, args.top, docs[len(docs) // 3]["id"], project / docs[len(docs) // 2]["path"], args.edits)
        if "build" in only:
            run([sys.executable, "-m", "mdmark", "build"], project, caches.env())  # fills the fragment cache
            prof = out / "build_warm.prof"
            start = time.perf_counter()
            run([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "mdmark", "build"], project, caches.env())
            print(f"\nbuild_warm: {time.perf_counter() - start:.2f} s under cProfile")
            show("build_warm", prof, args.top)
        if "cold" in only:
            profile_cold(project, out, args.top, args.cold_docs, base / "cold-cache")
        if "render" in only:
            profile_render(project, out, args.top, args.cold_docs, base / "render-cache")
        print(f"\nprofiles in {out}")
    finally:
        if args.out is None:
            print("(temporary: pass --out to keep them)")
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
