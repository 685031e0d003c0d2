"""``mdmark check``: one golden fixture project per drift kind, output formats, exit codes.

Every folder under ``tests/fixtures/check/`` is a small project (config + index + documents) with
an ``expected.txt`` holding the exact text output of ``mdmark check`` run in it. The projects are
copied to a temporary folder first, so the parse cache never lands in the repository and the test
can prove that check writes nothing but its cache.

Regenerate the expected files after an intended change with ``MDMARK_REGEN=1 pytest
tests/test_check.py`` and review the diff.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_golden, mdmark_on_a_terminal, run_mdmark, trust_project
from mdmark.check.collect import check, collect
from mdmark.core.diagnostics import DRIFT_KINDS, Diagnostic
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.project.main import Project

CHECK_FIXTURES = FIXTURES / "check"
CASES = sorted(p.name for p in CHECK_FIXTURES.iterdir() if p.is_dir())


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(
        CHECK_FIXTURES / name, target, ignore=shutil.ignore_patterns("expected.txt", ".mdmark_cache")
    )
    if (target / "conf.py").is_file():
        trust_project(target / "mdmark.config.yaml")  # the fixture's results need its conf.py run
    return target


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file but the parse cache, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".mdmark_cache" not in p.relative_to(folder).parts
    }


def count_line(n: int) -> str:
    return f"ずれが {n} 件見つかりました。\n" if n else "ずれは見つかりませんでした。\n"


@pytest.mark.parametrize("name", CASES)
def test_fixture_text_output(name: str, tmp_path: Path) -> None:
    project = copy_fixture(name, tmp_path)
    before = snapshot(project)
    result = run_mdmark("check", cwd=project)
    expected_file = CHECK_FIXTURES / name / "expected.txt"
    assert_golden(result.stdout, expected_file)
    expected = expected_file.read_text(encoding="utf-8")
    lines = expected.splitlines()
    assert result.returncode == (1 if lines else 0), result.stderr
    assert result.stderr == count_line(len(lines))
    # check writes nothing but its parse cache
    assert snapshot(project) == before


@pytest.mark.parametrize("kind", [k for k in DRIFT_KINDS if k != "missed_change_together"])
def test_every_kind_has_a_fixture_that_shows_it(kind: str) -> None:
    """The fixture named after a kind reports that kind (missed_change_together: test_check_base)."""
    lines = (CHECK_FIXTURES / kind / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert any(f": {kind}: " in line for line in lines)


LINE = re.compile(r"^(?P<file>[^:]+)(?::(?P<where>[^:]+))?: (?P<kind>[a-z_]+): (?P<message>.+)$")


@pytest.mark.parametrize("name", CASES)
def test_every_message_is_one_japanese_sentence(name: str) -> None:
    for line in (CHECK_FIXTURES / name / "expected.txt").read_text(encoding="utf-8").splitlines():
        match = LINE.match(line)
        assert match, line
        assert match["kind"] in DRIFT_KINDS
        message = match["message"]
        assert message.endswith("。"), line
        # one sentence: the only full stop is the last character (quoted text aside)
        unquoted = re.sub(r"`[^`]*`|（[^）]*）", "", message)
        assert unquoted.count("。") == 1, line


def test_combined_ordering(tmp_path: Path) -> None:
    """config (by line), then the index (file order), then documents (index order, then by path)."""
    project = copy_fixture("combined", tmp_path)
    result = run_mdmark("check", cwd=project)
    rows = [LINE.match(line) for line in result.stdout.splitlines()]
    assert all(rows)
    files = [m["file"] for m in rows if m]
    # the config first, then the index, then b.md and a.md (index order), n.md, then by path
    order = ["mdmark.config.yaml", "docs/index.yaml", "docs/b.md", "docs/a.md", "docs/notes/extra.md", "docs/zz.md"]
    assert [f for i, f in enumerate(files) if i == 0 or files[i - 1] != f] == order
    kinds = {m["kind"] for m in rows if m}
    assert len(kinds) >= 12
    for file in set(files):
        lines = [int(m["where"]) for m in rows if m and m["file"] == file and (m["where"] or "").isdigit()]
        assert lines == sorted(lines)


def test_json_format_is_the_mcp_shape(tmp_path: Path) -> None:
    project = copy_fixture("combined", tmp_path)
    result = run_mdmark("check", "--format", "json", cwd=project)
    assert result.returncode == 1
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert list(data) == ["issues"]
    expected = (CHECK_FIXTURES / "combined" / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert [Diagnostic(i["file"], i["where"], i["kind"], i["message"]).text_line() for i in data["issues"]] == expected
    # a drift of the whole file names no place: `docs/notes/extra.md: unindexed_doc: …`, not `…md:: …`
    assert any(not i["where"] for i in data["issues"]) and not any("::" in line for line in expected)
    for issue in data["issues"]:
        assert list(issue) == ["file", "where", "kind", "message"]
        assert all(isinstance(v, str) for v in issue.values())
    # the library function the MCP tool calls returns the very same list
    assert check(project) == data


def test_json_format_without_drift(tmp_path: Path) -> None:
    project = copy_fixture("unknown_tag-no-vocabulary", tmp_path)
    result = run_mdmark("check", "--format", "json", cwd=project)
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"issues": []}


def test_github_format(tmp_path: Path) -> None:
    project = copy_fixture("title_mismatch", tmp_path)
    result = run_mdmark("check", "--format", "github", cwd=project)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "::warning file=index.yaml,line=4,col=5,endColumn=19,title=mdmark title_mismatch::索引の title `アーキテクチャ` と文書 `docs/a.md` の最初の見出し `アーキテクチャの概要` が違うので、どちらかに合わせてください。",
        "::warning file=index.yaml,line=7,col=5,endColumn=20,title=mdmark title_mismatch::文書 `docs/b.md` に見出しが無いので、索引の title に合わせて先頭に `# 見出しの無い文書` を書いてください。",
        "::warning file=index.yaml,line=24,col=5,endColumn=17,title=mdmark title_mismatch::索引の title `概要（e）` と文書 `docs/e.md` の最初の見出し `概要` が違うので、どちらかに合わせてください。",
    ]
    assert result.stderr == count_line(3)


def test_github_format_paths_relative_to_workspace_and_escaped(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    project = copy_fixture("config_key", repo)
    sub = project / "docs"
    result = run_mdmark("check", "--format", "github", cwd=sub, env={"GITHUB_WORKSPACE": str(repo)})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=config_key/mdmark.config.yaml,line=2,col=1,endColumn=6,title=mdmark config_key::")
    # a message never breaks the annotation: no raw newline, % escaped
    assert all(line.startswith("::warning file=config_key/mdmark.config.yaml,line=") for line in lines)


def test_github_format_without_workspace_is_relative_to_cwd(tmp_path: Path) -> None:
    project = copy_fixture("missing_image", tmp_path)
    # run from the parent folder with an explicit config: paths are relative to where it ran
    result = run_mdmark(
        "check", "--format", "github", "--config", "missing_image/mdmark.config.yaml", cwd=tmp_path, env={"GITHUB_WORKSPACE": ""}
    )
    assert result.returncode == 1
    assert result.stdout.splitlines()[0].startswith("::warning file=missing_image/docs/a.md,line=4,col=1,endColumn=23,title=mdmark missing_image::")
    assert project.is_dir()


DEDENTED_INDEX = "docs:\n" + "".join(
    f"  - id: d{n}\n    path: docs/d{n}.md\n    title: 文書 {n}\n" for n in range(12)
) + "  - id: late\n    path: docs/late.md\n   title: 字下げがずれた\n"


@pytest.mark.parametrize(
    ("index", "where", "detail"),
    [
        # A dedented key 40 lines down is at line 40 (not a span from the list's start).
        (DEDENTED_INDEX, "40 行 4 文字目", "字下げが前の行と合わない"),
        # An unclosed bracket at the end of the file: the end of its last line.
        ("docs:\n  - id: a\n    path: [\n", "3 行 12 文字目", "閉じないままファイルが終わった"),
    ],
    ids=["dedented-key", "unclosed-bracket"],
)
def test_index_not_yaml_is_exit_2_at_the_parsers_line_and_column(tmp_path: Path, index: str, where: str, detail: str) -> None:
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(index, encoding="utf-8")
    result = run_mdmark("check", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"`index.yaml` の {where}が YAML として読めない（{detail}）ので、その行の字下げや括弧・引用符を直してください。\n"


def test_github_format_annotates_a_failure_that_stops_the_check(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    project = repo / "site"
    project.mkdir(parents=True)
    assert run_mdmark("init", cwd=project).returncode == 0
    (project / "index.yaml").write_text(DEDENTED_INDEX, encoding="utf-8")
    result = run_mdmark("check", "--format", "github", cwd=project, env={"GITHUB_WORKSPACE": str(repo)})
    assert result.returncode == 2
    sentence = result.stderr.strip()
    assert result.stdout == f"::error file=site/index.yaml,line=40,col=4,title=mdmark check::{sentence}\n"
    # No config at all: the annotation has no file, the sentence is the same one.
    bare = tmp_path / "bare"
    bare.mkdir()
    result = run_mdmark("check", "--format", "github", cwd=bare, env={"GITHUB_WORKSPACE": str(bare)})
    assert result.returncode == 2
    assert result.stdout == f"::error title=mdmark check::{result.stderr.strip()}\n"
    # The other formats print nothing on stdout for it.
    assert run_mdmark("check", cwd=project).stdout == ""


def test_github_escaping() -> None:
    from mdmark.cli.commands.check import github_line
    from mdmark.core.diagnostics import Diagnostic

    line = github_line(Diagnostic("a,b:c.md", "3", "syntax", "100% 誤り\n次", 3), Path("/w"), Path("/w"))
    assert line == "::warning file=a%2Cb%3Ac.md,line=3,title=mdmark syntax::100%25 誤り%0A次"
    no_line = github_line(Diagnostic("x.yaml", "docs[0]", "index_schema", "文。", None), Path("/w"), Path("/w"))
    assert no_line == "::warning file=x.yaml,title=mdmark index_schema::docs[0]: 文。"


def test_init_starter_checks_clean(tmp_path: Path) -> None:
    assert run_mdmark("init", cwd=tmp_path).returncode == 0
    result = run_mdmark("check", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", count_line(0))
    result = run_mdmark("check", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"issues": []}
    assert check(tmp_path) == {"issues": []}


def test_check_from_a_subfolder_finds_the_config(tmp_path: Path) -> None:
    project = copy_fixture("missing_doc", tmp_path)
    result = run_mdmark("check", cwd=project / "docs" / "guide")
    assert result.stdout == (CHECK_FIXTURES / "missing_doc" / "expected.txt").read_text(encoding="utf-8")


# -- could not check: exit 2, one sentence on stderr, nothing on stdout ---------------------------


def test_no_config_anywhere(tmp_path: Path) -> None:
    result = run_mdmark("check", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "mdmark.config.yaml" in result.stderr and "mdmark init" in result.stderr
    assert str(tmp_path) in result.stderr
    with pytest.raises(MdmarkError) as info:
        check(tmp_path)
    assert info.value.exit_code == 2


def test_explicit_config_missing(tmp_path: Path) -> None:
    result = run_mdmark("check", "--config", "nope.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert "`nope.yaml`" in result.stderr and "mdmark init" in result.stderr


def test_config_not_yaml_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\ndocs: [a\n  b: c\n", encoding="utf-8")
    result = run_mdmark("check", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert re.search(r"`mdmark.config.yaml` の 3 行 \d+ 文字目が YAML として読めない（2 行 \d+ 文字目で始まった `\[` の並び", result.stderr), result.stderr


def test_bad_format_is_usage_error(tmp_path: Path) -> None:
    result = run_mdmark("check", "--format", "xml", cwd=tmp_path)
    assert result.returncode == 2


def test_help_lists_every_kind(tmp_path: Path) -> None:
    result = run_mdmark("check", "--help", cwd=tmp_path)
    assert result.returncode == 0
    for kind in DRIFT_KINDS:
        assert kind in result.stdout


# -- the library: facts from the caller (the Sphinx extension) ----------------------------------


def test_collect_uses_the_facts_it_is_given(tmp_path: Path) -> None:
    project_dir = copy_fixture("title_mismatch", tmp_path)
    project = Project.open(project_dir)
    asked: list[list[Path]] = []

    def facts(paths: list[Path]) -> list[DocFacts]:
        asked.append(list(paths))
        return [DocFacts(path=p.relative_to(project_dir).as_posix(), sha="x", title="アーキテクチャ") for p in paths]

    diagnostics = collect(project, facts=facts)
    assert all(p.is_absolute() for batch in asked for p in batch)
    assert [p.relative_to(project_dir).as_posix() for p in asked[0]] == [
        "docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md", "docs/guide/intro.md", "docs/api/intro.md", "docs/e.md",
    ]  # fmt: skip
    # every document now "has" the heading アーキテクチャ: a matches, the others do not
    assert [(d.where, d.kind) for d in diagnostics] == [(f"docs[{n}].title", "title_mismatch") for n in range(1, 7)]
    assert diagnostics[0].line == 7
    # the default pipeline was not used
    assert not (project_dir / ".mdmark_cache").exists()


def test_progress_on_a_terminal_only_for_text(tmp_path: Path) -> None:
    """Like build, check counts the documents it reads on a terminal, erases the line, and says
    nothing of the kind with --format json (or when stderr is a pipe: every other test)."""
    project = copy_fixture("broken_link", tmp_path)
    code, out, err = mdmark_on_a_terminal("check", cwd=project)
    assert code == 1
    assert re.search(r"\r文書を読んでいます (\d+)/\1\x1b\[K", err)
    assert "\r\x1b[K" in err and "ずれが" in err
    assert "文書を読んでいます" not in out
    code, out, err = mdmark_on_a_terminal("check", "--format", "json", cwd=project)
    assert code == 1 and json.loads(out)["issues"]
    assert "文書を読んでいます" not in err
