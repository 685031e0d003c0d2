"""Drift of the index's items as items: the schema, repeated keys, IDs and tag names used twice."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.check.rules.context import CheckContext


def index_schema(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    found = index.schema_diagnostics(ctx.root)
    yield from found
    if index.yaml is None:
        return
    reported = {(d.where, d.kind) for d in found}
    for where in index.yaml.duplicate_keys:
        if (where, DriftKind.INDEX_SCHEMA) in reported:
            continue
        name = where.rsplit(".", 1)[-1]
        yield Diagnostic(
            ctx.index_file,
            where,
            DriftKind.INDEX_SCHEMA,
            f"キー `{name}` が 2 回書かれていて後の値だけが使われるので、1 つにまとめてください。",
            index.yaml.duplicate_lines.get(where, index.yaml.line_of(where)),
        )


def duplicate_ids(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    groups: list[tuple[str, str, str, list[tuple[str, str]]]] = [
        ("文書の ID", "id", "別の ID にしてください", [(d.id, d.where) for d in index.docs]),
        ("用語の ID", "id", "別の ID にしてください", [(t.id, t.where) for t in index.terms]),
        ("タグの name", "name", "1 つにまとめてください", [(t.name, t.where) for t in index.tags]),
    ]
    for what, key, fix, items in groups:
        first: dict[str, str] = {}
        for name, where in items:
            if name in first:
                yield ctx.in_index(
                    f"{where}.{key}", DriftKind.DUPLICATE_ID, f"{what} `{name}` が `{first[name]}` と重なっているので、{fix}。"
                )
            else:
                first[name] = where
