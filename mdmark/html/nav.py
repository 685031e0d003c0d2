"""The built page's navigation: the toctrees' tree, as Sphinx's ``singlehtml`` sidebar shows it.

When the root document (conf.py ``root_doc``, else ``index``) is in the page and holds toctrees,
the navigation is the tree Sphinx's global toc resolves from them: each listed document with its
sections, a toctree's documents nested under the section that holds it, cut at the root
toctree's ``:maxdepth:`` (nested toctrees' own depth does not count, as in Sphinx), sections left
out under ``:titlesonly:``, and ``:hidden:`` toctrees included (Sphinx's sidebar includes them).
Each document's sections and toctrees appear once, under its first entry (a document listed again
is a plain entry), and an entry back to a document above it (a toctree cycle) is left out, as
Sphinx leaves it out: the navigation grows with the toctrees' entries, never with the paths
through them.
The documents of the page that no toctree reaches follow, each with its sections. Without a root
toctree every document is an entry with its ``##`` and ``###`` sections.

Titles with inline HTML show as that HTML: the title's markup the writer kept for each section
(:attr:`mdmark.html.render.Fragment.headings`), cleaned by :func:`title_markup`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mdmark.html import placeholders
from mdmark.html.links import doc_id, untitled_name
from mdmark.html.page import NavEntry
from mdmark.html.rawhtml import sanitize

if TYPE_CHECKING:
    from mdmark.core.facts import DocFacts, Heading, Toctree
    from mdmark.html.render import Fragment
    from mdmark.references.main import Model

#: Sections shown under a document when no toctree says how deep (the document is level 1).
FLAT_DEPTH = 3


@dataclass
class NavDoc:
    """One document of the page as the navigation needs it."""

    docname: str
    facts: DocFacts
    #: Its entry's title when no toctree gives one (the index's title, else the document's).
    title: str
    #: Heading id (as in the document, unprefixed) → the heading's inner HTML (:func:`title_markup`).
    markup: dict[str, str] = field(default_factory=dict)


def title_markup(fragment: Fragment) -> dict[str, str]:
    """Each section title of a document's fragment as an entry shows it, by the section's id (as
    in the document, unprefixed): what the page shows (inline HTML as markup, not as its source
    text), cleaned like any raw HTML of a document, without links (an entry is a link already) or
    ids (unique in the page). A title whose text is a reference still to be filled in is left out
    (its entry shows the plain title)."""
    out: dict[str, str] = {}
    for ident, inner in fragment.headings.items():
        if placeholders.holds(inner, placeholders.TEXT, fragment.key):
            continue
        # No filler: a placeholder link's tags go, its content stays.
        cleaned, _dropped, _handlers = sanitize(placeholders.fill(inner.strip(), fragment.key, {}), title=True)
        out[ident] = cleaned.strip()
    return out


def _markup(doc: NavDoc, heading: Heading) -> str | None:
    return next((doc.markup[i] for i in heading.ids if i in doc.markup), None)


@dataclass
class _Section:
    heading: Heading | None
    #: Sub-sections and toctrees, in document order.
    items: list[_Section | Toctree] = field(default_factory=list)


def _outline(facts: DocFacts) -> _Section:
    """The document's sections as a tree under its title, each toctree in the section holding it.

    Headings come in document order; a toctree goes where its line falls among the document's own
    headings (those of an ``{include}``d file carry that file's lines, so they never place one)."""
    root = _Section(facts.headings[0] if facts.headings else None)
    stack: list[tuple[int, _Section]] = [(facts.headings[0].level if facts.headings else 0, root)]
    waiting = sorted(facts.toctrees, key=lambda t: t.line)
    for heading in facts.headings[1:]:
        while waiting and not heading.included and waiting[0].line < heading.line:
            stack[-1][1].items.append(waiting.pop(0))
        while len(stack) > 1 and stack[-1][0] >= heading.level:
            stack.pop()
        section = _Section(heading)
        stack[-1][1].items.append(section)
        stack.append((heading.level, section))
    stack[-1][1].items.extend(waiting)
    return root


class _Builder:
    def __init__(self, model: Model, docs: list[NavDoc]) -> None:
        self.model = model
        self.docs = {d.docname: d for d in docs}
        self.placed: set[str] = set()
        #: Documents whose sections and toctrees are already under an entry: a document listed again
        #: (a second toctree, a diamond) is a plain entry, so the navigation grows with the toctrees'
        #: entries, not with the paths through them.
        self.expanded: set[str] = set()
        #: False for the documents no toctree reaches: their own toctrees are not followed there.
        self.follow = True

    def href(self, docname: str, anchor: str | None = None) -> str | None:
        if docname not in self.docs:
            return None
        return f"#{doc_id(docname)}:{anchor}" if anchor else f"#{doc_id(docname)}"

    def heading_entry(self, doc: NavDoc, heading: Heading) -> NavEntry:
        anchor = heading.anchor if heading.ids else None
        return NavEntry(heading.title, self.href(doc.docname, anchor), html=_markup(doc, heading))

    def doc_entry(
        self, docname: str, depth: int, maxdepth: int, titlesonly: bool, ancestors: frozenset[str], title: str | None
    ) -> NavEntry:
        """A document's entry at ``depth``; ``title``: the toctree's, else the document's own."""
        doc = self.docs.get(docname)
        facts = doc.facts if doc is not None else self.model.facts(docname)
        own = (doc.title if not self.follow and doc is not None else None) or (facts.title if facts else None)
        markup = None
        if title is None and doc is not None and facts is not None and facts.headings and own == facts.title:
            markup = _markup(doc, facts.headings[0])
        entry = NavEntry(title or own or untitled_name(docname), self.href(docname), html=markup)
        if doc is not None:
            entry.doc = doc_id(docname)
            self.placed.add(docname)
        if facts is None or docname in ancestors or docname in self.expanded:
            return entry
        entry.children = self.section_items(docname, doc, _outline(facts), depth + 1, maxdepth, titlesonly, ancestors | {docname})
        if entry.children:
            self.expanded.add(docname)
        return entry

    def section_items(
        self,
        owner: str,
        doc: NavDoc | None,
        section: _Section,
        depth: int,
        maxdepth: int,
        titlesonly: bool,
        ancestors: frozenset[str],
    ) -> list[NavEntry]:
        """The entries under ``section`` of ``owner`` (at ``depth``): its sub-sections and the
        documents of its toctrees."""
        if 0 < maxdepth < depth:
            return []
        out: list[NavEntry] = []
        for item in section.items:
            if isinstance(item, _Section):
                if titlesonly or doc is None or item.heading is None:
                    # Without the section's title, Sphinx keeps the toctrees under it.
                    out += self.section_items(owner, doc, item, depth, maxdepth, titlesonly, ancestors)
                    continue
                entry = self.heading_entry(doc, item.heading)
                entry.children = self.section_items(owner, doc, item, depth + 1, maxdepth, titlesonly, ancestors)
                out.append(entry)
            elif self.follow:
                out += self.toctree_entries(item, owner, depth, maxdepth, titlesonly, ancestors)
        return out

    def toctree_entries(
        self, tree: Toctree, docname: str, depth: int, maxdepth: int, titlesonly: bool, ancestors: frozenset[str]
    ) -> list[NavEntry]:
        out: list[NavEntry] = []
        for item in self.model.toctree_items(tree, docname):
            if item.kind == "url":
                out.append(NavEntry(item.title or item.target, item.target))
            elif item.kind == "self":
                out.append(NavEntry(item.title or self.model.title(docname) or untitled_name(docname), self.href(docname)))
            elif item.kind == "doc" and item.target not in ancestors:
                # An entry back to a document above it is a cycle: Sphinx ignores it (and warns,
                # as check does: ``toc.circular``).
                out.append(self.doc_entry(item.target, depth, maxdepth, titlesonly, ancestors, item.title))
        return out


def navigation(model: Model, docs: list[NavDoc]) -> list[NavEntry]:
    """The navigation of a page holding ``docs`` (in page order)."""
    builder = _Builder(model, docs)
    root = model.info.root_doc
    root_doc = builder.docs.get(root)
    entries: list[NavEntry] = []
    if root_doc is not None and root_doc.facts.toctrees:
        builder.placed.add(root)
        builder.expanded.add(root)
        for tree in root_doc.facts.toctrees:
            maxdepth = tree.maxdepth if tree.maxdepth > 0 else -1
            entries += builder.toctree_entries(tree, root, 1, maxdepth, tree.titlesonly, frozenset({root}))
        reached = set(model.toctree_order(root))
    else:
        reached = set()
    builder.follow = False
    for doc in docs:
        if doc.docname in builder.placed or doc.docname in reached:
            continue
        entries.append(builder.doc_entry(doc.docname, 1, FLAT_DEPTH, False, frozenset(), None))
    return entries
