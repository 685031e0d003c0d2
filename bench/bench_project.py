"""Benchmark (not a test): mdmark at real-project size, side by side with Sphinx (issue 14).

    .venv/bin/python bench/bench_project.py [--docs 1200] [--warm-runs 5] [--mcp-runs 10]
                                            [--keep DIR] [--json OUT]

Generates the knowledge base of :mod:`corpus` (``--docs`` documents, default 1,200 as the real
project), copies it beside a minimal conf.py, and times in one run:

* Sphinx: ``sphinx-build -E -b singlehtml`` and ``sphinx-build -E -j 2 -b html`` on the copy, the
  faster of them the ratios' reference (issue 38);
* cold build: ``mdmark build`` with no parse cache;
* cold check: ``mdmark check`` with no parse cache (``.mdmark_cache/`` removed and
  ``XDG_CACHE_HOME`` pointed at an empty folder, wherever the cache layer keeps it);
* warm check: ``mdmark check`` again, nothing changed (median of ``--warm-runs``);
* one changed: one more line appended to one document, then ``mdmark check`` (median over
  ``--warm-runs`` different documents);
* through a running ``mdmark serve`` (the CLI's cache left in place, as a user's would be): the
  first ``check``, then p50 of ``check`` (nothing changed), ``list_tags`` and ``find_docs`` with
  ``related_to`` (a different document each call), each ``--mcp-runs`` times; and the server's
  RSS (current and peak) once the project is loaded.

Prints every figure with wall and CPU seconds, the ratios the issue's table asks for, its goals,
and the machine's core count. Every check must report exactly the corpus's deliberate broken
references, so a wrong answer is never timed as a fast one.

    .venv/bin/python bench/bench_project.py --project DIR [--project DIR ...]
    .venv/bin/python bench/bench_project.py --real

``--project`` times a real project instead (a folder with ``docs/conf.py``, ``docs/source/conf.py``
or ``conf.py`` at its top; ``bench/real_projects.py`` fetches and prepares two of 63 and 81
documents), each on a copy in a temporary folder (nothing is written where it lies): its conf.py and its
extensions, trusted as a user would (``mdmark trust``, under a private ``XDG_CONFIG_HOME``), with a
config naming it when the project has none. Per project: ``sphinx-build -E -b html`` and
cold ``mdmark check`` and ``mdmark build`` alternated ``--cold-runs`` times (best of each), then
``mdmark check`` with nothing changed and after one document is edited, and the two cold ratios
against Sphinx with issue 38's goals (≤ 0.30× check, ≤ 0.35× build). ``--real`` takes the shared
corpora (``../shared/corpora/*``) and the vendored projects of ``tests/projects/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcp import start_server
from corpus import Corpus, generate, sphinx_copy
from runner import BIN, CacheHome, Timing, append_line, machine, median, percentile, run


@dataclass
class Figures:
    """Every measurement of one run, in seconds (MCP figures in milliseconds, RSS in MB)."""

    docs: int
    markdown_mb: float
    images: int
    cores: int
    machine: str
    date: str
    #: The faster of the Sphinx builds (the ratios' reference), and each of them.
    sphinx: Timing | None = None
    sphinx_runs: dict[str, Timing] = field(default_factory=dict)
    cold_check: Timing | None = None
    cold_build: Timing | None = None
    warm_check: list[float] = field(default_factory=list)
    one_changed: list[float] = field(default_factory=list)
    mcp: dict[str, list[float]] = field(default_factory=dict)
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0

    def as_json(self) -> dict[str, Any]:
        def timing(t: Timing | None) -> dict[str, float] | None:
            return None if t is None else {"wall_s": round(t.wall, 3), "cpu_s": round(t.cpu, 3)}

        return {
            "date": self.date, "docs": self.docs, "markdown_mb": round(self.markdown_mb, 2), "images": self.images,
            "cores": self.cores, "machine": self.machine,
            "sphinx_cold": timing(self.sphinx), "sphinx_each": {k: timing(t) for k, t in self.sphinx_runs.items()},
            "cold_check": timing(self.cold_check),
            "cold_build": timing(self.cold_build),
            "warm_check_s": [round(v, 3) for v in self.warm_check],
            "one_changed_check_s": [round(v, 3) for v in self.one_changed],
            "mcp_ms": {k: [round(v, 1) for v in vs] for k, vs in self.mcp.items()},
            "server_rss_mb": round(self.rss_mb, 1), "server_peak_rss_mb": round(self.peak_rss_mb, 1),
        }


def _drifts(timing: Timing) -> int:
    return sum(1 for line in timing.stdout.splitlines() if line.strip())


def _expect(what: str, got: int, corpus: Corpus) -> None:
    if got != corpus.broken:
        sys.exit(f"{what} reported {got} drifts, the corpus has {corpus.broken}: not timing a wrong answer")


def _rss(pid: int) -> tuple[float, float]:
    """VmRSS and VmHWM (peak) of a process, in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def say(text: str) -> None:
    print(text, flush=True)


