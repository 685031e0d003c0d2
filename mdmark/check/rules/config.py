"""Drift of the config file: its schema, the index it names, the Sphinx extensions conf.py lists."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.util.files import display
from mdmark.util.globs import match_files
from mdmark.check.rules.context import CheckContext
from mdmark.util.sentences import fix_to
from mdmark.util.text import close_file


def schema_problems(ctx: CheckContext) -> Iterator[Diagnostic]:
    """config_key and config_value, found when the config was loaded."""
    yield from ctx.config.diagnostics


def refused_css(ctx: CheckContext) -> Iterator[Diagnostic]:
    """``html.css`` files outside the project root: not embedded (the guide page ``untrusted``), the sentence export prints."""
    from mdmark.html.page import refused_css as refused

    for where, message in refused(ctx.config):
        yield _value_drift(ctx, where, message)


def missing_index_file(ctx: CheckContext) -> Iterator[Diagnostic]:
    config = ctx.config
    index_path = config.index_path
    if index_path is None or index_path.is_file():
        return
    yaml_files = [display(p, ctx.root) for p in match_files(ctx.root, ("**/*.yaml", "**/*.yml"), ())]
    candidate = close_file(config.index or "", yaml_files)
    fix = fix_to(candidate, "パスを直すか、")
    yield _value_drift(
        ctx, "index", f"index の索引のファイル `{config.index}` が見つからないので、{fix}索引のファイルを置いてください。"
    )


def unloadable_extensions(ctx: CheckContext) -> Iterator[Diagnostic]:
    """conf.py not run until the user trusts it (once), and its extensions that cannot be loaded."""
    config = ctx.config
    if config.sphinx_conf is None:
        return
    info = ctx.project.conf_info()
    from mdmark.references.problems import trust_notice

    notice = trust_notice(config, ctx.model, (document.facts for document in ctx.documents))
    if notice is not None:
        yield _value_drift(ctx, "sphinx.conf", notice)
    if info.static_problem:
        yield _value_drift(
            ctx,
            "sphinx.conf",
            f"conf.py `{display(config.sphinx_conf, config.root)}` の設定を動かさずに読めなかった（{info.static_problem}）ので"
            "設定を一つも使わずに Sphinx の既定で読んだため、値を組み立てる書き方を簡単にしてください。",
        )
    for name, reason in info.dropped:
        yield _value_drift(
            ctx,
            "sphinx.conf",
            f"conf.py の extensions の `{name}` を読み込めない（Python の言葉で「{reason}」）ので、その拡張を入れるか conf.py の extensions から外してください。",
        )


def _value_drift(ctx: CheckContext, key: str, message: str) -> Diagnostic:
    """A config_value drift at the config's top-level ``key``, on that key's line."""
    config = ctx.config
    return Diagnostic(config.shown, key, DriftKind.CONFIG_VALUE, message, config.yaml.line_of(key) if config.yaml else None)
