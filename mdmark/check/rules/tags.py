"""Drift against the tag vocabulary (only when the index has ``tags``: without one any tag is fine)."""

from __future__ import annotations

from collections.abc import Iterator

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.check.rules.context import CheckContext
from mdmark.util.sentences import close_fix


def tag_references(ctx: CheckContext) -> Iterator[Diagnostic]:
    """Each document's tag looked up once: not in the vocabulary (unknown_tag) or retired (deprecated_tag)."""
    index = ctx.index
    assert index is not None
    if not index.has_tags:
        return
    names = [n for t in index.tags for n in (t.name, *t.aliases)]
    for doc in index.docs:
        for ref in doc.tags:
            tag = index.tag(ref.name)
            if tag is None:
                fix = close_fix(ref.name, names, "名前を直すか、", 3)
                yield ctx.in_index(
                    ref.where,
                    DriftKind.UNKNOWN_TAG,
                    f"タグ `{ref.name}` が索引の tags の語彙に無いので、{fix}語彙に足してください。",
                )
            elif tag.deprecated:
                what = f"やめたタグ（`{tag.where}`）" if ref.name == tag.name else f"やめたタグ `{tag.name}`（`{tag.where}`）の別名"
                yield ctx.in_index(
                    ref.where,
                    DriftKind.DEPRECATED_TAG,
                    f"タグ `{ref.name}` は{what}なので、`{tag.deprecated}` に替えてください。",
                )


def unknown_replacements(ctx: CheckContext) -> Iterator[Diagnostic]:
    """A retired tag whose replacement (``deprecated``) is not in the vocabulary."""
    index = ctx.index
    assert index is not None
    if not index.has_tags:
        return
    for tag in index.tags:
        if tag.deprecated and index.tag(tag.deprecated) is None:
            fix = close_fix(tag.deprecated, [t.name for t in index.tags], "名前を直すか、")
            yield ctx.in_index(
                f"{tag.where}.deprecated",
                DriftKind.UNKNOWN_TAG,
                f"タグ `{tag.name}` の振り替え先 `{tag.deprecated}` が語彙に無いので、{fix}語彙に足してください。",
            )
