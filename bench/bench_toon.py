"""Benchmark (not a test): characters of the markdown, json and toon answers for the same queries.

    .venv/bin/python bench/bench_toon.py [--docs 200] [--root DIR]

Generates the synthetic corpus of ``bench/corpus.py`` (plus a tag vocabulary, so ``list_tags`` has
rows), then asks find_docs, list_tags and outline the same questions in each format through
:func:`mdmark.server.tools.call_tool` (the function behind the MCP server, so the texts are the
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

QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("find_docs", {}),
    ("find_docs", {"limit": 100}),
    ("find_docs", {"limit": 100, "view": "standard"}),
    ("find_docs", {"limit": 50, "view": "full"}),
    ("find_docs", {"related_to": "doc0003", "view": "standard"}),
    ("find_docs", {"any_tags": ["topic03", "topic07"], "count_only": True}),
    ("list_tags", {}),
    ("outline", {"target": "doc0000"}),
    ("outline", {"target": "doc0001"}),
    ("outline", {"target": "docs"}),
]


def add_vocabulary(root: Path, n: int) -> None:
    """Tag every document with one of ten topics and write the vocabulary (the corpus has none)."""
    index = root / "docs" / "index.yaml"
    text = index.read_text(encoding="utf-8")
    for i in range(n):
        text = text.replace(
            f"    title: 文書 {i:04d} の設計\n    tags: [設計]\n",
            f"    title: 文書 {i:04d} の設計\n    tags: [{{name: 設計, main: true}}, topic{i % 10:02d}]\n",
        )
    vocabulary = ["tags:", "  - name: 設計", "    group: 種類", "    description: 設計の文書"]
    for t in range(10):
        vocabulary += [
            f"  - name: topic{t:02d}",
            "    group: 話題",
            f"    description: \"含める: 話題 {t} の設計。含めない: ほかの話題。\"",
            f"    aliases: [話題{t}]",
        ]
    index.write_text(text + "\n".join(vocabulary) + "\n", encoding="utf-8")


def answer(project: Path, tool: str, arguments: dict[str, Any], fmt: str) -> str:
    from mdmark.server.tools import call_tool

    outcome = call_tool(tool, {**arguments, "format": fmt, "project_dir": str(project)})
    if outcome.is_error:
        raise SystemExit(f"{tool} {arguments}: {outcome.texts}")
    return "".join(outcome.texts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--root", type=Path, default=None)
    args = parser.parse_args()
    from corpus import generate

    with tempfile.TemporaryDirectory(prefix="mdmark-bench-toon-") as scratch:
        root = args.root or Path(scratch) / "corpus"
        generate(root, args.docs)
        add_vocabulary(root, args.docs)
        print(f"corpus: {args.docs} documents in {root}")
        header = f"{'query':<58} {'markdown':>9} {'json':>9} {'toon':>9} {'toon/json':>9} {'toon/md':>8}"
        print(header)
        print("-" * len(header))
        totals = {"markdown": 0, "json": 0, "toon": 0}
        for tool, arguments in QUERIES:
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
