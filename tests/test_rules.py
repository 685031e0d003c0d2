"""The rule table of check (mdmark/check/rules): one table in design.md's order, a frozen context, no
module-level caches, disabled kinds not run, and the kinds' one declaration feeding every list."""

from __future__ import annotations

import argparse
import ast
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import mdmark.check.rules
from mdmark.check.collect import collect
from mdmark.cli.main import build_parser
from mdmark.core.diagnostics import DRIFT_KINDS, Diagnostic, DriftKind
from mdmark.project.main import Project
from mdmark.check.rules import RULES, CheckContext, Scope, active_rules
from mdmark.check.rules.context import Document

from test_guide import section

RULES_DIR = Path(mdmark.check.rules.__file__).parent


def _rule_modules() -> list[ModuleType]:
    names = ["mdmark.check.rules"] + [f"mdmark.check.rules.{m.name}" for m in pkgutil.iter_modules([str(RULES_DIR)])]
    return [importlib.import_module(name) for name in names]


def test_no_mutable_module_level_cache_in_rules() -> None:
    """State lives in the context built per run; a module-level dict, list or set (or a memoising
    decorator, or a ``global`` rebinding) would carry one run's answers into the next."""
    found: list[str] = []
    for module in _rule_modules():
        for name, value in vars(module).items():
            if name.startswith("__"):
                continue
            if isinstance(value, dict | list | set | bytearray) or hasattr(value, "cache_info"):
                found.append(f"{module.__name__}.{name}")
        assert module.__file__ is not None
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{module.__name__}: global {', '.join(node.names)}")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for deco in node.decorator_list:
                    text = ast.unparse(deco)
                    if re.search(r"\b(cache|lru_cache|cached_property)\b", text):
                        found.append(f"{module.__name__}.{node.name}: @{text}")
    assert found == []


def test_the_context_is_frozen() -> None:
    for cls in (CheckContext, Document):
        params = getattr(cls, "__dataclass_params__")
        assert params.frozen, cls.__name__


def test_one_table_in_design_order_covering_every_kind() -> None:
    order = list(DriftKind)
    positions = [order.index(rule.kinds[0]) for rule in RULES]
    assert positions == sorted(positions)
    assert {kind for rule in RULES for kind in rule.kinds} == set(DriftKind)


def test_a_disabled_kind_does_not_run() -> None:
    assert all(rule.kinds != (DriftKind.TITLE_MISMATCH,) for rule in active_rules(frozenset({"title_mismatch"})))
    assert len(active_rules(frozenset())) == len(RULES)
    # A rule with several outcomes runs while one of them is wanted.
    tag_rules = [r for r in active_rules(frozenset({"unknown_tag"})) if DriftKind.UNKNOWN_TAG in r.kinds]
    assert [r.kinds for r in tag_rules] == [(DriftKind.UNKNOWN_TAG, DriftKind.DEPRECATED_TAG)]
    assert active_rules(frozenset(DRIFT_KINDS)) == ()


def _project(tmp_path: Path, tags_line: str, disable: str = "[]") -> Project:
    (tmp_path / "mdmark.config.yaml").write_text(
        f"index: index.yaml\ncheck:\n  disable: {disable}\n", encoding="utf-8"
    )
    (tmp_path / "index.yaml").write_text(
        "docs:\n"
        f"  - {{id: a, path: a.md, title: 文書 A, tags: {tags_line}}}\n"
        "tags:\n"
        "  - name: topic:mcp\n"
        "  - name: mcp-server\n"
        "    deprecated: topic:mcp\n",
        encoding="utf-8",
    )
    (tmp_path / "a.md").write_text("# 違う題\n", encoding="utf-8")
    return Project.open(tmp_path)


def _kinds(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.kind.value for d in diagnostics]


def test_drifts_on_one_line_keep_the_order_they_are_written_in(tmp_path: Path) -> None:
    # One flow-style item: every drift is on line 2, in the table's order, tags in reference order.
    assert _kinds(collect(_project(tmp_path, "[nope, mcp-server]"))) == ["title_mismatch", "unknown_tag", "deprecated_tag"]
    assert _kinds(collect(_project(tmp_path, "[mcp-server, nope]"))) == ["title_mismatch", "deprecated_tag", "unknown_tag"]


def test_check_disable_leaves_the_other_outcome_of_a_rule(tmp_path: Path) -> None:
    found = collect(_project(tmp_path, "[mcp-server, nope]", "[unknown_tag, title_mismatch]"))
    assert _kinds(found) == ["deprecated_tag"]
    assert all(isinstance(d.kind, DriftKind) for d in found)
    assert found[0].as_dict()["kind"] == "deprecated_tag" and type(found[0].as_dict()["kind"]) is str


def test_each_kind_is_declared_once_and_every_list_follows() -> None:
    assert DRIFT_KINDS == tuple(kind.value for kind in DriftKind)
    assert DriftKind.of("syntax") is DriftKind.SYNTAX
    with pytest.raises(ValueError):
        DriftKind.of("nope")
    # The CLI help of check lists each kind with its description, in order.
    (check,) = [
        action.choices["check"] for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction)
    ]
    assert check.description is not None
    rows = [line.split(None, 1) for line in check.description.splitlines() if line.startswith("  ")]
    assert [(kind, text) for kind, text in rows] == [(k.value, k.description) for k in DriftKind]


_WHERE = {"設定": Scope.CONFIG, "索引": Scope.INDEX, "文書": Scope.DOCUMENT}


def test_guide_drift_table_says_where_the_rules_report() -> None:
    """The guide's table names, for each kind, the file the rules of that kind report in."""
    rows = [line.split("|") for line in section("cli", "ずれの種類").splitlines() if line.startswith("| `")]
    table = {cells[1].strip().strip("`"): cells[2].strip() for cells in rows}
    assert list(table) == list(DRIFT_KINDS)
    for kind in DriftKind:
        scopes = {rule.scope for rule in RULES if kind in rule.kinds}
        assert scopes == {_WHERE[table[kind.value]]}, kind.value