def _best(old: Timing | None, new: Timing) -> Timing:
    return new if old is None or new.wall < old.wall else old


def cli_figures(
    fig: Figures, corpus: Corpus, mine: Path, theirs: Path, caches: CacheHome, cold_runs: int, warm_runs: int
) -> None:
    check = [str(BIN / "mdmark"), "check"]

    # Issue 38's reference: the faster of one process building the single page and two building HTML.
    sphinx_cmds = {
        "-E -b singlehtml": [str(BIN / "sphinx-build"), "-E", "-q", "-b", "singlehtml", ".", "_build"],
        "-E -j 2 -b html": [str(BIN / "sphinx-build"), "-E", "-q", "-j", "2", "-b", "html", ".", "_build"],
    }
    build_caches = CacheHome(caches.base)
    # The machine is shared: alternate the cold runs and keep each one's best.
    for i in range(cold_runs):
        for name, sphinx_cmd in sphinx_cmds.items():
            shutil.rmtree(theirs / "_build", ignore_errors=True)
            fig.sphinx_runs[name] = _best(fig.sphinx_runs.get(name), run(sphinx_cmd, theirs))
            timing = fig.sphinx_runs[name]
            say(f"sphinx-build {name:<18} {timing.wall:7.2f} s  (CPU {timing.cpu:.1f} s)  best of {i + 1}")
        fig.sphinx = min(fig.sphinx_runs.values(), key=lambda t: t.wall)

        build_caches.cold(mine)
        shutil.rmtree(mine / "dist", ignore_errors=True)
        fig.cold_build = _best(fig.cold_build, run([str(BIN / "mdmark"), "build"], mine, build_caches.env()))
        say(f"mdmark build, no cache          {fig.cold_build.wall:7.2f} s  (CPU {fig.cold_build.cpu:.1f} s; "
            f"page {(mine / 'dist' / 'kb.html').stat().st_size / 1e6:.1f} MB)  best of {i + 1}")

        caches.cold(mine)  # the checks (and then the server) start from no cache at all
        timing = run(check, mine, caches.env(), ok=(0, 1))
        _expect("cold check", _drifts(timing), corpus)
        fig.cold_check = _best(fig.cold_check, timing)
        say(f"mdmark check, no cache          {fig.cold_check.wall:7.2f} s  (CPU {fig.cold_check.cpu:.1f} s; "
            f"cache: {caches.where(mine)})  best of {i + 1}")

    for _ in range(warm_runs):
        timing = run(check, mine, caches.env(), ok=(0, 1))
        _expect("warm check", _drifts(timing), corpus)
        fig.warm_check.append(timing.wall)
    say(f"mdmark check, nothing changed   {median(fig.warm_check):7.2f} s  (median of {warm_runs}: "
        + ", ".join(f"{v:.2f}" for v in fig.warm_check) + ")")

    for i, doc in enumerate(corpus.sample(warm_runs)):
        append_line(mine / doc.rel, i)
        timing = run(check, mine, caches.env(), ok=(0, 1))
        _expect("check after an edit", _drifts(timing), corpus)
        fig.one_changed.append(timing.wall)
    say(f"mdmark check, one doc edited    {median(fig.one_changed):7.2f} s  (median of {warm_runs}: "
        + ", ".join(f"{v:.2f}" for v in fig.one_changed) + ")")



