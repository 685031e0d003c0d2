"""Benchmark (not a test): characters of the markdown, json and toon answers for the same queries.

    .venv/bin/python bench/bench_toon.py [--docs 200] [--root DIR]

Generates the knowledge base of ``bench/corpus.py`` (with its tag vocabulary, so ``list_tags`` has
rows), then asks find_docs, list_tags and outline the same questions in each format through
:func:`mdmark.tools.registry.call_tool` (the function behind the MCP server, so the texts are the
tools' own) and prints the characters of each answer and toon's size against json and markdown.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import FOLDERS, Corpus, generate  # noqa: E402

def queries(corpus: Corpus) -> list[tuple[str, dict[str, Any]]]:
    """The same questions on any size of corpus: ids, tags and a folder taken from what it holds."""
    first, second = corpus.content[0], corpus.content[1]
    topics = [FOLDERS[0][1], FOLDERS[1][1]]  # every corpus has at least two folders
    return [
        ("find_docs", {}),
        ("find_docs", {"limit": 100}),
        ("find_docs", {"limit": 100, "view": "standard"}),
        ("find_docs", {"limit": 50, "view": "full"}),
        ("find_docs", {"related_to": corpus.sample(1)[0].id, "view": "standard"}),
        ("find_docs", {"any_tags": topics, "count_only": True}),
        ("list_tags", {}),
        ("outline", {"target": first.id}),
        ("outline", {"target": second.id}),
        ("outline", {"target": first.rel.split("/")[0]}),
    ]


def answer(project: Path, tool: str, arguments: dict[str, Any], fmt: str) -> str:
    from mdmark.tools.registry import call_tool

    outcome = call_tool(tool, {**arguments, "format": fmt, "project_dir": str(project)})
    if outcome.is_error:
        raise SystemExit(f"{tool} {arguments}: {outcome.texts}")
    return "".join(outcome.texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--root", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mdmark-bench-toon-") as scratch:
        root = args.root or Path(scratch) / "corpus"
        corpus = generate(root, args.docs)
        print(f"corpus: {args.docs} documents in {root}")
        header = f"{'query':<58} {'markdown':>9} {'json':>9} {'toon':>9} {'toon/json':>9} {'toon/md':>8}"
        print(header)
        print("-" * len(header))
        totals = {"markdown": 0, "json": 0, "toon": 0}
        for tool, arguments in queries(corpus):
            sizes = {fmt: len(answer(root, tool, arguments, fmt)) for fmt in totals}
            for fmt, size in sizes.items():
                totals[fmt] += size
            shown = f"{tool} {arguments}" if arguments else tool
            print(
                f"{shown[:58]:<58} {sizes['markdown']:>9,} {sizes['json']:>9,} {sizes['toon']:>9,}"
                f" {sizes['toon'] / sizes['json']:>9.2f} {sizes['toon'] / sizes['markdown']:>8.2f}"
            )
        print("-" * len(header))
        print(
            f"{'all queries':<58} {totals['markdown']:>9,} {totals['json']:>9,} {totals['toon']:>9,}"
            f" {totals['toon'] / totals['json']:>9.2f} {totals['toon'] / totals['markdown']:>8.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
