"""alias_conflict: two documents (or two tags) whose titles or aliases normalise to the same name."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.check.rules.context import CheckContext
from mdmark.util.text import normalize

#: (name, key path, owner): the owner is the item's place in the index (``docs[2]``).
_Name = tuple[str, str, str]


def alias_conflicts(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    doc_names: list[_Name] = []
    for doc in index.docs:
        doc_names.append((doc.title, f"{doc.where}.title", doc.where))
        doc_names.extend((alias, where, doc.where) for alias, where in doc.aliases_at)
    yield from _conflicts(ctx, doc_names, "文書", exact_ok=False)
    tag_names: list[_Name] = []
    for tag in index.tags:
        tag_names.append((tag.name, f"{tag.where}.name", tag.where))
        tag_names.extend((alias, where, tag.where) for alias, where in tag.aliases_at)
    yield from _conflicts(ctx, tag_names, "タグ", exact_ok=True)


def _conflicts(ctx: CheckContext, names: list[_Name], what: str, exact_ok: bool) -> Iterator[Diagnostic]:
    first: dict[str, _Name] = {}
    for name, where, owner in names:
        key = normalize(name)
        if not key:
            continue
        seen = first.get(key)
        if seen is None:
            first[key] = (name, where, owner)
            continue
        if seen[2] == owner:
            continue  # a document's alias repeating its own title is harmless
        if exact_ok and where.endswith(".name") and seen[1].endswith(".name") and seen[0] == name:
            continue  # two tags with the same name: duplicate_id says it
        yield ctx.in_index(
            where,
            DriftKind.ALIAS_CONFLICT,
            f"{what}の名前 `{name}` が `{seen[1]}` の `{seen[0]}` と正規化すると同じで区別できないので、どちらかを別の名前にしてください。",
        )
