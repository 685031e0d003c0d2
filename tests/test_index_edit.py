"""update_index: byte-exact span edits, schema rejections that change nothing, the tags-key rules,
concurrent writers from threads and processes, and the ``mdmark index`` commands."""

from __future__ import annotations

import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import FIXTURES, run_mdmark
from mdmark.core.errors import MdmarkError
from mdmark.index.model import index_problems
from mdmark.queries.edit_index import edit_index_text, update_index

EDIT = FIXTURES / "query" / "edit"
ORIGINAL = (EDIT / "docs" / "index.yaml").read_text(encoding="utf-8")

ARCH_ITEM = """\
  - id: arch            # 先頭の文書
    title: 'アーキテクチャ'
    path: "設計/arch.md"
    tags:
      - {name: 設計, main: true}
    related:
      - {to: cli, type: references, when: "CLI の引数を説明するとき"}
"""
CLI_ITEM = """\
  - id: cli
    path: cli.md
    title: CLI の使い方
    description: |
      複数行の
      説明
    related:
      - arch
"""
API_ITEM = """\
  - id: api
    path: api.md
    title: "公開 API"   # 引用符つき
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "edit"
    shutil.copytree(EDIT, root)
    return root


def index_text(project: Path) -> str:
    return (project / "docs" / "index.yaml").read_text(encoding="utf-8")


def test_fixture_items_are_where_the_tests_expect() -> None:
    assert ARCH_ITEM in ORIGINAL and CLI_ITEM in ORIGINAL and API_ITEM in ORIGINAL
    assert index_problems(yaml.safe_load(ORIGINAL)) == []


# -- byte-exact edits ----------------------------------------------------------------------------------


def test_replace_changes_only_the_item_bytes(project: Path) -> None:
    item = {"path": "cli.md", "title": "CLI", "tags": ["設計", {"name": "旧タグ", "main": True}],
            "related": [{"to": "arch", "type": "requires", "when": "構成を変えたとき", "paths": ["src/**"]}]}
    assert update_index(project, "doc", "cli", item) == {"action": "replaced", "index": "docs/index.yaml"}
    new = index_text(project)
    rendered = """\
  - id: cli
    path: cli.md
    title: CLI
    tags:
      - 設計
      - {name: 旧タグ, main: true}
    related:
      - to: arch
        type: requires
        when: 構成を変えたとき
        paths: [src/**]
"""
    start = ORIGINAL.index(CLI_ITEM)
    # Every byte before and after the item's span is the original's.
    assert new[:start] == ORIGINAL[:start]
    assert new[start + len(rendered) :] == ORIGINAL[start + len(CLI_ITEM) :]
    assert new[start : start + len(rendered)] == rendered
    assert yaml.safe_load(new)["docs"][1] == {"id": "cli", **item}


def test_replace_first_item_keeps_the_comment_line_after_it(project: Path) -> None:
    update_index(project, "doc", "arch", {"path": "a.md", "title": "A"})
    new = index_text(project)
    assert new == ORIGINAL.replace(ARCH_ITEM, "  - id: arch\n    path: a.md\n    title: A\n")
    assert "\n  # CLI の文書\n" in new


def test_append_adds_after_the_last_item_only(project: Path) -> None:
    result = update_index(project, "doc", "b", {"path": "b.md", "title": "文書 B", "aliases": ["B", "びー"]})
    assert result == {"action": "added", "index": "docs/index.yaml"}
    new = index_text(project)
    added = "  - id: b\n    path: b.md\n    title: 文書 B\n    aliases: [B, びー]\n"
    assert new == ORIGINAL.replace(API_ITEM, API_ITEM + added)


def test_remove_deletes_only_the_item_lines(project: Path) -> None:
    assert update_index(project, "doc", "cli", None) == {"action": "removed", "index": "docs/index.yaml"}
    assert index_text(project) == ORIGINAL.replace(CLI_ITEM, "")
    update_index(project, "doc", "api", None)
    assert index_text(project) == ORIGINAL.replace(CLI_ITEM, "").replace(API_ITEM, "")


def test_flow_list_items_are_edited_in_flow_style(project: Path) -> None:
    flow = "terms: [{id: project-dir, term: 作業のフォルダ}, {id: cursor, term: カーソル, aliases: [cursor]}]"
    update_index(project, "term", "cursor", {"term": "続きの位置", "docs": ["api"]})
    line = "terms: [{id: project-dir, term: 作業のフォルダ}, {id: cursor, term: 続きの位置, docs: [api]}]"
    assert index_text(project) == ORIGINAL.replace(flow, line)
    update_index(project, "term", "limit", {"term": "件数", "definition": "1 回に返す数"})
    line2 = line[:-1] + ", {id: limit, term: 件数, definition: 1 回に返す数}]"
    assert index_text(project) == ORIGINAL.replace(flow, line2)
    update_index(project, "term", "project-dir", None)
    line3 = "terms: [{id: cursor, term: 続きの位置, docs: [api]}, {id: limit, term: 件数, definition: 1 回に返す数}]"
    assert index_text(project) == ORIGINAL.replace(flow, line3)
    update_index(project, "term", "limit", None)
    update_index(project, "term", "cursor", None)
    # terms is not the tags list: its key stays, as an empty list the schema accepts.
    assert index_text(project) == ORIGINAL.replace(flow, "terms: []")
    update_index(project, "term", "x", {"term": "X"})
    assert index_text(project) == ORIGINAL.replace(flow, "terms: [{id: x, term: X}]")


def test_tag_items_keep_neighbours_and_comments(project: Path) -> None:
    update_index(project, "tag", "旧タグ", {"deprecated": "設計", "description": "含める: なし"})
    assert index_text(project) == ORIGINAL.replace(
        "  - name: 旧タグ\n    deprecated: 設計\n", "  - name: 旧タグ\n    deprecated: 設計\n    description: '含める: なし'\n"
    )


def test_strings_that_need_quotes_stay_the_same_value(project: Path) -> None:
    tricky = {"path": "yes.md", "title": "true", "description": "a: b # c", "aliases": ["null", "123", "'q'"]}
    update_index(project, "doc", "yes", tricky)
    assert yaml.safe_load(index_text(project))["docs"][-1] == {"id": "yes", **tricky}


# -- the terms/tags key rules ----------------------------------------------------------------------------


def _write_index(project: Path, text: str) -> Path:
    path = project / "docs" / "index.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_terms_and_tags_keys_are_created_at_the_end(project: Path) -> None:
    base = "# 文書だけ\ndocs:\n- id: a\n  path: a.md\n  title: A\n# 末尾\n"
    _write_index(project, base)
    update_index(project, "tag", "設計", {"group": "area"})
    assert index_text(project) == base + "tags:\n- name: 設計\n  group: area\n"
    update_index(project, "term", "t", {"term": "用語"})
    assert index_text(project) == base + "tags:\n- name: 設計\n  group: area\nterms:\n- id: t\n  term: 用語\n"


def test_missing_key_in_an_empty_index_and_without_final_newline(project: Path) -> None:
    _write_index(project, "")
    update_index(project, "doc", "a", {"path": "a.md", "title": "A"})
    assert index_text(project) == "docs:\n  - id: a\n    path: a.md\n    title: A\n"
    _write_index(project, "docs: []")
    update_index(project, "tag", "x", {})
    assert index_text(project) == "docs: []\ntags:\n  - name: x\n"


def test_removing_the_last_tag_removes_the_tags_key(project: Path) -> None:
    update_index(project, "tag", "設計", None)
    update_index(project, "tag", "旧タグ", None)
    tags_block = "tags:\n  - name: 設計\n    group: area   # グループ\n  - name: 旧タグ\n    deprecated: 設計\n"
    assert tags_block in ORIGINAL
    assert index_text(project) == ORIGINAL.replace(tags_block, "")
    assert "tags" not in yaml.safe_load(index_text(project))


def test_removing_the_last_flow_tag_removes_the_tags_key(project: Path) -> None:
    _write_index(project, "docs: []\ntags: [{name: x}]  # 語彙\nterms: []\n")
    update_index(project, "tag", "x", None)
    assert index_text(project) == "docs: []\nterms: []\n"


def test_empty_or_null_list_value_gets_block_items(project: Path) -> None:
    _write_index(project, "docs: []\ntags:   # まだ無い\nterms: []\n")
    with pytest.raises(MdmarkError) as caught:  # `tags:` is null, which the schema refuses
        update_index(project, "doc", "a", {"path": "a.md", "title": "A"})
    assert caught.value.message == "tags: タグの語彙の項目の並びで書いてください（いまはnullです）。" or caught.value.message.startswith("tags: ")
    update_index(project, "tag", "x", {"group": "g"})
    assert index_text(project) == "docs: []\ntags:   # まだ無い\n  - name: x\n    group: g\nterms: []\n"
    update_index(project, "doc", "a", {"path": "a.md", "title": "A"})
    assert index_text(project) == "docs: [{id: a, path: a.md, title: A}]\ntags:   # まだ無い\n  - name: x\n    group: g\nterms: []\n"


# -- rejections change nothing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "item_id", "item", "message"),
    [
        (
            "doc", "cli", {"path": "cli.md", "title": "CLI", "related": ["arch"]},
            "docs[1].related[0]: 関連は to・type・when（と任意の paths）を持つオブジェクトで渡してください（いまは文字列です）。",
        ),
        (
            "doc", "cli", {"path": "cli.md", "title": "CLI", "related": [{"to": "arch", "type": "requires"}]},
            "docs[1].related[0]: 必須のキー `when` が無いので、書き足してください。",
        ),
        (
            "doc", "new", {"path": "n.md", "title": "N", "related": [{"type": "requires", "when": "w"}, {"to": "arch", "type": "uses", "when": "w"}]},
            "docs[3].related[0]: 必須のキー `to` が無いので、書き足してください。\n"
            "docs[3].related[1].type: 関係の種類 `uses` は使えないので、近い `requires` か、`requires`・`references`・`replaces`・`part_of`・`change_together` のどれかにしてください。",
        ),
        (
            "doc", "api", {"path": "api.md"},
            "docs[2]: 必須のキー `title` が無いので、書き足してください。",
        ),
        (
            "doc", "api", {"path": "api.md", "title": "API", "tag": ["x"], "aliases": "API"},
            "docs[2].tag: 知らないキー `tag` なので、近い `tags` に直すか、消してください。\n"
            "docs[2].aliases: 文字列の並びで書いてください（いまは文字列です）。",
        ),
        (
            "term", "cursor", {"term": "", "docs": [1]},
            "terms[1].term: 空の文字列なので、値を書いてください。\nterms[1].docs[0]: 文字列で書いてください（いまは整数です）。",
        ),
        (
            "tag", "設計", {"deprecated": "", "colour": "red"},
            "tags[0].deprecated: 空の文字列なので、値を書いてください。\ntags[0].colour: 知らないキー `colour` なので、キーの名前を直すか、消してください。",
        ),
    ],
)
def test_schema_rejections_leave_the_file_identical(project: Path, kind: str, item_id: str, item: dict[str, Any], message: str) -> None:
    path = project / "docs" / "index.yaml"
    before = path.read_bytes()
    with pytest.raises(MdmarkError) as caught:
        update_index(project, kind, item_id, item)
    assert caught.value.message == message
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["index.yaml"]  # no temp or lock file left


def test_the_whole_resulting_index_is_validated(project: Path) -> None:
    broken = ORIGINAL.replace("    deprecated: 設計\n", "    deprecated: 3\n")
    path = _write_index(project, broken)
    with pytest.raises(MdmarkError) as caught:
        update_index(project, "doc", "b", {"path": "b.md", "title": "B", "tags": [{"name": "x", "main": "yes"}]})
    assert caught.value.message == (
        "docs[3].tags[0].main: 真偽値（true か false）で書いてください（いまは文字列です）。\n"
        "tags[1].deprecated: 文字列で書いてください（いまは整数です）。"
    )
    assert path.read_text(encoding="utf-8") == broken


def test_drift_is_not_checked(project: Path) -> None:
    # Unknown documents, unknown tags and missing files are drift for check, not schema errors.
    item = {"path": "nowhere.md", "title": "X", "tags": ["語彙に無い"], "related": [{"to": "ghost", "type": "requires", "when": "w"}]}
    assert update_index(project, "doc", "x", item)["action"] == "added"


@pytest.mark.parametrize(
    ("kind", "item_id", "item", "message"),
    [
        ("doc", "ghost", None, "ID が `ghost` の項目は索引の docs に無いので、docs にある ID を渡してください。"),
        ("doc", "clj", None, "ID が `clj` の項目は索引の docs に無いので、docs にある ID（近い ID: `cli`）を渡してください。"),
        ("tag", "新タグ", None, "name が `新タグ` の項目は索引の tags に無いので、tags にある name（近い名前: `旧タグ`）を渡してください。"),
        ("term", "x", None, "ID が `x` の項目は索引の terms に無いので、terms にある ID を渡してください。"),
        ("docs", "a", {}, "kind の `docs` は使えないので、近い `doc` か、`doc`・`term`・`tag` のどれかにしてください。"),
        ("doc", " ", {}, "id が空なので、文書か用語の ID（kind が tag のときはタグの name）を渡してください。"),
        ("doc", 3, {}, "id は文字列で渡してください（いまは整数です）。"),
        ("doc", "a", ["x"], "item はキーと値の組（項目を消すときは null）で渡してください（いまは並びです）。"),
        ("doc", "a", {"id": "b", "path": "a.md", "title": "A"}, "item の id `b` が引数の id `a` と違うので、item の id を省くか同じにしてください。"),
        ("tag", "a", {"name": "b"}, "item の name `b` が引数の id `a` と違うので、item の name を省くか同じにしてください。"),
    ],
)
def test_bad_arguments_and_missing_ids(project: Path, kind: Any, item_id: Any, item: Any, message: str) -> None:
    before = (project / "docs" / "index.yaml").read_bytes()
    with pytest.raises(MdmarkError) as caught:
        update_index(project, kind, item_id, item)
    assert caught.value.message == message
    assert (project / "docs" / "index.yaml").read_bytes() == before


def test_item_may_repeat_its_own_id(project: Path) -> None:
    update_index(project, "doc", "api", {"id": "api", "path": "api.md", "title": "API"})
    assert yaml.safe_load(index_text(project))["docs"][2] == {"id": "api", "path": "api.md", "title": "API"}


def test_config_and_index_failures_write_nothing(tmp_path: Path) -> None:
    with pytest.raises(MdmarkError) as caught:
        update_index(tmp_path, "doc", "a", {"path": "a.md", "title": "A"}, config="none.yaml")
    assert "none.yaml" in caught.value.message
    (tmp_path / "mdmark.config.yaml").write_text("markdown: {}\n", encoding="utf-8")
    with pytest.raises(MdmarkError, match="index が無いので"):
        update_index(tmp_path, "doc", "a", {"path": "a.md", "title": "A"})
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    with pytest.raises(MdmarkError, match="見つかりません|見つからない"):
        update_index(tmp_path, "doc", "a", {"path": "a.md", "title": "A"})
    (tmp_path / "index.yaml").write_text("docs: [\n", encoding="utf-8")
    with pytest.raises(MdmarkError, match="YAML"):
        update_index(tmp_path, "doc", "a", {"path": "a.md", "title": "A"})
    assert (tmp_path / "index.yaml").read_text(encoding="utf-8") == "docs: [\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.yaml", "mdmark.config.yaml"]


def test_index_outside_the_project_is_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.yaml").write_text("docs: []\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "mdmark.config.yaml").write_text("index: ../outside/index.yaml\n", encoding="utf-8")
    with pytest.raises(MdmarkError, match="外"):
        update_index(project, "doc", "a", {"path": "a.md", "title": "A"})
    assert (outside / "index.yaml").read_text(encoding="utf-8") == "docs: []\n"


def test_pure_edit_keeps_everything_outside_the_span() -> None:
    action, new = edit_index_text(ORIGINAL, "doc", "arch", None)
    assert action == "removed"
    assert new == ORIGINAL.replace(ARCH_ITEM, "")


# -- concurrency --------------------------------------------------------------------------------------------


def _ids(project: Path, key: str) -> list[str]:
    data = yaml.safe_load(index_text(project))
    return [item["id"] for item in data[key]]


def test_twenty_threads_never_lose_an_update(project: Path) -> None:
    barrier = threading.Barrier(20)

    def add(n: int) -> str:
        barrier.wait()
        return update_index(project, "doc", f"t{n:02d}", {"path": f"t{n}.md", "title": f"スレッド {n}"})["action"]

    with ThreadPoolExecutor(max_workers=20) as pool:
        actions = list(pool.map(add, range(20)))
    assert actions == ["added"] * 20
    assert sorted(_ids(project, "docs")) == sorted(["arch", "cli", "api", *(f"t{n:02d}" for n in range(20))])
    text = index_text(project)
    assert text.startswith(ORIGINAL.split(API_ITEM)[0] + API_ITEM)  # everything before stayed
    assert text.endswith(ORIGINAL.split(API_ITEM)[1])
    assert sorted(p.name for p in (project / "docs").iterdir()) == ["index.yaml"]


def test_twenty_processes_never_lose_an_update(project: Path) -> None:
    def add(n: int) -> int:
        item = json.dumps({"term": f"用語 {n}", "definition": f"プロセス {n} が足した"}, ensure_ascii=False)
        done = run_mdmark("index", "set", "term", f"p{n:02d}", "--item", item, "--format", "json", cwd=project / "docs")
        assert done.stderr == ""
        assert json.loads(done.stdout) == {"action": "added", "index": "docs/index.yaml"}
        return done.returncode

    with ThreadPoolExecutor(max_workers=20) as pool:
        codes = list(pool.map(add, range(20)))
    assert codes == [0] * 20
    assert sorted(_ids(project, "terms")) == sorted(["project-dir", "cursor", *(f"p{n:02d}" for n in range(20))])
    assert index_problems(yaml.safe_load(index_text(project))) == []


def test_threads_and_processes_together(project: Path) -> None:
    def by_process(n: int) -> None:
        done = run_mdmark("index", "set", "tag", f"proc{n}", "--item", '{"group": "p"}', cwd=project)
        assert done.returncode == 0, done.stderr

    def by_thread(n: int) -> None:
        update_index(project, "tag", f"thread{n}", {"group": "t"})

    with ThreadPoolExecutor(max_workers=20) as pool:
        futures = [pool.submit(by_process, n) for n in range(10)] + [pool.submit(by_thread, n) for n in range(10)]
        for future in futures:
            future.result()
    names = [t["name"] for t in yaml.safe_load(index_text(project))["tags"]]
    assert sorted(names) == sorted(["設計", "旧タグ", *(f"proc{n}" for n in range(10)), *(f"thread{n}" for n in range(10))])


# -- the CLI ---------------------------------------------------------------------------------------------------


def test_cli_set_and_remove(project: Path) -> None:
    done = run_mdmark("index", "set", "doc", "b", "--item", '{"path": "b.md", "title": "文書 B", "tags": ["設計"]}', cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "索引 `docs/index.yaml` の文書 `b` を足しました。\n"
    done = run_mdmark("index", "set", "doc", "b", "--item", '{"path": "b.md", "title": "文書 B"}', "--format", "json", cwd=project)
    assert done.stdout == '{"action": "replaced", "index": "docs/index.yaml"}\n'
    done = run_mdmark("index", "remove", "doc", "b", cwd=project)
    assert done.stdout == "索引 `docs/index.yaml` の文書 `b` を消しました。\n"
    done = run_mdmark("index", "set", "term", "t", "--item", '{"term": "用語"}', cwd=project)
    assert done.stdout == "索引 `docs/index.yaml` の用語 `t` を足しました。\n"
    done = run_mdmark("index", "remove", "term", "t", "--format", "json", cwd=project)
    assert done.stdout == '{"action": "removed", "index": "docs/index.yaml"}\n'
    assert index_text(project) == ORIGINAL


def test_cli_errors(project: Path) -> None:
    done = run_mdmark("index", "set", "doc", "b", "--item", "{path: b.md}", cwd=project)
    assert done.returncode == 1
    assert done.stderr == (
        "--item の 1 行 2 文字目が JSON として読めないので、'{\"path\": \"b.md\", \"title\": \"文書 B\"}' のような JSON のオブジェクトを渡してください。\n"
    )
    done = run_mdmark("index", "set", "doc", "b", "--item", "[1]", cwd=project)
    assert done.returncode == 1
    assert done.stderr == "--item は JSON のオブジェクトで渡してください（項目を消すときは `mdmark index remove` を使ってください）。\n"
    done = run_mdmark("index", "set", "doc", "cli", "--item", '{"path": "c.md", "title": "C", "related": ["arch"]}', cwd=project)
    assert done.returncode == 1
    assert done.stderr.startswith("docs[1].related[0]: ")
    done = run_mdmark("index", "remove", "tag", "無い", cwd=project)
    assert done.returncode == 1
    assert "tags に無い" in done.stderr
    assert index_text(project) == ORIGINAL


def test_ids_are_unique_only_within_their_own_list(project: Path) -> None:
    # A term `cursor` exists; a document `cursor` is another item, and a tag may share a doc's id.
    assert update_index(project, "doc", "cursor", {"path": "c.md", "title": "カーソル"})["action"] == "added"
    assert update_index(project, "tag", "cli", {"group": "topic"})["action"] == "added"
    data = yaml.safe_load(index_text(project))
    assert [t["id"] for t in data["terms"]] == ["project-dir", "cursor"]
    assert [d["id"] for d in data["docs"]] == ["arch", "cli", "api", "cursor"]
    assert [t["name"] for t in data["tags"]] == ["設計", "旧タグ", "cli"]


def test_a_failed_write_leaves_the_old_index_whole(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mdmark.util.files

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(mdmark.util.files.os, "replace", broken_replace)
    with pytest.raises(MdmarkError) as caught:
        update_index(project, "doc", "b", {"path": "b.md", "title": "B"})
    assert caught.value.message == "索引 `docs/index.yaml` を書き換えられない（No space left on device）ので、ファイルとフォルダの権限を確かめてください。"
    assert index_text(project) == ORIGINAL
    assert sorted(p.name for p in (project / "docs").iterdir()) == ["index.yaml"]
