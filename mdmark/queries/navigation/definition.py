"""Go to definition: where the thing a place names is defined."""

from __future__ import annotations

from mdmark.queries.navigation.navigator import Found, Navigator, Span


def definition(nav: Navigator, found: Found) -> list[Span]:
    """Where the thing is defined: the document's first line, the heading or label line, the
    glossary entry, the index's tag entry; from the index, a document id's entry comes first."""
    thing = found.thing
    out: list[Span] = []
    if thing.kind == "doc" and thing.doc is not None:
        if nav.is_index(found.span.path):
            entry = nav.entry_of(thing.doc)
            if entry is not None and found.span.path != nav.path_of(thing.doc):
                span = nav.index_span(f"{entry.where}.id", entry.id)
                if span is not None and span.line != found.span.line:
                    out.append(span)
        out.append(nav.doc_start(thing.doc))
    elif thing.kind in ("anchor", "eq") and thing.doc is not None:
        span = nav.anchor_span(thing.doc, thing.anchor or "", thing.name)
        out.append(span or nav.doc_start(thing.doc))
    elif thing.kind == "term":
        out.extend(nav.term_spans(thing))
    elif thing.kind == "tag" and nav.index is not None and thing.name:
        tag = nav.index.tag(thing.name)
        if tag is not None:
            span = nav.index_span(f"{tag.where}.name", tag.name)
            if span is not None:
                out.append(span)
    elif thing.kind == "file" and thing.name:
        out.append(Span(nav.srcdir / thing.name, 1))
    return out