async def _mcp_calls(fig: Figures, port: int, corpus: Corpus, runs: int) -> None:
    from mcp import Client

    project = str(corpus.root)
    async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=1800) as client:

        async def call(name: str, **arguments: Any) -> Any:
            result = await client.call_tool(name, {**arguments, "project_dir": project})
            if result.is_error:
                sys.exit(f"{name} failed: {result.content}")
            return result

        async def timed(label: str, make: Callable[[int], Awaitable[Any]], count: int) -> None:
            samples = []
            for i in range(count):
                start = time.perf_counter()
                await make(i)
                samples.append((time.perf_counter() - start) * 1000)
            fig.mcp[label] = samples

        start = time.perf_counter()
        first = await call("check")
        fig.mcp["check (first call)"] = [(time.perf_counter() - start) * 1000]
        issues = json.loads(first.content[0].text)["issues"]
        _expect("MCP check", len(issues), corpus)
        related = corpus.sample(runs + 1)
        await call("find_docs", related_to=related[-1].id)  # the first related_to may build tables
        await call("list_tags")
        await timed("check (warm)", lambda i: call("check"), runs)
        await timed("list_tags", lambda i: call("list_tags"), runs)
        await timed("find_docs related_to", lambda i: call("find_docs", related_to=related[i].id), runs)


def mcp_figures(fig: Figures, corpus: Corpus, base: Path, caches: CacheHome, runs: int) -> None:
    import anyio

    folder = base / "serve"
    folder.mkdir(exist_ok=True)
    proc, port = start_server(folder, caches.env())
    try:
        anyio.run(_mcp_calls, fig, port, corpus, runs)
        fig.rss_mb, fig.peak_rss_mb = _rss(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    for label, samples in fig.mcp.items():
        extra = f", p95 {percentile(samples, 0.95):,.0f}" if len(samples) > 1 else ""
        print(f"MCP {label:<28}{median(samples):9,.1f} ms  (p50 of {len(samples)}{extra})", flush=True)
    print(f"server RSS after loading        {fig.rss_mb:7.0f} MB  (peak {fig.peak_rss_mb:.0f} MB)", flush=True)


def report(fig: Figures) -> None:
    assert fig.sphinx and fig.cold_check and fig.cold_build
    sphinx = fig.sphinx.wall
    warm_mcp = median(fig.mcp["check (warm)"]) / 1000
    related, tags = median(fig.mcp["find_docs related_to"]), median(fig.mcp["list_tags"])
    # Issue 38's goals (at 1,200 documents, against the faster Sphinx build).
    rows = [
        ("mdmark check, no cache", (f"{fig.cold_check.wall:.1f} s = {fig.cold_check.wall / sphinx:.3f}× Sphinx "
         f"(CPU {fig.cold_check.cpu:.1f} s = {fig.cold_check.cpu / fig.sphinx.cpu:.3f}×)"),
         "≤ 0.11×", fig.cold_check.wall / sphinx <= 0.11),
        ("mdmark build, no cache", (f"{fig.cold_build.wall:.1f} s = {fig.cold_build.wall / sphinx:.3f}× Sphinx "
         f"(CPU {fig.cold_build.cpu:.1f} s = {fig.cold_build.cpu / fig.sphinx.cpu:.3f}×)"),
         "≤ 0.17×", fig.cold_build.wall / sphinx <= 0.17),
        ("mdmark check, nothing changed (CLI)", f"{median(fig.warm_check):.2f} s", "≤ 0.3 s", median(fig.warm_check) <= 0.3),
        ("MCP check, server warm", f"{warm_mcp * 1000:.0f} ms p50", "≤ 30 ms", warm_mcp <= 0.030),
        ("MCP find_docs related_to, warm", f"{related:,.0f} ms p50 = {related / tags:.1f}× list_tags ({tags:,.0f} ms)",
         "≤ 30 ms", related <= 30),
        ("one document edited, then check (CLI)", f"{median(fig.one_changed):.2f} s", "—", True),
        ("server RSS with the project loaded", f"{fig.rss_mb:.0f} MB (peak {fig.peak_rss_mb:.0f} MB)", "≤ 400 MB",
         fig.peak_rss_mb <= 400),
    ]
    print()
    print(f"{fig.docs} documents ({fig.markdown_mb:.2f} MB of Markdown, {fig.images} images); {fig.machine}; {fig.date}")
    for name, timing in fig.sphinx_runs.items():
        print(f"Sphinx {name}: {timing.wall:.1f} s wall, {timing.cpu:.1f} s CPU" + (" (the reference)" if timing is fig.sphinx else ""))
    print()
    print("| measure | mdmark | goal | met |")
    print("|---|---|---|---|")
    for name, value, goal, met in rows:
        print(f"| {name} | {value} | {goal} | {'yes' if met else 'no'} |")


REPO = HERE.parent
#: The config a real project gets when it has none (as the differential test writes it).
PROJECT_CONFIG = """\
docs:
  include: ["{docs}**/*.md"]
build:
  title: bench
  include: ["{docs}**/*.md"]
  out: dist/bench.html
sphinx:
  conf: {docs}conf.py
"""


#: Where a project's conf.py may be (the first found), relative to the project.
CONF_FOLDERS = ("docs/", "docs/source/", "")


def real_projects() -> list[Path]:
    """The shared corpora and the vendored projects of the differential test."""
    shared = REPO.parent / "shared" / "corpora"
    found = sorted(p for p in shared.iterdir() if (p / "docs" / "conf.py").is_file()) if shared.is_dir() else []
    return found + sorted(p for p in (REPO / "tests" / "projects").iterdir() if (p / "docs" / "conf.py").is_file())


@dataclass
class ProjectFigures:
    name: str
    docs: int
    sphinx: Timing | None = None
    cold_check: Timing | None = None
    cold_build: Timing | None = None
    warm_check: list[float] = field(default_factory=list)
    one_changed: list[float] = field(default_factory=list)


def prepare_copy(source: Path, base: Path) -> tuple[Path, str]:
    """A writable copy of a real project in ``base`` and the folder of its conf.py (relative, "" at
    its top), with a config naming it when the project has none."""
    import stat

    copy = base / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".mdmark_cache", "dist", "_build", ".git"))
    for folder, _dirs, files in os.walk(copy):  # a read-only source stays writable in the copy
        os.chmod(folder, 0o755)
        for file in files:
            path = Path(folder) / file
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    docs = next((d for d in CONF_FOLDERS if (copy / d / "conf.py").is_file()), "")
    config = copy / "mdmark.config.yaml"
    if not config.is_file():
        config.write_text(PROJECT_CONFIG.format(docs=docs), encoding="utf-8")
    return copy, docs


