"""Hover: a reference's target (title and first paragraph) or a document's index entry, as Markdown."""

from __future__ import annotations

from mdmark.queries.navigation.navigator import Found, Navigator, Span


def hover(nav: Navigator, found: Found) -> str | None:
    """Markdown for a hover: on a reference, the target's title and first paragraph; on a
    document's first line, its index entry."""
    thing = found.thing
    if not found.reference:
        facts = nav.facts(thing.doc) if thing.doc is not None else None
        first = facts.title_line or 1 if facts is not None else 1
        if thing.doc is not None and found.span.line <= first and not nav.is_index(found.span.path):
            return _entry_text(nav, thing.doc) or _excerpt(nav, thing.doc, None)
        if thing.kind == "doc" and thing.doc is not None and nav.is_index(found.span.path):
            return _entry_text(nav, thing.doc)
        if thing.kind != "doc" and thing.kind != "tag":
            return None
    if thing.kind == "tag" and nav.index is not None and thing.name:
        tag = nav.index.tag(thing.name)
        if tag is None:
            return None
        parts = [f"**{tag.name}**（タグ）"]
        if tag.description:
            parts.append(tag.description)
        if tag.aliases:
            parts.append("別名: " + "、".join(tag.aliases))
        parts.append(f"{len(nav.index.docs_with_tag(tag.name))} 件の文書")
        return "\n\n".join(parts)
    if thing.kind == "file":
        return f"ファイル `{thing.name}`"
    if thing.doc is None:
        return None
    if thing.kind == "term" and nav.index is not None:
        for term in nav.index.terms:
            if (thing.name or "").lower() in (n.lower() for n in (term.term, *term.aliases)):
                return f"**{term.term}**（用語）\n\n{term.definition or ''}".rstrip()
    if thing.kind == "doc":
        return _entry_text(nav, thing.doc) or _excerpt(nav, thing.doc, None)
    return _excerpt(nav, thing.doc, nav.anchor_span(thing.doc, thing.anchor or "", thing.name), thing.anchor)


def _excerpt(nav: Navigator, docname: str, at: Span | None, anchor: str | None = None) -> str | None:
    facts = nav.facts(docname)
    if facts is None:
        return None
    lines = nav.lines(nav.path_of(docname))
    start = at.line if at is not None else (facts.title_line or 1)
    title = facts.title or docname
    if at is not None:
        # A label names the heading right below it, or the figure/table it is written in.
        heading = next((h for h in facts.headings if h.line in (at.line, at.line + 1)), None)
        label = next((lab for lab in facts.labels if lab.title and lab.id in (anchor or "", lab.name)), None)
        title = heading.title if heading is not None else label.title if label is not None else title
        start = heading.line if heading is not None else start
    paragraph: list[str] = []
    for text in lines[start:]:
        stripped = text.strip()
        if not stripped or (paragraph and stripped.startswith(("```", ":::", "#"))):
            if paragraph:
                break
            continue
        if stripped.startswith(("#", "(", "```", ":::", ":")) and not paragraph:
            continue
        paragraph.append(stripped)
    body = " ".join(paragraph)
    return f"**{title}**（`{docname}.md`）\n\n{body}".rstrip()


def _entry_text(nav: Navigator, docname: str) -> str | None:
    entry = nav.entry_of(docname)
    if entry is None or nav.index is None:
        return None
    parts = [f"**{entry.title}**（ID `{entry.id}`、`{entry.path}`）"]
    if entry.description:
        parts.append(entry.description)
    if entry.aliases:
        parts.append("別名: " + "、".join(entry.aliases))
    tags = nav.index.tags_of(entry)
    if tags:
        parts.append("タグ: " + "、".join(f"{t.name}{'（主）' if t.main else ''}" for t in tags))
    relations = nav.index.relations_of(entry.id)
    if relations:
        parts.append("関連: " + "、".join(f"{r.other.id}（{r.type or '関連'}）" for r in relations))
    return "\n\n".join(parts)
