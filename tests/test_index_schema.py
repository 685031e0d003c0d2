"""Golden index fixtures: ``tests/fixtures/index/<case>.yaml`` → ``<case>.expected.txt``.

Each case is copied to a fresh folder as ``index.yaml`` and loaded with :func:`load_index`. The
expected file lists every schema problem as ``{where} (line N): {message}`` — exactly the
``{場所}: {内容}`` text :func:`format_problem` gives, plus the line — and then the model the rest of
mdmark sees (items that break the schema are left out; everything else is kept, duplicate ids
included: reporting those is ``check``'s ``duplicate_id``). A file that cannot be read at all is
``error (exit N): {message}``. Rewrite after checking a diff by hand with ``MDMARK_REGEN=1``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import assert_golden

from mdmark.core.errors import MdmarkError
from mdmark.index.model import Index, format_problem, index_problems, load_index
from mdmark.config.yamlio import parse_yaml

CASES_DIR = Path(__file__).resolve().parent / "fixtures" / "index"
CASES = sorted(p.stem for p in CASES_DIR.glob("*.yaml"))


def dump_index(index: Index, root: Path) -> list[str]:
    out = []
    diagnostics = index.schema_diagnostics(root)
    assert len(diagnostics) == len(index.problems)
    for problem, diag in zip(index.problems, diagnostics, strict=True):
        assert (diag.file, diag.kind, diag.where, diag.message) == ("index.yaml", "index_schema", problem.where, problem.message)
        out.append(f"{format_problem(problem)}  (line {diag.line})")
    out.append("--")
    for doc in index.docs:
        tags = ", ".join(f"{t.name}{'*' if t.main else ''}" for t in doc.tags)
        out.append(f"doc {doc.where} id={doc.id} path={doc.path} title={doc.title} aliases={doc.aliases} description={doc.description!r} tags=[{tags}]")
        for rel in doc.related:
            out.append(f"  related {rel.where} to={rel.to} type={rel.type} when={rel.when} paths={list(rel.paths)} string={rel.written_as_string}")
    for term in index.terms:
        out.append(f"term {term.where} id={term.id} term={term.term} aliases={term.aliases} docs={term.docs} definition={term.definition!r}")
    for tag in index.tags:
        out.append(f"tag {tag.where} name={tag.name} group={tag.group} aliases={tag.aliases} deprecated={tag.deprecated}")
    out.append(f"has_tags: {index.has_tags}")
    return out


def load_case(name: str, folder: Path) -> str:
    target = folder / "index.yaml"
    shutil.copyfile(CASES_DIR / f"{name}.yaml", target)
    try:
        lines = dump_index(load_index(target, folder), folder)
    except MdmarkError as exc:
        lines = [f"error (exit {exc.exit_code}): {exc.message}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", CASES)
def test_index_fixture(name: str, tmp_path: Path) -> None:
    got = load_case(name, tmp_path)
    expected_file = CASES_DIR / f"{name}.expected.txt"
    assert_golden(got, expected_file)


def test_enough_broken_cases() -> None:
    assert len([n for n in CASES if not n.startswith("valid")]) >= 15


def test_valid_cases_have_no_problems() -> None:
    for name in CASES:
        if name.startswith("valid"):
            doc = parse_yaml((CASES_DIR / f"{name}.yaml").read_text(encoding="utf-8"), name)
            assert index_problems(doc.data) == []


def test_validator_is_the_same_for_update_index_items() -> None:
    """update_index validates a whole rewritten index with the same function: a problem found in a
    document parsed from text is the same as one found from data."""
    data = {"docs": [{"id": "a", "path": "a.md", "title": "A", "related": [{"to": "b", "type": "uses", "when": "x"}]}]}
    problems = index_problems(data)
    assert [format_problem(p) for p in problems] == [
        "docs[0].related[0].type: 関係の種類 `uses` は使えないので、近い `requires` か、`requires`・`references`・`replaces`・`part_of`・`change_together` のどれかにしてください。"
    ]


def test_index_paths_are_relative_to_the_index_file(tmp_path: Path) -> None:
    sub = tmp_path / "docs"
    sub.mkdir()
    (sub / "index.yaml").write_text("docs:\n  - {id: a, path: 設計/a.md, title: A}\n", encoding="utf-8")
    index = load_index(sub / "index.yaml", tmp_path)
    assert index.shown == "docs/index.yaml"
    doc = index.doc("a")
    assert doc is not None
    assert index.doc_file(doc) == (sub / "設計" / "a.md").resolve()
    assert index.doc("zz") is None


def test_missing_index_file(tmp_path: Path) -> None:
    with pytest.raises(MdmarkError) as info:
        load_index(tmp_path / "index.yaml", tmp_path)
    assert info.value.exit_code == 2
    assert info.value.message == "`index.yaml` が見つからないので、パスを直すかファイルを置いてください。"


def test_canonical_tag_resolves_vocabulary_aliases(tmp_path: Path) -> None:
    shutil.copyfile(CASES_DIR / "valid-full.yaml", tmp_path / "index.yaml")
    index = load_index(tmp_path / "index.yaml", tmp_path)
    assert index.canonical_tag("MCP") == "topic:mcp"
    assert index.canonical_tag("ｍｃｐ") == "topic:mcp"  # normalised (NFKC, lower case)
    assert index.canonical_tag("設計") == "設計"
    assert index.canonical_tag("unknown") == "unknown"


def test_a_large_index_without_aliases_is_not_an_alias_bomb() -> None:
    """A 14,000-document index holds more values than the alias cap, each written out: only
    expansion through aliases counts against it."""
    import yaml

    from mdmark.config.yamlio import MAX_EXPANDED_NODES, guard_node

    rows = "".join(f"  - id: d{i}\n    path: a/{i}.md\n    title: T{i}\n    tags: [x, y]\n" for i in range(MAX_EXPANDED_NODES // 10))
    guard_node(yaml.compose("docs:\n" + rows), "index.yaml")
