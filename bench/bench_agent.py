"""Benchmark (not a test): what an agent reads to find one section, with and without mdmark's reading tools.

    .venv/bin/python bench/bench_agent.py [--docs 300] [--questions 50] [--seed 35] [--real] [--root DIR]

No language model: both strategies are followed deterministically, and each answer is the exact
text an agent would get (the tools' texts come from :func:`mdmark.tools.registry.call_tool`, the
function behind the MCP server).

The questions: "find the section that explains X", where X is a term (a run of katakana or kanji
of 3+ characters, or an ASCII word of 6+) that occurs in exactly one section (heading to next
heading) of exactly one document and in no heading, title or index entry. ``--questions`` of
them are drawn with ``--seed`` from all such terms of the corpus.

(a) file-reading agent: search the files for X (``grep -rn``: one call, its output is read), then
    read each matching file whole (one call per file).
(b) mdmark: ``find_docs`` with ``text`` X (one call; it searches titles, aliases and
    descriptions, so for a term of the body it usually finds nothing, and the agent then searches
    the files as (a) does, one call), ``outline`` of the matching document (one call), and
    ``read_doc`` of the section whose lines hold the match (one call). ``find_docs`` and
    ``outline`` answer in ``json`` or ``toon`` (and ``markdown``, the default, for reference).
    On a corpus without an index (the real ones), ``find_docs`` is left out.

Printed per strategy: characters read and calls per question (median and p90), the ratio of the
medians against (a), and how many questions each strategy answered (the read text holds X).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import generate  # noqa: E402

_TERM = re.compile(r"[ァ-ヴー]{3,}|[一-龠々]{3,}|[A-Za-z][A-Za-z0-9_]{5,}")
_HEADING = re.compile(r"^(#{1,6})\s")
FORMATS = ("json", "toon", "markdown")


@dataclass
class Question:
    term: str
    rel: str  # the file that holds it
    line: int  # the line of its one occurrence (first line of the section's lines holding it)


@dataclass
class Tally:
    chars: list[int] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    answered: int = 0
    find_hits: int = 0


def markdown_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.md") if not any(part.startswith((".", "_")) or part == "dist" for part in p.relative_to(root).parts))


def _chunks(lines: list[str]) -> list[tuple[int, int]]:
    """Line ranges (1-based, inclusive) from each heading to the line before the next, outside fences."""
    starts = [1]
    fence = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        elif not fence and _HEADING.match(line):
            starts.append(n)
    starts = sorted(set(starts))
    return [(s, (starts[i + 1] - 1) if i + 1 < len(starts) else len(lines)) for i, s in enumerate(starts)]


def questions(root: Path, count: int, seed: int) -> list[Question]:
    """``count`` terms that occur in one section only (see the module docstring), drawn with ``seed``."""
    where: dict[str, set[tuple[str, int]]] = {}
    first_line: dict[tuple[str, str, int], int] = {}
    banned: set[str] = set()
    for path in markdown_files(root):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for chunk_no, (first, last) in enumerate(_chunks(lines)):
            for n in range(first, last + 1):
                line = lines[n - 1]
                for term in _TERM.findall(line):
                    if _HEADING.match(line):
                        banned.add(term)
                    where.setdefault(term, set()).add((rel, chunk_no))
                    first_line.setdefault((term, rel, chunk_no), n)
    index_text = "".join(p.read_text(encoding="utf-8") for p in root.glob("*.yaml"))
    unique = sorted(
        t for t, places in where.items() if len(places) == 1 and t not in banned and t not in index_text
    )
    # A term inside a longer unique term is the same question twice: keep the longest only.
    chosen = [t for t in unique if not any(t != u and t in u for u in unique)]
    rng = random.Random(seed)
    rng.shuffle(chosen)
    out = []
    for term in chosen[:count]:
        ((rel, chunk_no),) = where[term]
        out.append(Question(term, rel, first_line[(term, rel, chunk_no)]))
    return out


def search(root: Path, term: str) -> tuple[str, list[tuple[str, int]]]:
    """What ``grep -rn TERM`` prints over the Markdown files, and the (file, line) hits."""
    out: list[str] = []
    hits: list[tuple[str, int]] = []
    for path in markdown_files(root):
        rel = path.relative_to(root).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if term in line:
                out.append(f"{rel}:{n}:{line}\n")
                hits.append((rel, n))
    return "".join(out), hits


def tool(project: Path, name: str, **arguments: Any) -> str:
    from mdmark.tools.registry import call_tool

    outcome = call_tool(name, {**arguments, "project_dir": str(project)})
    if outcome.is_error:
        raise SystemExit(f"{name} {arguments}: {outcome.texts}")
    return "".join(outcome.texts)


def file_agent(root: Path, q: Question, tally: Tally) -> None:
    listing, hits = search(root, q.term)
    chars, calls, text = len(listing), 1, ""
    for rel in dict.fromkeys(rel for rel, _ in hits):
        body = (root / rel).read_text(encoding="utf-8")
        chars += len(body)
        calls += 1
        text += body
    tally.chars.append(chars)
    tally.calls.append(calls)
    tally.answered += q.term in text


def mdmark_agent(root: Path, q: Question, fmt: str, indexed: bool, tally: Tally) -> None:
    chars = calls = 0
    if indexed:
        found = tool(root, "find_docs", text=q.term, format=fmt)
        chars += len(found)
        calls += 1
        structured = json.loads(tool(root, "find_docs", text=q.term, format="json"))
        if structured["docs"]:
            tally.find_hits += 1
    # The terms are in no title, alias or description, so find_docs cannot name the document:
    # the agent searches the files, as (a) does.
    listing, hits = search(root, q.term)
    chars += len(listing)
    calls += 1
    target, line = hits[0]
    shown = tool(root, "outline", target=target, format=fmt)
    chars += len(shown)
    calls += 1
    headings = json.loads(tool(root, "outline", target=target, format="json"))["docs"][0]["headings"]
    holding = [h for h in headings if h["line"] <= line <= h["end_line"] and h["anchor"]]
    if holding:
        deepest = max(holding, key=lambda h: h["level"])
        text = tool(root, "read_doc", target=target, section=deepest["anchor"])
    else:  # the lines before the first heading
        first = min((h["line"] for h in headings), default=line + 1)
        text = tool(root, "read_doc", target=target, lines=f"1-{max(1, first - 1)}")
    chars += len(text)
    calls += 1
    tally.chars.append(chars)
    tally.calls.append(calls)
    tally.answered += q.term in text


def p90(values: list[int]) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))])


def report(name: str, qs: list[Question], tallies: dict[str, Tally]) -> None:
    base = statistics.median(next(iter(tallies.values())).chars)  # (a) comes first
    print(f"\n### {name}: {len(qs)} questions\n")
    print("| strategy | chars median | chars p90 | calls median | calls p90 | chars vs (a) | answered |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, tally in tallies.items():
        med = statistics.median(tally.chars)
        print(
            f"| {label} | {med:,.0f} | {p90(tally.chars):,.0f} | {statistics.median(tally.calls):g} | {p90(tally.calls):g} "
            f"| {med / base:.2f} | {tally.answered}/{len(qs)} |"
        )
    hits = max(t.find_hits for t in tallies.values())
    if name.startswith("generated"):
        print(f"\nfind_docs found a document for {hits} of {len(qs)} questions (it searches titles, aliases and descriptions).")


def run(name: str, root: Path, count: int, seed: int, indexed: bool) -> None:
    qs = questions(root, count, seed)
    if not qs:
        print(f"\n### {name}: no term occurs in exactly one section")
        return
    tallies: dict[str, Tally] = {"file": Tally()}
    for q in qs:
        file_agent(root, q, tallies["file"])
    labels = {"file": "(a) search + read files whole"}
    runs = [(fmt, indexed) for fmt in FORMATS] + ([("toon", False)] if indexed else [])
    for fmt, with_find in runs:
        key = f"mdmark {fmt} {with_find}"
        tallies[key] = Tally()
        labels[key] = f"(b) {'find_docs → ' if with_find else ''}search → outline → read_doc, {fmt}"
        for q in qs:
            mdmark_agent(root, q, fmt, with_find, tallies[key])
    report(name, qs, {labels[k]: v for k, v in tallies.items()})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--root", type=Path, default=None, help="generate the knowledge base here and keep it")
    parser.add_argument("--real", action="store_true", help="also the real corpora of ../shared/corpora (no index)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mdmark-bench-agent-") as scratch:
        root = args.root or Path(scratch) / "kb"
        generate(root, args.docs)
        print(f"seed {args.seed}; outline/read_doc/find_docs through mdmark.tools.registry.call_tool")
        run(f"generated knowledge base ({args.docs} documents)", root, args.questions, args.seed, indexed=True)
        shared = HERE.parent.parent / "shared" / "corpora"
        if args.real and shared.is_dir():
            for source in sorted(p for p in shared.iterdir() if (p / "docs").is_dir()):
                copy = Path(scratch) / source.name
                shutil.copytree(source / "docs", copy, ignore=shutil.ignore_patterns("_build", "conf*.py"))
                (copy / "mdmark.config.yaml").write_text('docs:\n  include: ["**/*.md"]\n', encoding="utf-8")
                run(f"{source.name}/docs ({len(markdown_files(copy))} Markdown files)", copy, args.questions, args.seed, indexed=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
