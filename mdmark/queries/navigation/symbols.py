"""Document and workspace symbols: headings, labels, terms and documents."""

from __future__ import annotations

from pathlib import Path

from mdmark.queries.navigation.navigator import Navigator, Symbol, Thing
from mdmark.util.text import normalize


def document_symbols(nav: Navigator, path: Path) -> list[Symbol]:
    """The outline of a document (the ``outline`` tool's sections), nested by heading level."""
    from mdmark.queries.outline import sections

    docname = nav.docname(path.resolve())
    facts = nav.facts(docname) if docname is not None else None
    if facts is None:
        return []
    lines = nav.lines(path.resolve())
    flat = [
        Symbol(
            s.heading.title, "heading", nav.heading_span(path.resolve(), s.heading), s.end_line, s.heading.level, s.anchor or ""
        )
        for s in sections(facts, [line + "\n" for line in lines])
    ]
    return _nest(flat)


def workspace_symbols(nav: Navigator, query: str) -> list[Symbol]:
    """Documents (matched as ``find_docs`` text matches: title, aliases, description), labels and
    terms whose names hold ``query`` (normalised)."""
    from mdmark.queries.find import text_matches

    wanted = normalize(query)
    out: list[Symbol] = []
    if nav.index is not None:
        for doc in nav.index.docs:
            if wanted and not text_matches(doc, wanted):
                continue
            docname = nav.docname(nav.ctx.doc_file(doc))
            if docname is not None and nav.facts(docname) is not None:
                out.append(Symbol(doc.title, "doc", nav.doc_start(docname), 0, detail=doc.id))
    else:
        for docname in sorted(nav.model.found):
            title = nav.model.title(docname)
            if title is not None and wanted in normalize(title):
                out.append(Symbol(title, "doc", nav.doc_start(docname), 0, detail=docname))
    for name, (docname, label) in sorted(nav.model.labels.items()):
        if wanted in normalize(name) or (label.title and wanted in normalize(label.title)):
            span = nav.anchor_span(docname, label.id, name)
            if span is not None:
                out.append(Symbol(name, "label", span, 0, detail=label.title))
    for _key, (docname, anchor, term) in sorted(nav.model.terms.items()):
        if wanted in normalize(term):
            spans = nav.term_spans(Thing("term", docname, anchor, term))
            out.append(Symbol(term, "term", spans[0], 0, detail=docname))
    return out


def _nest(flat: list[Symbol]) -> list[Symbol]:
    """Headings as a tree: each heading holds the deeper ones up to the next of its level or above."""
    out: list[Symbol] = []
    i = 0
    while i < len(flat):
        head = flat[i]
        j = i + 1
        while j < len(flat) and flat[j].level > head.level:
            j += 1
        out.append(Symbol(head.name, head.kind, head.span, head.end_line, head.level, head.detail, tuple(_nest(flat[i + 1 : j]))))
        i = j
    return out
