"""Golden config fixtures: ``tests/fixtures/config/<case>.yaml`` → ``<case>.expected.txt``.

Each case is copied to a fresh folder as ``mdmark.config.yaml`` and loaded the way every command
loads it (searched from the folder). The expected file lists every diagnostic as
``{kind} {where} (line N): {message}`` and then the effective settings (a broken key falls back to
its default), or ``error (exit N): {message}`` when the file cannot be read at all. Rewrite the
expectations after checking a diff by hand with ``MDMARK_REGEN=1``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import assert_golden

from mdmark.config.main import CONFIG_NAME, Config, load_config
from mdmark.core.errors import MdmarkError

CASES_DIR = Path(__file__).resolve().parent / "fixtures" / "config"
CASES = sorted(p.stem for p in CASES_DIR.glob("*.yaml"))


def dump_config(config: Config) -> list[str]:
    out = [f"{d.kind} {d.where or '-'} (line {d.line}): {d.message}" for d in config.diagnostics]
    for d in config.diagnostics:
        assert d.file == CONFIG_NAME
    out.append("--")
    out.append(f"index: {config.index}")
    out.append(f"docs: {config.docs}")
    out.append(f"build: {config.build}")
    out.append(f"markdown: {config.markdown}")
    out.append(f"html: {config.html}")
    out.append(f"disabled: {sorted(config.disabled)}")
    return out


def load_case(name: str, folder: Path) -> str:
    shutil.copyfile(CASES_DIR / f"{name}.yaml", folder / CONFIG_NAME)
    before = sorted(p.name for p in folder.iterdir())
    try:
        lines = dump_config(load_config(folder))
    except MdmarkError as exc:
        lines = [f"error (exit {exc.exit_code}): {exc.message}"]
    # Loading a config never writes anything.
    assert sorted(p.name for p in folder.iterdir()) == before
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", CASES)
def test_config_fixture(name: str, tmp_path: Path) -> None:
    got = load_case(name, tmp_path)
    expected_file = CASES_DIR / f"{name}.expected.txt"
    assert_golden(got, expected_file)


def test_enough_broken_cases() -> None:
    assert len([n for n in CASES if not n.startswith("valid")]) >= 15


def test_valid_cases_have_no_diagnostics(tmp_path: Path) -> None:
    for name in CASES:
        if name.startswith("valid"):
            folder = tmp_path / name
            folder.mkdir()
            shutil.copyfile(CASES_DIR / f"{name}.yaml", folder / CONFIG_NAME)
            assert load_config(folder).diagnostics == []


def test_search_goes_upward_and_explicit_must_exist(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("index: index.yaml\n", encoding="utf-8")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    config = load_config(deep)
    assert config.root == tmp_path.resolve()
    assert config.index_path == tmp_path.resolve() / "index.yaml"
    with pytest.raises(MdmarkError) as info:
        load_config(deep, "nope.yaml")
    assert info.value.exit_code == 2
    assert info.value.message == "設定ファイル `nope.yaml` が見つからないので、パスを直すか `mdmark init` で置いてください。"


def test_no_config_anywhere(tmp_path: Path) -> None:
    with pytest.raises(MdmarkError) as info:
        load_config(tmp_path)
    assert info.value.exit_code == 2
    assert CONFIG_NAME in info.value.message and "mdmark init" in info.value.message


def test_require_refuses_with_the_diagnostic_sentence(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("index: 3\nbuild: yes\n", encoding="utf-8")
    config = load_config(tmp_path)
    with pytest.raises(MdmarkError) as info:
        config.require_index()
    assert info.value.message == f"{CONFIG_NAME} の `index`: 文字列で書いてください（いまは整数です）。"
    with pytest.raises(MdmarkError):
        config.require("build")
    config.require("html")  # a key without a problem does not refuse


def test_require_index_without_index(tmp_path: Path) -> None:
    (tmp_path / CONFIG_NAME).write_text("docs:\n  include: ['*.md']\n", encoding="utf-8")
    with pytest.raises(MdmarkError) as info:
        load_config(tmp_path).require_index()
    assert info.value.exit_code == 1
    assert info.value.message == (
        f"設定 `{CONFIG_NAME}` に index が無いので、index に索引のファイルのパス（例: `index: index.yaml`）を書いてください。"
    )


def test_a_key_is_one_field_declaration() -> None:
    """A key declared once, as a field with its metadata, is in the schema (validation and its
    sentences), in what is built from a file (falling back to its default when broken) and in the
    guide's table, with no other edit."""
    from dataclasses import dataclass, field

    from mdmark.declare.fields import Builder, key, record_of, section
    from mdmark.declare.schema import Int, validate
    from mdmark.guide.reader import key_table

    @dataclass(frozen=True)
    class Limits:
        depth: int = field(default=2, metadata=key(Int(minimum=1, maximum=9), "深さの上限"))

    @dataclass(frozen=True)
    class Settings:
        limits: Limits = field(default_factory=Limits, metadata=section(Limits, "上限"))

    schema = record_of(Settings)
    assert validate(schema, {"limits": {"depth": 3}}) == []
    problems = validate(schema, {"limits": {"depth": 10, "dept": 1}})
    assert [(p.where, p.message) for p in problems] == [
        ("limits.depth", "10 は範囲の外なので、1 以上 9 以下の整数にしてください。"),
        ("limits.dept", "知らないキー `dept` なので、近い `depth` に直すか、消してください。"),
    ]
    assert Builder([]).record(Settings, {"limits": {"depth": 3}}, "") == Settings(Limits(3))
    assert Builder(problems).record(Settings, {"limits": {"depth": 10, "dept": 1}}, "") == Settings(Limits(2))
    assert "| `limits.depth` | 1 以上 9 以下の整数 | `2` | 深さの上限 |" in key_table(Settings).splitlines()


def test_the_schema_is_the_declaration() -> None:
    from mdmark.declare.fields import leaves
    from mdmark.config.main import CONFIG_SCHEMA, Config

    def paths(record: object, prefix: str = "") -> list[str]:
        from mdmark.declare.schema import Record

        assert isinstance(record, Record)
        out: list[str] = []
        for name, k in record.keys.items():
            out += paths(k.spec, f"{prefix}{name}.") if isinstance(k.spec, Record) else [f"{prefix}{name}"]
        return out

    assert paths(CONFIG_SCHEMA) == [path for path, _ in leaves(Config)]
