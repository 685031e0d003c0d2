"""``mdmark check --base REF``: missed_change_together against real temporary git repositories."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_mdmark
from mdmark.check.collect import check
from mdmark.core.errors import MdmarkError

GIT_ENV = {
    "GIT_AUTHOR_NAME": "mdmark test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "mdmark test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
}

CONFIG = "index: docs/index.yaml\n"

# api ↔ cli change together (with the source files under src/api), guide ↔ faq too.
INDEX = """\
docs:
  - id: api
    path: api.md
    title: 公開 API
    related:
      - {to: cli, type: change_together, when: 引数を変えたとき, paths: ["../src/api/**"]}
  - id: cli
    path: cli.md
    title: CLI
    related:
      - {to: api, type: change_together, when: 引数を変えたとき}
  - id: guide
    path: guide.md
    title: 手引き
    related:
      - {to: faq, type: change_together, when: 手順を変えたとき}
  - id: faq
    path: faq.md
    title: よくある質問
    related:
      - {to: guide, type: change_together, when: 手順を変えたとき, paths: ["../src/setup.py"]}
"""

FILES = {
    "mdmark.config.yaml": CONFIG,
    "docs/index.yaml": INDEX,
    "docs/api.md": "# 公開 API\n",
    "docs/cli.md": "# CLI\n",
    "docs/guide.md": "# 手引き\n",
    "docs/faq.md": "# よくある質問\n",
    "src/api/server.py": "print('server')\n",
    "src/setup.py": "print('setup')\n",
    "README.txt": "readme\n",
}

API_CLI = "docs/index.yaml:docs[0].related[0]: missed_change_together: "
GUIDE_FAQ = "docs/index.yaml:docs[2].related[0]: missed_change_together: "


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True
    )
    return result.stdout


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        write(root, rel, text)
    commit(root, "base")
    git(root, "tag", "v1")
    return root


def drift(repo: Path, *extra: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_mdmark("check", *extra, cwd=cwd or repo, env=GIT_ENV)


def test_no_change_is_clean(repo: Path) -> None:
    result = drift(repo, "--base", "main")
    assert (result.returncode, result.stdout) == (0, "")


def test_both_sides_changed_is_clean(repo: Path) -> None:
    write(repo, "docs/api.md", "# 公開 API\n\n引数を足した。\n")
    write(repo, "docs/cli.md", "# CLI\n\n--new を足した。\n")
    commit(repo, "both")
    result = drift(repo, "--base", "v1")
    assert (result.returncode, result.stdout) == (0, "")


def test_one_side_changed_committed(repo: Path) -> None:
    write(repo, "docs/cli.md", "# CLI\n\n--new を足した。\n")
    commit(repo, "cli only")
    result = drift(repo, "--base", "v1")
    assert result.returncode == 1
    assert result.stdout == (
        API_CLI + "基準 `v1` から `cli.md` は変わったのに、change_together の組の `api.md` は変わっていないので、"
        "`api.md` も合わせて直してください。\n"
    )
    assert result.stderr == "ずれが 1 件見つかりました。\n"
    # without --base nothing is said about it
    assert drift(repo).stdout == ""


def test_pair_reported_once_even_when_written_on_both_sides(repo: Path) -> None:
    write(repo, "docs/api.md", "# 公開 API\n\n変えた。\n")
    write(repo, "docs/guide.md", "# 手引き\n\n変えた。\n")
    commit(repo, "two pairs, one side each")
    result = drift(repo, "--base", "HEAD~1")
    assert result.stdout.splitlines() == [
        API_CLI + "基準 `HEAD~1` から `api.md` は変わったのに、change_together の組の `cli.md` は変わっていないので、"
        "`cli.md` も合わせて直してください。",
        GUIDE_FAQ + "基準 `HEAD~1` から `guide.md` は変わったのに、change_together の組の `faq.md` は変わっていないので、"
        "`faq.md` も合わせて直してください。",
    ]


def test_only_a_paths_file_changed(repo: Path) -> None:
    write(repo, "src/api/server.py", "print('server v2')\n")
    commit(repo, "code only")
    result = drift(repo, "--base", "v1")
    assert result.returncode == 1
    assert result.stdout == (
        API_CLI + "基準 `v1` から paths に当たる `../src/api/server.py` は変わったのに、change_together の組の "
        "`api.md`・`cli.md` は変わっていないので、`api.md`・`cli.md` も合わせて直してください。\n"
    )


def test_paths_written_on_the_other_side_count_too(repo: Path) -> None:
    write(repo, "src/setup.py", "print('setup v2')\n")
    write(repo, "docs/guide.md", "# 手引き\n\n変えた。\n")
    commit(repo, "setup and guide")
    result = drift(repo, "--base", "v1")
    assert result.stdout == (
        GUIDE_FAQ + "基準 `v1` から `guide.md` は変わったのに、change_together の組の `faq.md` は変わっていないので、"
        "`faq.md` も合わせて直してください。\n"
    )


def test_paths_and_both_documents_changed_is_clean(repo: Path) -> None:
    write(repo, "src/api/server.py", "print('server v2')\n")
    write(repo, "docs/api.md", "# 公開 API\n\n変えた。\n")
    write(repo, "docs/cli.md", "# CLI\n\n変えた。\n")
    commit(repo, "all of it")
    assert drift(repo, "--base", "v1").returncode == 0


def test_unrelated_change_is_clean(repo: Path) -> None:
    write(repo, "README.txt", "changed\n")
    commit(repo, "readme")
    assert drift(repo, "--base", "v1").stdout == ""


def test_uncommitted_changes_count(repo: Path) -> None:
    # not staged
    write(repo, "docs/cli.md", "# CLI\n\n作業中。\n")
    result = drift(repo, "--base", "HEAD")
    assert result.stdout.startswith(API_CLI + "基準 `HEAD` から `cli.md` は変わったのに")
    # staged
    git(repo, "add", "docs/cli.md")
    assert drift(repo, "--base", "HEAD").stdout.startswith(API_CLI + "基準 `HEAD` から `cli.md` は変わったのに")
    # the other side changed in the working tree too: clean
    write(repo, "docs/api.md", "# 公開 API\n\n作業中。\n")
    assert drift(repo, "--base", "HEAD").returncode == 0


def test_untracked_file_under_paths_counts(repo: Path) -> None:
    write(repo, "src/api/new_endpoint.py", "print('new')\n")
    result = drift(repo, "--base", "main")
    assert result.stdout.startswith(API_CLI + "基準 `main` から paths に当たる `../src/api/new_endpoint.py` は変わったのに")
    # an ignored file is not a change
    (repo / "src/api/new_endpoint.py").unlink()
    write(repo, ".gitignore", "*.log\n")
    commit(repo, "ignore logs")
    write(repo, "src/api/debug.log", "noise\n")
    assert drift(repo, "--base", "HEAD").stdout == ""


def test_deleted_document_counts_as_changed(repo: Path) -> None:
    (repo / "src/api/server.py").unlink()
    result = drift(repo, "--base", "main")
    assert "paths に当たる `../src/api/server.py`" in result.stdout


def test_json_and_library_with_base(repo: Path) -> None:
    write(repo, "docs/cli.md", "# CLI\n\n変えた。\n")
    result = drift(repo, "--base", "main", "--format", "json")
    issues = json.loads(result.stdout)["issues"]
    assert [(i["file"], i["where"], i["kind"]) for i in issues] == [
        ("docs/index.yaml", "docs[0].related[0]", "missed_change_together")
    ]
    assert check(repo, base="main") == {"issues": issues}


def test_config_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for rel, text in FILES.items():
        write(root / "design", rel, text)
    commit(root, "base")
    write(root, "design/docs/api.md", "# 公開 API\n\n変えた。\n")
    write(root, "other/file.txt", "elsewhere\n")
    # run from the repository root with an explicit config, and from inside the docs folder
    result = run_mdmark("check", "--config", "design/mdmark.config.yaml", "--base", "main", cwd=root, env=GIT_ENV)
    assert result.stdout.startswith(API_CLI + "基準 `main` から `api.md` は変わったのに")
    result = run_mdmark("check", "--base", "main", cwd=root / "design" / "docs", env=GIT_ENV)
    assert result.stdout.startswith(API_CLI)


def test_disable_missed_change_together(repo: Path) -> None:
    write(repo, "mdmark.config.yaml", CONFIG + "check:\n  disable: [missed_change_together]\n")
    write(repo, "docs/cli.md", "# CLI\n\n変えた。\n")
    assert drift(repo, "--base", "main").returncode == 0


# -- could not compare: exit 2, one sentence, no drift check --------------------------------------


def test_bad_ref(repo: Path) -> None:
    write(repo, "docs/index.yaml", INDEX + "  - id: broken\n    path: nowhere.md\n    title: 無い\n")
    result = drift(repo, "--base", "no-such-branch")
    assert result.returncode == 2
    assert result.stdout == ""  # no drift check at all, though the index has drift
    assert result.stderr.count("\n") == 1
    assert "`no-such-branch`" in result.stderr and "git" in result.stderr
    with pytest.raises(MdmarkError) as info:
        check(repo, base="no-such-branch")
    assert info.value.exit_code == 2
    assert info.value.message == result.stderr.strip()


@pytest.mark.parametrize("ref", ["", "--all", "main..v1", "HEAD~99"])
def test_refs_that_name_no_commit(repo: Path, ref: str) -> None:
    result = drift(repo, "--base", ref) if ref != "--all" else drift(repo, f"--base={ref}")
    assert result.returncode == 2
    assert result.stdout == ""


def test_ref_to_a_tree_object_is_refused(repo: Path) -> None:
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    result = drift(repo, "--base", tree)
    assert result.returncode == 2


def test_not_a_git_repository(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    for rel, text in FILES.items():
        write(project, rel, text)
    env = {**GIT_ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result = run_mdmark("check", "--base", "main", cwd=project, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "git のリポジトリ" in result.stderr and "`--base`" in result.stderr
    assert result.stderr.count("\n") == 1
    # without --base the same project checks fine
    assert run_mdmark("check", cwd=project, env=env).returncode == 0


def test_japanese_file_names(tmp_path: Path) -> None:
    root = tmp_path / "ja"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, "mdmark.config.yaml", "index: 索引.yaml\n")
    write(
        root,
        "索引.yaml",
        "docs:\n"
        "  - id: 設計\n    path: 文書/設計.md\n    title: 設計\n"
        "    related: [{to: 手順, type: change_together, when: 変えたとき, paths: [ソース/**]}]\n"
        "  - id: 手順\n    path: 文書/手順.md\n    title: 手順\n"
        "    related: [{to: 設計, type: change_together, when: 変えたとき}]\n",
    )
    write(root, "文書/設計.md", "# 設計\n")
    write(root, "文書/手順.md", "# 手順\n")
    write(root, "ソース/本体.py", "x = 1\n")
    commit(root, "base")
    write(root, "ソース/本体.py", "x = 2\n")
    result = run_mdmark("check", "--base", "main", cwd=root, env=GIT_ENV)
    assert result.stdout == (
        "索引.yaml:docs[0].related[0]: missed_change_together: 基準 `main` から paths に当たる `ソース/本体.py` は変わったのに、"
        "change_together の組の `文書/設計.md`・`文書/手順.md` は変わっていないので、`文書/設計.md`・`文書/手順.md` も合わせて直してください。\n"
    )


# -- a stranger's repository: nothing it configures runs (issue 37) --------------------------------


def _trap(tmp_path: Path) -> tuple[Path, Path]:
    """A program that appends to a marker file when run (and passes stdin through, as a filter)."""
    marker = tmp_path / "MARKER"
    trap = tmp_path / "trap.sh"
    trap.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\ncat\n", encoding="utf-8")
    trap.chmod(0o755)
    return trap, marker


def _plant(repo: Path, trap: Path) -> None:
    """Every mechanism by which git runs a program the repository names."""
    write(repo, ".gitattributes", "*.md filter=x=y diff=evil\n*.py filter=plain\n")
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(
            f'[filter "x=y"]\n\tclean = {trap} clean\n\tsmudge = {trap} smudge\n\trequired = true\n'
            f'[filter "plain"]\n\tprocess = {trap} process\n\tclean = {trap} clean\n'
            f'[diff "evil"]\n\ttextconv = {trap} textconv\n\tcommand = {trap} command\n'
            f"[core]\n\tfsmonitor = {trap}\n\thooksPath = {repo / '.git' / 'hooks'}\n"
            f"[diff]\n\texternal = {trap}\n"
        )
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction", "fsmonitor-watchman"):
        (hooks / hook).write_text(f"#!/bin/sh\nexec {trap} hook-{hook}\n", encoding="utf-8")
        (hooks / hook).chmod(0o755)


def test_nothing_the_repository_configures_runs(repo: Path, tmp_path: Path) -> None:
    trap, marker = _trap(tmp_path)
    # A submodule whose own config sets a filter on a file that then changes in its work tree.
    sub = tmp_path / "sub-origin"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    write(sub, "data.txt", "one\n")
    commit(sub, "sub")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    commit(repo, "with submodule")
    git(repo, "tag", "v2")
    write(repo / "vendor" / "sub", ".gitattributes", "*.txt filter=x=y\n")
    with (repo / ".git" / "modules" / "vendor" / "sub" / "config").open("a", encoding="utf-8") as config:
        config.write(f'[filter "x=y"]\n\tclean = {trap} sub-clean\n[core]\n\tfsmonitor = {trap}\n')
    write(repo / "vendor" / "sub", "data.txt", "two\n")
    _plant(repo, trap)
    assert not marker.exists()
    write(repo, "docs/cli.md", "# CLI\n\n--new を足した。\n")
    result = drift(repo, "--base", "v2")
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(API_CLI) and result.stdout.count("\n") == 1
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    # The same through the library, and with the caller's environment pointing git elsewhere.
    os.environ["GIT_DIR"] = str(tmp_path / "nowhere")
    os.environ["GIT_CONFIG_PARAMETERS"] = f"'core.fsmonitor={trap}'"
    try:
        found = check(repo, base="v2")
    finally:
        del os.environ["GIT_DIR"], os.environ["GIT_CONFIG_PARAMETERS"]
    assert [i["kind"] for i in found["issues"]] == ["missed_change_together"]
    assert not marker.exists(), marker.read_text(encoding="utf-8")


def test_filtered_changes_count_as_git_stores_them(repo: Path, tmp_path: Path) -> None:
    # Unchanged bytes stay unchanged with every mechanism planted; a changed file is seen.
    trap, marker = _trap(tmp_path)
    _plant(repo, trap)
    assert drift(repo, "--base", "v1").stdout == ""
    write(repo, "src/setup.py", "print('setup 2')\n")
    result = drift(repo, "--base", "v1")
    assert result.stdout.startswith(GUIDE_FAQ) and result.stdout.count("\n") == 1
    assert not marker.exists()


def test_mode_and_symlink_changes_count(repo: Path) -> None:
    (repo / "src" / "setup.py").chmod(0o755)
    assert drift(repo, "--base", "v1").stdout.startswith(GUIDE_FAQ)
    (repo / "src" / "setup.py").chmod(0o644)
    assert drift(repo, "--base", "v1").stdout == ""
    (repo / "docs" / "api.md").unlink()
    (repo / "docs" / "api.md").symlink_to("cli.md")
    assert drift(repo, "--base", "v1").returncode != 0


def test_sha256_repository(tmp_path: Path) -> None:
    root = tmp_path / "sha256"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", "--object-format=sha256")
    for rel, text in FILES.items():
        write(root, rel, text)
    commit(root, "base")
    assert drift(root, "--base", "main").stdout == ""
    write(root, "docs/cli.md", "# CLI\n\n変えた。\n")
    assert drift(root, "--base", "main").stdout.startswith(API_CLI)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the repository to another user needs root")
def test_a_repository_owned_by_another_user_is_read(repo: Path) -> None:
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    write(repo, "docs/cli.md", "# CLI\n\n変えた。\n")
    result = drift(repo, "--base", "v1")
    assert result.stdout.startswith(API_CLI), result.stderr


def test_the_sentence_names_the_argument_of_every_front_end(tmp_path: Path) -> None:
    project = tmp_path / "plain"
    for rel, text in FILES.items():
        write(project, rel, text)
    with pytest.raises(MdmarkError) as info:
        check(project, base="main")
    assert "`--base`" in info.value.message and "`base`" in info.value.message
    assert "fatal" not in info.value.message