def project_figures(source: Path, base: Path, cold_runs: int, warm_runs: int) -> ProjectFigures:
    """Cold and warm figures of one real project, on a copy (see the module's docstring)."""
    copy, docs = prepare_copy(source, base)
    config = copy / "mdmark.config.yaml"
    caches = CacheHome(base)
    env = {**caches.env(), "XDG_CONFIG_HOME": str(base / f"{source.name}-config")}
    # sphinx-build runs conf.py; mdmark runs it too only once the user trusts it.
    run([str(BIN / "mdmark"), "trust", "--config", str(config)], copy, env)
    srcdir = copy / docs if docs else copy
    documents = [p for p in srcdir.rglob("*") if p.suffix in (".md", ".rst") and "_build" not in p.parts]
    fig = ProjectFigures(source.name, len(documents))
    # Issue 38's small-project reference: Sphinx's own HTML build (``-j 2`` does not help it at this size).
    sphinx_cmd = [str(BIN / "sphinx-build"), "-E", "-q", "-b", "html", docs or ".", str(base / f"{source.name}-sphinx")]
    check, build = [str(BIN / "mdmark"), "check"], [str(BIN / "mdmark"), "build"]
    for _ in range(cold_runs):
        shutil.rmtree(base / f"{source.name}-sphinx", ignore_errors=True)
        fig.sphinx = _best(fig.sphinx, run(sphinx_cmd, copy, env))
        caches.cold(copy)
        shutil.rmtree(copy / "dist", ignore_errors=True)
        fig.cold_build = _best(fig.cold_build, run(build, copy, env))
        caches.cold(copy)
        fig.cold_check = _best(fig.cold_check, run(check, copy, env, ok=(0, 1)))
    for _ in range(warm_runs):
        fig.warm_check.append(run(check, copy, env, ok=(0, 1)).wall)
    markdown = sorted(p for p in documents if p.suffix == ".md")
    for i in range(warm_runs):
        doc = markdown[(i * 7) % len(markdown)]
        append_line(doc, i)
        fig.one_changed.append(run(check, copy, env, ok=(0, 1)).wall)
    assert fig.sphinx and fig.cold_check and fig.cold_build
    s = fig.sphinx
    say(f"{fig.name} ({fig.docs} documents): sphinx-build {s.wall:.2f} s (CPU {s.cpu:.1f} s); "
        f"check {fig.cold_check.wall:.2f} s = {fig.cold_check.wall / s.wall:.2f}× (CPU {fig.cold_check.cpu:.1f} s); "
        f"build {fig.cold_build.wall:.2f} s = {fig.cold_build.wall / s.wall:.2f}× (CPU {fig.cold_build.cpu:.1f} s); "
        f"warm check {median(fig.warm_check):.2f} s; one edited {median(fig.one_changed):.2f} s")
    return fig


