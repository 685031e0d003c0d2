"""Trust covers what actually ran (issue 37 item 4, at run time; :mod:`mdmark.host.trust_ran`).

A trusted conf.py that chooses at run time which of the project's modules it imports (here by an
environment variable) must not load one the trust does not pin: the process that runs conf.py
refuses it before its code runs, the run goes on untrusted, and the trust is said *lapsed* with
the same sentence as a changed file, naming the module, until the user trusts again (which pins
it). All real: ``mdmark trust`` and ``mdmark check`` on a project on disk, a private
``XDG_CONFIG_HOME`` and ``XDG_CACHE_HOME`` per test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import private_homes, run_mdmark, write_tree

CONF = """\
import importlib, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
importlib.import_module("_lib." + os.environ.get("DOCS_PLUGIN", "plain"))
extensions = ["myst_parser"]
"""
#: A module that leaves a file beside it when its code runs.
MARKING = "import os\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'RAN-' + __name__), 'a').close()\n"
FILES = {
    "docs/conf.py": CONF,
    "docs/_lib/__init__.py": "",
    "docs/_lib/plain.py": MARKING,
    "docs/_lib/special.py": MARKING,
    "docs/index.md": "# 入口\n\n本文。\n",
    "mdmark.config.yaml": 'docs:\n  include: ["docs/*.md"]\nsphinx:\n  conf: docs/conf.py\n',
}
SPECIAL = {"DOCS_PLUGIN": "special"}


def lapsed(changed: str) -> str:
    return (
        f"mdmark.config.yaml:sphinx.conf: config_value: conf.py `docs/conf.py` は信頼した後に `{changed}` が変わったので信頼が外れ、"
        "conf.py を動かさずに書かれた設定だけを読んだため、変わったところを確かめて動かしてよければ `mdmark trust` でもう一度信頼してください。\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "p", FILES)
    (root / ".git").mkdir()  # the project root, without running git
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return private_homes(tmp_path)


def ran(root: Path) -> list[str]:
    """The modules whose code ran since the last call (their marks are removed)."""
    found = sorted(p.name.removeprefix("RAN-_lib.") for p in (root / "docs" / "_lib").glob("RAN-*"))
    for mark in (root / "docs" / "_lib").glob("RAN-*"):
        mark.unlink()
    return found


def record(env: dict[str, str]) -> dict[str, object]:
    (entry,) = json.loads((Path(env["XDG_CONFIG_HOME"]) / "mdmark" / "trusted.json").read_text(encoding="utf-8"))["projects"]
    assert isinstance(entry, dict)
    return entry


def test_a_module_chosen_at_run_time_is_refused_and_lapses_the_trust(project: Path, env: dict[str, str]) -> None:
    assert run_mdmark("trust", cwd=project, env=env).returncode == 0
    assert ran(project) == ["plain"]
    assert record(env)["imported"] == ["docs/_lib/__init__.py", "docs/_lib/plain.py"]

    # The run picks a module the trust does not pin: it never runs, the run is untrusted, and the
    # trust is said lapsed, naming it — in this run, and in the next ones.
    for _ in range(2):
        checked = run_mdmark("check", cwd=project, env={**env, **SPECIAL})
        assert checked.returncode == 1 and checked.stdout == lapsed("docs/_lib/special.py"), checked.stdout + checked.stderr
        assert ran(project) == []
    listed = run_mdmark("trust", "--list", cwd=project, env=env)
    assert "信頼が外れている" in listed.stdout, listed.stdout
    # Without the variable conf.py would load only what is pinned; the lapse stands all the same.
    assert run_mdmark("check", cwd=project, env=env).stdout == lapsed("docs/_lib/special.py")

    # Trusting again (after looking at it) pins what the run loaded too.
    assert run_mdmark("trust", cwd=project, env=env).returncode == 0
    assert ran(project) == ["plain"]
    assert record(env)["imported"] == ["docs/_lib/__init__.py", "docs/_lib/plain.py", "docs/_lib/special.py"]
    (project / "docs" / "index.md").write_text("# 入口\n\n本文を変えた。\n", encoding="utf-8")
    checked = run_mdmark("check", cwd=project, env={**env, **SPECIAL})
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ran(project) == ["special"]


def test_a_refusal_in_a_later_parse_is_said_on_the_next_run(project: Path, env: dict[str, str]) -> None:
    """The configuration was read in an earlier run (cached by the trust); conf.py runs again only
    when a document must be parsed: the module is refused there, and the next run says the lapse."""
    assert run_mdmark("trust", cwd=project, env=env).returncode == 0
    assert run_mdmark("check", cwd=project, env=env).returncode == 0
    ran(project)
    (project / "docs" / "index.md").write_text("# 入口\n\n本文を変えた。\n", encoding="utf-8")
    run_mdmark("check", cwd=project, env={**env, **SPECIAL})
    assert ran(project) == []  # refused where conf.py ran
    checked = run_mdmark("check", cwd=project, env=env)
    assert checked.stdout == lapsed("docs/_lib/special.py"), checked.stdout + checked.stderr
    assert ran(project) == []
