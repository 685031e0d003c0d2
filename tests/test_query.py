"""Golden tests for find_docs / list_tags (tests/fixtures/query/cases.yaml) and their CLI commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest
import toon_format
import yaml

from mdmark.core.errors import MdmarkError
from mdmark.queries.find import find_docs, list_tags
from conftest import FIXTURES, assert_golden, run_mdmark

HERE = FIXTURES / "query"
EXPECTED = HERE / "expected"
CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))
BY_NAME = {case["name"]: case for case in CASES}
TOOLS: dict[str, Callable[..., Any]] = {"find_docs": find_docs, "list_tags": list_tags}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the fixture project (the parse cache is written into the config folder)."""
    root = tmp_path_factory.mktemp("query") / "project"
    shutil.copytree(HERE / "project", root)
    return root


_RESULTS: dict[tuple[str, str], Any] = {}


def _call(project: Path, name: str, fmt: str) -> Any:
    """Run a case (memoised: cursor cases chain on the json run of an earlier case)."""
    key = (name, fmt)
    if key in _RESULTS:
        return _RESULTS[key]
    case = BY_NAME[name]
    args = dict(case["args"])
    if "format" not in args:
        args["format"] = fmt
    if "cursor_from" in case:
        previous = _call(project, case["cursor_from"], "json")
        assert isinstance(previous, dict) and previous["next_cursor"], f"{case['cursor_from']} has no next page"
        args["cursor"] = previous["next_cursor"]
    try:
        result: Any = TOOLS[case["tool"]](project, **args)
    except MdmarkError as exc:
        result = exc
    _RESULTS[key] = result
    return result


def _compare(path: Path, actual: str) -> None:
    assert_golden(actual, path)


def _foundation_sentence(project: Path, config: str) -> str:
    """What loading the config and the index says (check says the same)."""
    from mdmark.project.main import Project

    with pytest.raises(MdmarkError) as caught:
        Project.open(project, config).index()
    return caught.value.message


def test_at_least_25_queries_and_every_error_golden() -> None:
    ok = [c for c in CASES if not c["name"].startswith("err_")]
    assert len(ok) >= 25
    assert len(CASES) - len(ok) >= 15


@pytest.mark.parametrize("name", [c["name"] for c in CASES])
def test_case(project: Path, name: str) -> None:
    results = {fmt: _call(project, name, fmt) for fmt in ("json", "markdown")}
    if name.startswith("err_"):
        messages = {fmt: r.message for fmt, r in results.items() if isinstance(r, MdmarkError)}
        assert len(messages) == 2, f"{name} did not fail: {results}"
        assert messages["json"] == messages["markdown"]
        assert "\n" not in messages["json"]  # one sentence
        if BY_NAME[name].get("same_as_foundation"):
            assert messages["json"] == _foundation_sentence(project, BY_NAME[name]["args"]["config"])
            return
        _compare(EXPECTED / f"{name}.error", messages["json"] + "\n")
        return
    as_json, as_markdown = results["json"], results["markdown"]
    assert isinstance(as_json, dict), as_json
    assert isinstance(as_markdown, str), as_markdown
    _compare(EXPECTED / f"{name}.json", json.dumps(as_json, ensure_ascii=False, indent=2) + "\n")
    _compare(EXPECTED / f"{name}.md", as_markdown)
    # format toon: the same data, read back by the TOON authors' decoder.
    as_toon = _call(project, name, "toon")
    assert isinstance(as_toon, str), as_toon
    assert toon_format.decode(as_toon) == as_json


def test_paging_visits_every_document_once(project: Path) -> None:
    """All pages of limit 4 together are exactly the unpaged result, in order."""
    seen: list[str] = []
    cursor = None
    while True:
        page = find_docs(project, limit=4, cursor=cursor, format="json")
        assert isinstance(page, dict)
        seen += [d["id"] for d in page["docs"]]
        assert page["returned"] == len(page["docs"])
        cursor = page["next_cursor"]
        assert (page["hint"] is None) == (cursor is None)
        if cursor is None:
            break
    whole = find_docs(project, format="json")
    assert isinstance(whole, dict)
    assert seen == [d["id"] for d in whole["docs"]]
    assert len(seen) == whole["total"] == 10


