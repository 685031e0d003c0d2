"""TOON v4: every encode fixture of the specification passes through mdmark's encoder.

The fixtures are a copy of the specification's ``tests/fixtures/encode`` (toon-format/spec v4.0.0,
MIT; ``tests/fixtures/toon/SOURCE``). That find_docs, list_tags and outline answers decode back
to the json answer is checked against a running server in ``tests/test_mcp_reading.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mdmark.util.toon import encode

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "toon" / "encode"


def _cases() -> list[Any]:
    cases = []
    for file in sorted(FIXTURES.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        assert data["category"] == "encode"
        for case in data["tests"]:
            cases.append(pytest.param(case, id=f"{file.stem}: {case['name']}"))
    return cases


CASES = _cases()


def test_all_fixture_files_are_there() -> None:
    names = {file.stem for file in FIXTURES.glob("*.json")}
    assert names == {
        "arrays-nested",
        "arrays-objects",
        "arrays-primitive",
        "arrays-tabular",
        "delimiters",
        "objects-keyed",
        "objects",
        "primitives",
        "whitespace",
    }
    assert len(CASES) == 173


@pytest.mark.parametrize("case", CASES)
def test_encode_fixture(case: dict[str, Any]) -> None:
    options = case.get("options", {})
    assert set(options) <= {"delimiter", "indentSize"}, options
    got = encode(case["input"], delimiter=options.get("delimiter", ","), indent=options.get("indentSize", 2))
    assert got == case["expected"]


def test_null_keeps_rows_a_table() -> None:
    """The reason the answers keep missing values as null: the rows stay one table."""
    data = {"tags": [{"name": "設計", "group": None, "docs": 2}, {"name": "操作", "group": "種類", "docs": 0}]}
    assert encode(data) == "tags[2]{name,group,docs}:\n  設計,null,2\n  操作,種類,0"