def project_report(figs: list[ProjectFigures]) -> None:
    print()
    print(f"{machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print()
    # CPU too: on a shared machine the wall ratio moves with the load, the CPU one much less.
    print("| project | docs | sphinx-build -E -b html | check cold ÷ Sphinx (≤ 0.30×) | build cold ÷ Sphinx (≤ 0.35×) "
          "| warm check (CLI) | one edited (CLI) |")
    print("|---|---|---|---|---|---|---|")
    for f in figs:
        assert f.sphinx and f.cold_check and f.cold_build
        s, c = f.sphinx.wall, f.sphinx.cpu
        print(f"| {f.name} | {f.docs} | {s:.2f} s (CPU {c:.1f} s) "
              f"| {f.cold_check.wall:.2f} s = {f.cold_check.wall / s:.2f}× (CPU {f.cold_check.cpu / c:.2f}×) "
              f"| {f.cold_build.wall:.2f} s = {f.cold_build.wall / s:.2f}× (CPU {f.cold_build.cpu / c:.2f}×) "
              f"| {median(f.warm_check):.2f} s | {median(f.one_changed):.2f} s |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, action="append", default=[], help="time this real project (a copy of it)")
    parser.add_argument("--real", action="store_true", help="time the shared corpora and tests/projects")
    parser.add_argument("--docs", type=int, default=1200, help="documents in the corpus (default 1200)")
    parser.add_argument("--cold-runs", type=int, default=2, help="rounds of Sphinx, cold build, cold check (best)")
    parser.add_argument("--warm-runs", type=int, default=5, help="warm and one-changed CLI checks (median)")
    parser.add_argument("--mcp-runs", type=int, default=10, help="calls per MCP figure (p50)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args()

    projects = [p.resolve() for p in args.project] + (real_projects() if args.real else [])
    if projects:
        base = Path(tempfile.mkdtemp(prefix="mdmark-bench-real-")).resolve()
        try:
            print(f"machine: {machine()}", flush=True)
            project_report([project_figures(p, base, args.cold_runs, args.warm_runs) for p in projects])
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return 0

    base = (args.keep or Path(tempfile.mkdtemp(prefix="mdmark-bench-project-"))).resolve()
    mine, theirs = base / "mdmark", base / "sphinx"
    shutil.rmtree(mine, ignore_errors=True)
    corpus = generate(mine, args.docs)
    sphinx_copy(mine, theirs)
    caches = CacheHome(base)
    fig = Figures(
        docs=len(corpus.docs), markdown_mb=corpus.bytes / 1e6, images=corpus.images, cores=os.cpu_count() or 1,
        machine=machine(), date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )
    print(f"corpus: {fig.docs} documents, {fig.markdown_mb:.2f} MB of Markdown, {corpus.images} images, "
          f"{corpus.broken} deliberate broken references, in {base}")
    print(f"machine: {fig.machine}", flush=True)
    try:
        cli_figures(fig, corpus, mine, theirs, caches, args.cold_runs, args.warm_runs)
        mcp_figures(fig, corpus, base, caches, args.mcp_runs)
        report(fig)
        if args.json:
            args.json.write_text(json.dumps(fig.as_json(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