def test_cursor_is_bound_to_normalised_filter_not_to_view_or_limit(project: Path) -> None:
    first = find_docs(project, tags=["設計"], limit=2, format="json")
    assert isinstance(first, dict) and first["next_cursor"]
    # The alias resolves to the same tag, the view and the limit may change between pages.
    second = find_docs(project, tags=["design"], limit=50, view="full", cursor=first["next_cursor"], format="json")
    assert isinstance(second, dict)
    assert [d["id"] for d in second["docs"]] == ["cli", "api", "missing"]
    with pytest.raises(MdmarkError, match="cursor を省いて先頭から"):
        find_docs(project, tags=["設計"], text="x", cursor=first["next_cursor"])


def test_chars_are_code_points_and_null_when_unreadable(project: Path) -> None:
    result = find_docs(project, view="standard", format="json")
    assert isinstance(result, dict)
    docs = {d["id"]: d for d in result["docs"]}
    arch = project / "docs" / "設計" / "arch.md"
    assert docs["arch"]["chars"] == len(arch.read_text(encoding="utf-8")) < len(arch.read_bytes())
    assert docs["missing"]["chars"] is None  # no file
    assert docs["legacy"]["chars"] is None  # not UTF-8
    assert result["total_chars"] == sum(d["chars"] for d in result["docs"] if d["chars"] is not None)


def test_chars_follow_file_changes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(HERE / "project", root)
    ops = root / "docs" / "ops.md"
    ops.write_text("# 運用\n\n週ごと。\n", encoding="utf-8")
    result = find_docs(root, text="運用", format="json")
    assert isinstance(result, dict)
    assert [d["chars"] for d in result["docs"]] == [len("# 運用\n\n週ごと。\n")]
    ops.write_text("# 運用\n", encoding="utf-8")
    result = find_docs(root, text="運用", format="json")
    assert isinstance(result, dict)
    assert [d["chars"] for d in result["docs"]] == [5]


@pytest.mark.parametrize("linked", [False, True], ids=["plain tree", "a link in the tree"])
def test_chars_without_resolving_are_the_resolved_ones(tmp_path: Path, linked: bool) -> None:
    """The documents' lengths by their lexical paths (a project folder with no link in it) are those
    found by resolving each path: a document outside the project but in its git work tree, one under
    a skipped folder, one missing, one through a link to outside (none: not counted); and outline's
    ids by resolved path are the ones found by resolving every entry."""
    from mdmark.project.main import Project
    from mdmark.queries.find import _chars_of, file_chars
    from mdmark.host.confine import project_root

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    root = repo / "p"
    shutil.copytree(HERE / "project", root)
    (repo / "shared.md").write_text("# 共有\n", encoding="utf-8")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.md").write_text("# 部品\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text("# 外\n", encoding="utf-8")
    if linked:
        (root / "out").symlink_to(outside)
    index = root / "docs" / "index.yaml"
    extra = "".join(
        f"  - id: extra-{n}\n    path: {p}\n    title: 追加{n}\n"
        for n, p in enumerate(("../../shared.md", "../node_modules/x.md", "../out/o.md", "../nowhere.md"))
    )
    index.write_text(index.read_text(encoding="utf-8").replace("\ntags:", f"\n{extra}tags:", 1), encoding="utf-8")
    project = Project.open(root)
    assert (project.workspace.tree(project.root).version() is None) is linked  # the lexical path is taken without links
    docs = project.index().docs
    resolved_root = project_root(project.root)
    expected = {id(d): file_chars(project.workspace, project.index().doc_path(d), resolved_root) for d in docs}
    assert _chars_of(project, project.index(), list(docs)) == expected
    # outline's ids by resolved path, the same way.
    from mdmark.queries.outline import doc_ids

    by_path: dict[str, str] = {}
    for d in docs:
        by_path.setdefault(str(project.index().doc_path(d).resolve()), d.id)
    assert doc_ids(project) == by_path
    added = {d.id: expected[id(d)] for d in docs if d.id.startswith("extra-")}
    assert added["extra-0"] == len("# 共有\n") and added["extra-1"] == len("# 部品\n")
    assert added["extra-2"] is None and added["extra-3"] is None


def test_relations_reuse_cached_parses(project: Path) -> None:
    from mdmark.project.main import Project

    find_docs(project, related_to="arch")
    pipeline = Project.open(project).pipeline
    before = pipeline.parse_count
    find_docs(project, related_to="guide", view="full")
    assert pipeline.parse_count == before


def test_queries_change_nothing(tmp_path: Path) -> None:
    root = tmp_path / "p"
    shutil.copytree(HERE / "project", root)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    find_docs(root, related_to="arch", view="full")
    list_tags(root)
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".mdmark_cache" not in p.parts}
    assert after == before


