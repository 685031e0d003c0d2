"""Benchmark (not a test): the MCP ``check`` after one edit, on an existing project, against a
running ``mdmark serve`` (what ``bench_scale.py`` measures at each size, without generating and
cold-checking a corpus first: for a corpus already made and cached, run after run).

    .venv/bin/python bench/mcp_edit.py --project DIR [--runs 7] [--cache XDG_CACHE_HOME]

Each run appends one line to a different document (``*.md`` under ``DIR``, sorted), then calls
``check``; prints each call's milliseconds and the median, and the server's warm ``check`` for
comparison. With ``--related-to ID``, the same for ``find_docs`` ``related_to`` ID (its own edits,
after the checks').
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mcp import start_server  # noqa: E402
from runner import append_line, machine, median  # noqa: E402


async def _calls(port: int, root: Path, runs: int, related_to: str | None) -> dict[str, list[float]]:
    from mcp import Client

    documents = sorted(p for p in root.rglob("*.md") if ".mdmark_cache" not in p.parts)
    async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=3600) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> float:
            start = time.perf_counter()
            result = await client.call_tool(tool, {"project_dir": str(root), **arguments})
            if result.is_error:
                sys.exit(f"{tool} failed: {result.content}")
            return (time.perf_counter() - start) * 1000

        found: dict[str, list[float]] = {}
        tools = [("check", "check", {})]
        if related_to is not None:
            tools.append(("related_to", "find_docs", {"related_to": related_to}))
        for number, (name, tool, arguments) in enumerate(tools):
            await call(tool, arguments)
            found[f"{name} warm"] = [await call(tool, arguments) for _ in range(runs)]
            edited: list[float] = []
            for i in range(runs):
                append_line(documents[(i * 7919 + number * 104_729) % len(documents)], 500 + 100 * number + i)
                edited.append(await call(tool, arguments))
            found[f"{name} after one edit"] = edited
        return found


def main() -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--cache", type=Path, help="XDG_CACHE_HOME for the server (default: the environment's)")
    parser.add_argument("--related-to", help="also time find_docs related_to this document id")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.cache is not None:
        env["XDG_CACHE_HOME"] = str(args.cache)
    print(machine())
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"mcp-edit-{os.getpid()}"
    folder.mkdir()
    proc, port = start_server(folder, env)
    try:
        found = anyio.run(_calls, port, args.project.resolve(), args.runs, args.related_to)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    shown: Any = lambda samples: ", ".join(f"{s:.0f}" for s in samples)  # noqa: E731
    for name, samples in found.items():
        print(f"{name}: median {median(samples):.0f} ms ({shown(samples)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
