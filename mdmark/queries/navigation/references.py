"""Find references: every place that refers to a thing (links, roles, toctree entries, the index)."""

from __future__ import annotations

from mdmark.core.facts import Heading
from mdmark.queries.navigation.definition import definition
from mdmark.queries.navigation.navigator import Found, Navigator, Span, unique_spans


def references(nav: Navigator, found: Found, include_definition: bool = True) -> list[Span]:
    """Every place that refers to the thing: links, roles and toctree entries across the
    documents, ids and tags in the index (the definition too when ``include_definition``)."""
    thing = found.thing
    refs = nav.all_refs()
    out: list[Span] = []
    if thing.kind == "doc" and thing.doc is not None:
        out.extend(refs.by_doc.get(thing.doc, []))
        # Links to any of its anchors refer to the document too.
        for (doc, _anchor), spans in sorted(refs.by_anchor.items()):
            if doc == thing.doc:
                out.extend(spans)
        out.extend(_index_references(nav, thing.doc, include_definition))
    elif thing.kind in ("anchor", "eq") and thing.doc is not None:
        facts = nav.facts(thing.doc)
        ids = {thing.anchor}
        if facts is not None:
            for heading in facts.headings:
                if thing.anchor in heading.ids or heading.slug == thing.anchor:
                    ids |= set(heading.ids) | ({heading.slug} if heading.slug else set())
            for label in facts.labels:
                if label.id in ids or label.name == thing.name:
                    ids.add(label.id)
        for anchor in sorted(i for i in ids if i):
            out.extend(refs.by_anchor.get((thing.doc, anchor), []))
        if facts is not None and _is_title(facts.headings, facts.title_line, thing.anchor):
            # The title heading stands for its document (as marksman answers): the links to the
            # document too, and its index entries.
            out.extend(refs.by_doc.get(thing.doc, []))
            out.extend(_index_references(nav, thing.doc, False))
    elif thing.kind == "term" and thing.name:
        names = {thing.name.lower()}
        if nav.index is not None:
            for term in nav.index.terms:
                if thing.name.lower() in (n.lower() for n in (term.term, *term.aliases)):
                    names |= {n.lower() for n in (term.term, *term.aliases)}
        for name in sorted(names):
            out.extend(refs.by_term.get(name, []))
    elif thing.kind == "tag" and nav.index is not None and thing.name:
        for entry in nav.index.docs:
            for ref in entry.tags:
                if nav.index.canonical_tag(ref.name) == thing.name:
                    span = nav.index_span(ref.where, ref.name)
                    if span is not None:
                        out.append(span)
    if include_definition:
        out = [*definition(nav, Found(thing, found.span, True)), *out]
    return unique_spans(out)


def _is_title(headings: list[Heading], title_line: int | None, anchor: str | None) -> bool:
    """Whether ``anchor`` is the id of the document's title heading (its first, on ``title_line``)."""
    return any(
        h.line == title_line and not h.included and (anchor in h.ids or h.slug == anchor) for h in headings[:1]
    )


def _index_references(nav: Navigator, docname: str, include_entry: bool) -> list[Span]:
    entry = nav.entry_of(docname)
    if entry is None or nav.index is None:
        return []
    out: list[Span] = []
    if include_entry:
        span = nav.index_span(f"{entry.where}.id", entry.id)
        if span is not None:
            out.append(span)
    for doc in nav.index.docs:
        for rel in doc.related:
            if rel.to == entry.id:
                span = nav.index_span(f"{rel.where}.to" if not rel.written_as_string else rel.where, rel.to)
                if span is not None:
                    out.append(span)
    for term in nav.index.terms:
        for doc_id, where in term.docs_at:
            if doc_id == entry.id:
                span = nav.index_span(where, doc_id)
                if span is not None:
                    out.append(span)
    return out
