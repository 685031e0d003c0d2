"""Drift of the config file: its schema, the index it names, the Sphinx extensions conf.py lists."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.diagnostics import Diagnostic, DriftKind
from mdmark.files import display
from mdmark.project import match_files
from mdmark.rules.context import CheckContext
from mdmark.text import close_file


def schema_problems(ctx: CheckContext) -> Iterator[Diagnostic]:
    """config_key and config_value, found when the config was loaded."""
    yield from ctx.config.diagnostics


def missing_index_file(ctx: CheckContext) -> Iterator[Diagnostic]:
    config = ctx.config
    index_path = config.index_path
    if index_path is None or index_path.is_file():
        return
    yaml_files = [display(p, ctx.root) for p in match_files(ctx.root, ("**/*.yaml", "**/*.yml"), ())]
    candidate = close_file(config.index or "", yaml_files)
    fix = f"近い `{candidate}` に直すか" if candidate is not None else "パスを直すか"
    yield Diagnostic(
        config.shown,
        "index",
        DriftKind.CONFIG_VALUE,
        f"index の索引のファイル `{config.index}` が見つからないので、{fix}、索引のファイルを置いてください。",
        config.yaml.line_of("index") if config.yaml else None,
    )


def unloadable_extensions(ctx: CheckContext) -> Iterator[Diagnostic]:
    config = ctx.config
    if config.sphinx_conf is None:
        return
    for name, reason in ctx.project.conf_info().dropped:
        yield Diagnostic(
            config.shown,
            "sphinx.conf",
            DriftKind.CONFIG_VALUE,
            f"conf.py の extensions の `{name}` を読み込めない（{reason}）ので、その拡張を入れるか conf.py の extensions から外してください。",
            config.yaml.line_of("sphinx.conf") if config.yaml else None,
        )