def test_no_vocabulary_means_no_warnings_and_empty_tags(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(
        "docs:\n  - {id: a, path: a.md, title: A, tags: [x, {name: y, main: true}]}\n", encoding="utf-8"
    )
    result = find_docs(tmp_path, tags=["y"], any_tags=["nothing", "x", "y"], format="json")
    assert isinstance(result, dict)
    assert result["warnings"] == []
    assert result["tag_counts"] == [{"name": "x", "count": 1}, {"name": "y", "count": 1}]
    assert result["docs"][0]["chars"] is None
    assert list_tags(tmp_path, format="json") == {"tags": []}
    assert list_tags(tmp_path) == "| 名前 | グループ | 説明 | 別名 | 振り替え先 | 文書数 |\n| --- | --- | --- | --- | --- | --- |\n"


# -- the CLI prints exactly what the tools return ---------------------------------------------------


def test_cli_find_markdown_and_json_match_the_tool(project: Path) -> None:
    done = run_mdmark("find", "--tag", "設計", cwd=project)
    assert done.returncode == 0, done.stderr
    # The CLI's markdown names its own options (--include path, --cursor) where the tool's names arguments.
    assert_golden(done.stdout, EXPECTED / "tags_main_first.cli.md")
    assert "include: [" not in done.stdout and "--include path" in done.stdout
    done = run_mdmark(
        "find", "--related-to", "arch", "--view", "standard", "--format", "json", cwd=project / "docs"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((EXPECTED / "related_to_arch.json").read_text(encoding="utf-8"))
    done = run_mdmark(
        "find", "--any-tag", "MCP", "--any-tag", "旧タグ", "--count-only", cwd=project
    )
    assert done.stdout == (EXPECTED / "count_only.md").read_text(encoding="utf-8")  # nothing tool-specific
    done = run_mdmark(
        "find", "--view", "standard", "--include", "related", "--include", "referenced_by",
        "--exclude", "path", "--exclude", "referenced_by", "--limit", "2", cwd=project,
    )
    assert_golden(done.stdout, EXPECTED / "include_related_exclude_path.cli.md")


def test_cli_find_pages_with_cursor_and_text(project: Path) -> None:
    first = json.loads(run_mdmark("find", "--limit", "4", "--format", "json", cwd=project).stdout)
    done = run_mdmark("find", "--limit", "4", "--cursor", first["next_cursor"], cwd=project)
    assert_golden(done.stdout, EXPECTED / "page2_limit4.cli.md")
    assert "next_cursor" not in done.stdout and "null" not in done.stdout
    done = run_mdmark("find", "--text", " ＡＰＩ ", "--format", "json", cwd=project)
    assert json.loads(done.stdout) == json.loads((EXPECTED / "text_nfkc.json").read_text(encoding="utf-8"))


def test_cli_tags(project: Path) -> None:
    done = run_mdmark("tags", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (EXPECTED / "tags_all.md").read_text(encoding="utf-8")
    done = run_mdmark("tags", "--query", "mcp", "--format", "json", cwd=project)
    assert json.loads(done.stdout) == json.loads((EXPECTED / "tags_query_alias.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("argv", "case", "code"),
    [
        (["find", "--limit", "0"], "err_limit_zero", 1),
        (["find", "--view", "ful"], "err_view", 1),
        (["find", "--exclude", "title"], "err_exclude_brief", 1),
        (["find", "--cursor", "!!not-a-cursor"], "err_cursor_unreadable", 1),
        (["find", "--related-to", "arc"], "err_related_to_unknown", 1),
        (["find", "--config", "noindex.config.yaml"], "err_no_index", 1),
        (["find", "--config", "nothere.yaml"], "err_config_missing", 2),
        (["tags", "--config", "broken.config.yaml"], "err_tags_index_unreadable", 2),
        (["tags", "--format", "Markdown"], "err_tags_format", 1),
    ],
)
def test_cli_errors_say_the_tool_sentence(project: Path, argv: list[str], case: str, code: int) -> None:
    done = run_mdmark(*argv, cwd=project)
    assert done.returncode == code
    assert done.stdout == ""
    if BY_NAME[case].get("same_as_foundation"):
        assert done.stderr == _foundation_sentence(project, BY_NAME[case]["args"]["config"]) + "\n"
    else:
        assert done.stderr == (EXPECTED / f"{case}.error").read_text(encoding="utf-8")


def _generated(tmp_path: Path, count: int) -> Path:
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    items = "".join(f"  - {{id: d{i:02d}, path: d{i:02d}.md, title: 文書 {i}}}\n" for i in range(count))
    (tmp_path / "index.yaml").write_text("docs:\n" + items, encoding="utf-8")
    return tmp_path


def test_no_condition_returns_the_first_page_of_the_default_size(tmp_path: Path) -> None:
    root = _generated(tmp_path, 25)
    first = find_docs(root, format="json")
    assert isinstance(first, dict)
    assert (first["total"], first["returned"]) == (25, 20)
    assert [d["id"] for d in first["docs"]] == [f"d{i:02d}" for i in range(20)]
    rest = find_docs(root, cursor=first["next_cursor"], format="json")
    assert isinstance(rest, dict)
    assert [d["id"] for d in rest["docs"]] == [f"d{i:02d}" for i in range(20, 25)]
    assert rest["next_cursor"] is None and rest["hint"] is None
    assert find_docs(root, limit=100, format="json")["returned"] == 25  # type: ignore[index]


def test_row_fields_per_view_and_nothing_else(project: Path) -> None:
    """brief/standard/full field sets; no version, no git dates; relations only with related_to."""
    brief = ["id", "title", "description", "tags", "chars"]
    expected = {
        "brief": brief,
        "standard": [*brief, "path", "aliases"],
        "full": [*brief, "path", "aliases", "related", "referenced_by"],
    }
    for view, fields in expected.items():
        result = find_docs(project, view=view, format="json")
        assert isinstance(result, dict)
        assert all(list(row) == fields for row in result["docs"]), view
        assert [o["field"] for o in result["omitted"]] == [f for f in ("path", "aliases", "related", "referenced_by") if f not in fields]
        related = find_docs(project, view=view, related_to="arch", format="json")
        assert isinstance(related, dict)
        assert all(list(row) == [*fields, "relations"] for row in related["docs"]), view
    counted = find_docs(project, count_only=True, format="json")
    assert list(counted) == ["total", "total_chars", "tag_counts", "warnings"]


def test_related_entries_as_written(project: Path) -> None:
    result = find_docs(project, text="アーキテクチャ", include=["related"], format="json")
    assert isinstance(result, dict)
    assert result["docs"][0]["related"] == [
        {"to": "cli", "type": "references", "when": "CLI の引数を説明するとき"},
        {"to": "api", "type": "change_together", "when": "公開 API を変えたとき", "paths": ["../src/api/**"]},
        {"to": "glossary", "type": None, "when": None},
    ]


def test_relations_rule_one_null_relation_only_where_no_index_relation(project: Path) -> None:
    result = find_docs(project, related_to="arch", format="json")
    assert isinstance(result, dict)
    rel = {d["id"]: d["relations"] for d in result["docs"]}
    # api mentions アーキテクチャ in its text, but the index already relates it that way: no null.
    assert rel["api"] == [
        {"direction": "outgoing", "type": "change_together", "when": "公開 API を変えたとき"},
        {"direction": "incoming", "type": "change_together", "when": "公開 API を変えたとき"},
    ]
    # guide links to arch and names it: still one relation.
    assert rel["guide"] == [{"direction": "incoming", "type": None, "when": None}]
    # plan: written order within a direction (references before part_of), reverse names.
    assert rel["plan"] == [
        {"direction": "incoming", "type": "referenced_by", "when": "言葉をそろえるとき"},
        {"direction": "incoming", "type": "has_part", "when": "全体の一部として読むとき"},
    ]
    # faq: "architecture" occurs as a word; "APIs" is not the alias "API".
    assert rel["faq"] == [{"direction": "incoming", "type": None, "when": None}]
    api = find_docs(project, related_to="api", format="json")
    assert isinstance(api, dict)
    assert "faq" not in [d["id"] for d in api["docs"]]


def test_related_to_without_a_close_id_reads_well(project: Path) -> None:
    with pytest.raises(MdmarkError) as caught:
        find_docs(project, related_to="zzzzzzzz")
    assert caught.value.message == "related_to の `zzzzzzzz` は索引の文書の ID に無いので、索引の docs の id を渡してください。"


def test_limit_takes_an_integral_number(project: Path) -> None:
    # JSON Schema counts 5.0 as an integer; the library takes it as 5 for every front-end.
    assert find_docs(project, limit=5.0, format="json") == find_docs(project, limit=5, format="json")
