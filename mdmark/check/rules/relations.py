"""Drift of the relations between documents: unknown targets, one-sided or repeated relations."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.index.model import Relation
from mdmark.check.rules.context import CheckContext
from mdmark.util.sentences import close_fix


def unknown_docs(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    ids = [d.id for d in index.docs]
    known = set(ids)

    def fix(name: str) -> str:
        return close_fix(name, ids, "ID を直すか、")

    for doc in index.docs:
        for rel in doc.related:
            if rel.to not in known:
                where = rel.where if rel.written_as_string else f"{rel.where}.to"
                yield ctx.in_index(
                    where,
                    DriftKind.UNKNOWN_DOC,
                    f"関連の相手 `{rel.to}` という ID の文書が索引に無いので、{fix(rel.to)}その文書を索引に足してください。",
                )
    for term in index.terms:
        for name, where in term.docs_at:
            if name not in known:
                yield ctx.in_index(
                    where,
                    DriftKind.UNKNOWN_DOC,
                    f"用語 `{term.term}` の docs の `{name}` という ID の文書が索引に無いので、{fix(name)}その文書を索引に足してください。",
                )


def one_sided_change_together(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    for doc in index.docs:
        for rel in doc.related:
            if rel.type != "change_together" or rel.to == doc.id:
                continue
            other = index.doc(rel.to)
            if other is None:
                continue
            if not any(r.to == doc.id and r.type == "change_together" for r in other.related):
                when = f", when: {rel.when}" if rel.when else ""
                yield ctx.in_index(
                    f"{rel.where}.type",
                    DriftKind.ONE_SIDED_CHANGE_TOGETHER,
                    f"`{doc.id}` は `{rel.to}` と change_together なのに、`{rel.to}`（`{other.where}`）の related に `{doc.id}` への change_together が無いので、"
                    f"`{rel.to}` にも `{{to: {doc.id}, type: change_together{when}}}` を書き足してください。",
                )


def duplicate_relations(ctx: CheckContext) -> Iterator[Diagnostic]:
    """The same target twice in one document (same type, or one untyped), then a relation written
    on both sides (A→B and B→A, one of them untyped), reported at the later document."""
    index = ctx.index
    assert index is not None
    for doc in index.docs:
        seen: list[Relation] = []
        for rel in doc.related:
            earlier = next(
                (s for s in seen if s.to == rel.to and (s.type == rel.type or s.type is None or rel.type is None)),
                None,
            )
            if earlier is not None:
                kind_text = f"（{rel.type}）" if rel.type else ""
                yield ctx.in_index(
                    rel.where,
                    DriftKind.DUPLICATE_RELATION,
                    f"`{rel.to}` への関連{kind_text}が `{earlier.where}` にもあるので、どちらかを消してください。",
                )
            seen.append(rel)
    order = {id(doc): i for i, doc in enumerate(index.docs)}
    for doc in index.docs:
        for rel in doc.related:
            if rel.type == "change_together":
                continue  # meant to be on both sides: one_sided_change_together's business
            other = index.doc(rel.to)
            if other is None or other is doc or order[id(other)] > order[id(doc)]:
                continue
            back = next(
                (
                    r
                    for r in other.related
                    if r.to == doc.id and r.type != "change_together" and (r.type is None or rel.type is None)
                ),
                None,
            )
            if back is not None:
                yield ctx.in_index(
                    rel.where,
                    DriftKind.DUPLICATE_RELATION,
                    f"`{rel.to}` との関連はすでに `{back.where}` に書かれている（関連は片側にだけ書く）ので、どちらかを消してください。",
                )
