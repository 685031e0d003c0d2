"""Rename: a label, a heading's anchor, a term, a tag or a document id, with every reference to it."""

from __future__ import annotations

import re
from pathlib import Path

from mdmark.core.errors import MdmarkError
from mdmark.queries.navigation.navigator import Edit, Found, Navigator, Span
from mdmark.queries.navigation.references import references


def rename_target(nav: Navigator, path: Path, line: int, column: int) -> Found | None:
    """The label or heading anchor at the position that :func:`rename` can rename, else None."""
    found = nav.at(path, line, column)
    if found is None or found.thing.kind != "anchor" or found.thing.doc is None:
        return None
    return found


def rename(nav: Navigator, found: Found, new: str) -> list[Edit]:
    """The edits that rename a label (its definition and every reference) or a heading's anchor
    (a label is put above the heading and every reference to the anchor points at it).
    Raises :class:`MdmarkError` for a name a label cannot have."""
    thing = found.thing
    assert thing.doc is not None
    if not re.fullmatch(r"[^\s()`<>#]+", new):
        raise MdmarkError(f"`{new}` はラベルに使えない（空白・括弧・` < > # を含む）ので、別の名前にしてください。")
    if new.lower() in nav.model.labels and new.lower() != (thing.name or "").lower():
        raise MdmarkError(f"ラベル `{new}` はもう `{nav.model.labels[new.lower()][0]}.md` にあるので、別の名前にしてください。")
    edits: list[Edit] = []
    definition = nav.anchor_span(thing.doc, thing.anchor or "", thing.name)
    facts = nav.facts(thing.doc)
    heading = (
        next((h for h in facts.headings if thing.anchor in h.ids or h.slug == thing.anchor), None) if facts is not None else None
    )
    labelled = definition is not None and (heading is None or definition.line != heading.line)
    if labelled and definition is not None:
        edits.append(Edit(definition, new))
    elif heading is not None:
        edits.append(Edit(Span(nav.path_of(thing.doc), heading.line, 0, 0), f"({new})=\n"))
    for span in references(nav, Found(thing, found.span, True), include_definition=False):
        if nav.is_index(span.path):
            continue
        lines = nav.lines(span.path)
        text = lines[span.line - 1][span.start : span.end] if 0 < span.line <= len(lines) else ""
        old = thing.anchor or ""
        names = [n for n in (thing.name, old, heading.slug if heading else None) if n]
        for name in names:
            at = text.rfind(name)
            if at >= 0:
                edits.append(Edit(Span(span.path, span.line, span.start + at, span.start + at + len(name)), new))
                break
    return edits
