"""Golden extraction fixtures (MyST-Parser ``tests/test_renderers/fixtures`` style).

Each folder under ``tests/fixtures/extract/`` is a small source tree of Markdown documents (plus
whatever files they link to). ``expected.txt`` in it is a readable dump of the facts the pipeline
extracts from every document, one fact per line, each with its source line. A changed behaviour
shows as a diff; after checking the diff by hand, rewrite the expectations with::

    MDMARK_REGEN=1 .venv/bin/pytest tests/test_pipeline_extract.py

``names.txt`` (optional) lists extra names for the occurrence matcher, one ``owner: name`` a line;
every document's title is a name owned by that document. Occurrences of a document's own names
are not listed (they are not relations).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import assert_golden

from mdmark.config.main import MarkdownSettings
from mdmark.core.facts import DocFacts
from mdmark.index.occurrences import NameMatcher
from mdmark.pipeline.pipeline import Pipeline

CASES_DIR = Path(__file__).resolve().parent / "fixtures" / "extract"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir())


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def dump_facts(facts: DocFacts, matcher: NameMatcher | None = None) -> list[str]:
    """One line per fact, in a fixed order; the format the expected files hold."""
    out = [f"## {facts.path}"]
    if facts.error:
        out.append(f"error: {facts.error}")
        return out
    out.append(f"title {facts.title_line}: {facts.title}")
    for key, value in sorted(facts.metadata.items()):
        out.append(f"meta {key}: {value!r}")
    for h in facts.headings:
        out.append(f"heading {h.line} h{h.level}: {h.title}  slug={h.slug} ids={','.join(h.ids)}")
    out.append("anchors: " + " | ".join(facts.anchors))
    for link in facts.links:
        where = "external" if link.external else f"path={link.path} anchor={link.anchor}"
        out.append(f"link {link.line}: {link.target}  {where}  text={_q(link.text)}")
    for image in facts.images:
        where = "remote" if image.remote else f"path={image.path}"
        out.append(f"image {image.line}: {image.uri}  {where}")
    for warning in facts.warnings:
        out.append(f"warning {warning.line} {warning.type}: {warning.message}")
    for run in facts.text:
        out.append(f"text {run.line}: {_q(run.text)}")
    if matcher is not None:
        own = facts.path
        for occ in matcher.find(facts.text):
            if occ.owner != own:
                out.append(f"occurrence {occ.line}: {occ.name} -> {occ.owner}")
    return out


def _names(case: Path, all_facts: list[DocFacts]) -> NameMatcher:
    pairs = [(f.title, f.path) for f in all_facts if f.title]
    extra = case / "names.txt"
    if extra.is_file():
        for raw in extra.read_text(encoding="utf-8").splitlines():
            if raw.strip() and not raw.startswith("#"):
                owner, name = raw.split(":", 1)
                pairs.append((name.strip(), owner.strip()))
    return NameMatcher(pairs)


def extract_case(case: Path, workdir: Path) -> str:
    """Copy the case to ``workdir`` (nothing is written next to the fixtures) and dump its facts."""
    src = workdir / case.name
    shutil.copytree(case, src, ignore=shutil.ignore_patterns("expected.txt", "names.txt"))
    docs = sorted(p for p in src.rglob("*.md"))
    pipeline = Pipeline(src, MarkdownSettings())
    all_facts = pipeline.facts_many(docs)
    matcher = _names(case, all_facts)
    lines: list[str] = []
    for facts in all_facts:
        lines.extend(dump_facts(facts, matcher))
        lines.append("")
    return "\n".join(lines)


@pytest.mark.parametrize("name", CASES)
def test_extract_fixture(name: str, tmp_path: Path) -> None:
    case = CASES_DIR / name
    got = extract_case(case, tmp_path)
    expected_file = case / "expected.txt"
    assert_golden(got, expected_file)


def test_facts_round_trip_through_json(tmp_path: Path) -> None:
    """The disk cache stores facts as JSON: every field survives the round trip."""
    case = CASES_DIR / "design"
    src = tmp_path / "src"
    shutil.copytree(case, src)
    pipeline = Pipeline(src, MarkdownSettings())
    for facts in pipeline.facts_many(sorted(src.rglob("*.md"))):
        again = DocFacts.from_json(json.loads(json.dumps(facts.to_json(), ensure_ascii=False)))
        assert again == facts
