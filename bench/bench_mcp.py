"""Benchmark (not a test): p50/p95 of find_docs and check through MCP against a no-op round trip.

    .venv/bin/python bench/bench_mcp.py [--docs 2000] [--runs 30] [--root DIR]

Generates a project of ``--docs`` documents (``bench/corpus.py``'s ``generate`` when it exists,
else the generator below), starts a real ``mdmark serve`` on a free port, warms it with one
``check`` (the cold figure is printed too), then times each call ``--runs`` times through the
SDK's Streamable HTTP client. The no-op round trips are ``tools/list`` and a ``tools/call`` that
stops at argument handling (no ``project_dir``): the transport, protocol and worker-thread cost
every tool call pays before mdmark does any work. (``ping`` is not served on the 2026-07-28
protocol the client negotiates.)

The last two rows time ``check`` and ``find_docs related_to`` right after one document (not the
``related_to`` one) had a line appended, as a writer saves an edit: each run edits, then times
the call alone. That includes the edited document's re-parse in a worker process, timed by itself
on the row before them (``pipeline.facts_many`` of that one document in this process, through
the same worker pool) so the part the pool takes is known. Each row prints its goal (issue 23,
at 1,200 documents) beside it.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from runner import append_line, machine, percentile  # noqa: E402

TAGS = [f"topic{n:02d}" for n in range(20)]


def generate_own(root: Path, n: int) -> None:
    """``n`` documents of ~2 KB with body links and alias mentions, an index and a config."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "mdmark.config.yaml").write_text(
        'index: index.yaml\ndocs:\n  include: ["docs/**/*.md"]\n'
        'build:\n  title: ベンチ\n  include: ["docs/**/*.md"]\n  out: dist/docs.html\n',
        encoding="utf-8",
    )
    lines = ["docs:"]
    for i in range(n):
        folder = root / "docs" / f"g{i // 100:02d}"
        folder.mkdir(exist_ok=True)
        prev, nxt = (i - 1) % n, (i + 1) % n
        body = [f"# 文書 {i:04d}", "", f"これは文書 {i:04d} の本文で、構成 {i} を説明する。", ""]
        for p in range(6):
            body.append(
                f"段落 {p}: 設計の判断と理由を書く。`code {p}` とリンク [次の文書](../g{nxt // 100:02d}/d{nxt:04d}.md) を含む。"
                f"別名 構成 {prev} にも触れる。" + "本文を埋める文。" * 12
            )
            body.append("")
        body += ["## 詳細", "", "- 項目 1", "- 項目 2", ""]
        (folder / f"d{i:04d}.md").write_text("\n".join(body), encoding="utf-8")
        lines += [
            f"  - id: d{i:04d}",
            f"    path: docs/g{i // 100:02d}/d{i:04d}.md",
            f"    title: 文書 {i:04d}",
            f"    aliases: [構成 {i}]",
            f"    description: 文書 {i} の概要",
            "    tags:",
            f"      - {{name: {TAGS[i % len(TAGS)]}, main: true}}",
            "      - 共通",
        ]
        if i:
            lines += ["    related:", f"      - {{to: d{prev:04d}, type: references, when: 前の文書を変えたとき}}"]
    lines.append("tags:")
    for tag in [*TAGS, "共通"]:
        lines += [f"  - name: {tag}", f"    description: {tag} の文書"]
    (root / "index.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate(root: Path, n: int) -> str:
    """Use engineer B's shared generator when it exists; say which one made the corpus."""
    try:
        from corpus import generate as shared
    except ImportError:
        generate_own(root, n)
        return "bench/bench_mcp.py"
    shared(root, n)
    return "bench/corpus.py"


def start_server(folder: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """``mdmark serve`` on a free port, started in ``folder`` (its stderr goes to ``folder/serve.err``)."""
    err = folder / "serve.err"
    with err.open("wb") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mdmark", "serve", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=handle, cwd=folder, env=env,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"127\.0\.0\.1:(\d+)/mcp", err.read_text(encoding="utf-8", errors="replace"))
        if found:
            return proc, int(found.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"mdmark serve did not start: {err.read_text(encoding='utf-8', errors='replace')}")


def edit_target(project: Path) -> Path:
    """The document the edited rows append to: the middle one of the index (not ``sample_names``')."""
    import yaml

    config = yaml.safe_load((project / "mdmark.config.yaml").read_text(encoding="utf-8"))
    index_file = project / config["index"]
    docs = yaml.safe_load(index_file.read_text(encoding="utf-8"))["docs"]
    return (index_file.parent / str(docs[len(docs) // 2]["path"])).resolve()


#: Issue 23's goals at 1,200 documents (p50, ms), by row.
GOALS = {
    "check (warm)": 30.0,
    "find_docs (related_to, json)": 30.0,
    "check after one edit": 150.0,
    "find_docs related_to after edit": 150.0,
}


def reparse_ms(project: Path, doc: Path, runs: int, first_line: int = 10_000) -> list[float]:
    """The edited document's re-parse alone: what the worker pool takes of an edited row (each run
    appends a new line from ``first_line`` on, so the parse cache never answers it)."""
    from mdmark.project.main import Project

    pipeline = Project.open(project).pipeline
    samples = []
    for n in range(runs + 1):
        append_line(doc, first_line + n)
        start = time.perf_counter()
        pipeline.facts_many([doc])
        if n:  # the first one starts the worker pool
            samples.append((time.perf_counter() - start) * 1000)
    return samples


def sample_names(project: Path) -> tuple[str, str]:
    """A document id (about the 100th) and a tag of the generated index, whichever generator made it."""
    import yaml

    config = yaml.safe_load((project / "mdmark.config.yaml").read_text(encoding="utf-8"))
    index = yaml.safe_load((project / config["index"]).read_text(encoding="utf-8"))
    docs = index["docs"]
    doc = docs[min(100, len(docs) - 1)]
    tags = [t if isinstance(t, str) else t["name"] for d in docs for t in d.get("tags") or []]
    return doc["id"], (tags[len(tags) // 3] if tags else "設計")


async def bench(port: int, project: Path, runs: int) -> None:
    from mcp import Client

    doc_id, tag = sample_names(project)

    async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=1800) as client:

        async def tool(name: str, **arguments: Any) -> None:
            result = await client.call_tool(name, {**arguments, "project_dir": str(project)})
            if result.is_error:
                raise SystemExit(f"{name} failed: {result.content}")

        async def timed(call: Callable[[], Awaitable[Any]]) -> float:
            start = time.perf_counter()
            await call()
            return (time.perf_counter() - start) * 1000

        cold_check = await timed(lambda: tool("check"))
        cold_find = await timed(lambda: tool("find_docs"))
        print(f"cold (first call, includes parsing): check {cold_check:,.0f} ms, find_docs {cold_find:,.0f} ms")
        cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("no-op: tools/list", lambda: client.list_tools(cache_mode="refresh")),
            ("no-op: tools/call (argument error)", lambda: client.call_tool("check", {})),
            ("find_docs (defaults, markdown)", lambda: tool("find_docs")),
            ("find_docs (tags + text, json)", lambda: tool("find_docs", tags=[tag], text="文書", format="json")),
            ("find_docs (related_to, json)", lambda: tool("find_docs", related_to=doc_id, format="json")),
            ("check (warm)", lambda: tool("check")),
        ]
        print(f"{'call':<34}{'p50 ms':>10}{'p95 ms':>10}{'goal p50':>10}   runs")

        def row(label: str, samples: list[float]) -> None:
            goal = f"≤ {GOALS[label]:.0f}" if label in GOALS else ""
            print(f"{label:<34}{statistics.median(samples):>10.1f}{percentile(samples, 0.95):>10.1f}{goal:>10}   {len(samples)}")

        for label, call in cases:
            await call()  # one more warm-up per case
            row(label, [await timed(call) for _ in range(runs)])
        doc = edit_target(project)
        row("(re-parse of the edited doc alone)", await anyio.to_thread.run_sync(reparse_ms, project, doc, runs))
        edited = 0

        async def after_edit(call: Callable[[], Awaitable[Any]]) -> float:
            nonlocal edited
            edited += 1
            append_line(doc, edited)
            return await timed(call)

        for label, call in (
            ("check after one edit", lambda: tool("check")),
            ("find_docs related_to after edit", lambda: tool("find_docs", related_to=doc_id, format="json")),
        ):
            await after_edit(call)  # warm-up
            row(label, [await after_edit(call) for _ in range(runs)])
        print(f"edited: {doc.relative_to(project)}; {machine()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--root", type=Path, help="generate into this folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mdmark-bench-mcp-") as tmp:
        root = (args.root or Path(tmp) / "project").resolve()
        root.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        made_by = generate(root, args.docs)
        print(f"corpus: {args.docs} documents by {made_by} in {time.perf_counter() - start:.1f} s at {root}")
        proc, port = start_server(Path(tmp))
        try:
            anyio.run(bench, port, root, args.runs)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
            print(f"server stopped with exit code {code}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
