"""What is at a place of a document or of the index, where it is defined and who refers to it.

The language server's definition, references, hover, rename, completion, symbols and quick fixes
are answered here, from one check run's :class:`~mdmark.check.rules.context.CheckContext` (the facts of
every document, unsaved buffers included, the reference model and the index) — the same resolver
``check``, ``export`` and ``build`` use, so "go to definition" lands where a built link would.

Places are :class:`Span`: an absolute path, a 1-based line and 0-based code-point columns. The
facts give a reference's paragraph line, not its column; the reference is found in the text from
that line on (:meth:`Navigator.reference_spans`), its target as written.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts, Heading, Link, TocEntry
from mdmark.util import door
from mdmark.util.text import normalize

if TYPE_CHECKING:
    from mdmark.check.rules.context import CheckContext
    from mdmark.core.diagnostics import Diagnostic
    from mdmark.index.model import Doc, Index
    from mdmark.references.main import Model

#: Lines after a reference's paragraph line searched for its text (a paragraph's lines).
_PARAGRAPH_LINES = 200
_ROLE = re.compile(r"\{([\w:.+-]+)\}`([^`]*)`")
_LABEL_LINE = re.compile(r"^\s*\(([^()\s][^()]*)\)=\s*$")
_FENCE_OPEN = re.compile(r"^\s*(`{3,}|:{3,})\{([\w:.+-]+)\}")
_OPTION_LINE = re.compile(r"^\s*:([\w-]+):")
_CODE_SPAN = re.compile(r"(`{2,})(.+?)\1")


@dataclass(frozen=True)
class Span:
    """A place: ``path`` (absolute), ``line`` (1-based), ``start``/``end`` (0-based code points)."""

    path: Path
    line: int
    start: int = 0
    end: int = 0


@dataclass(frozen=True)
class Thing:
    """Something references land on. ``kind``: ``doc`` (``doc`` is its docname), ``anchor`` (a
    heading's or label's id ``anchor`` in ``doc``; ``name`` the label), ``term``, ``eq``, ``tag``
    (``name``) or ``file`` (``name``: relative to the source folder)."""

    kind: str
    doc: str | None = None
    anchor: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class Found:
    """What a position is on: the thing, the span of what is written there, and whether it was a
    reference (a link, a toctree entry, an index id) rather than the thing's own definition."""

    thing: Thing
    span: Span
    reference: bool


@dataclass(frozen=True)
class Completion:
    label: str
    #: ``doc``, ``label``, ``term``, ``eq``, ``anchor``, ``id``, ``tag``, ``directive``, ``option``.
    kind: str
    detail: str = ""
    #: What replaces the word being typed (default ``label``).
    insert: str | None = None


@dataclass(frozen=True)
class Symbol:
    name: str
    #: ``heading`` (``level`` 1–6), ``doc``, ``label``, ``term``.
    kind: str
    span: Span
    end_line: int
    level: int = 0
    detail: str = ""
    children: tuple[Symbol, ...] = ()


@dataclass(frozen=True)
class Edit:
    span: Span
    text: str


@dataclass(frozen=True)
class Fix:
    """A quick fix a drift's sentence proposes: its title (Japanese) and the edits it makes."""

    title: str
    edits: tuple[Edit, ...]


@dataclass
class _Refs:
    """Every reference of the project, by what it lands on (built once per navigator)."""

    by_doc: dict[str, list[Span]] = field(default_factory=dict)
    by_anchor: dict[tuple[str, str], list[Span]] = field(default_factory=dict)
    by_term: dict[str, list[Span]] = field(default_factory=dict)


class Navigator:
    """Answers about one check run's project; ``texts`` are the unsaved contents the run used."""

    def __init__(self, ctx: CheckContext, texts: Mapping[Path, str] | None = None) -> None:
        self.ctx = ctx
        self.project = ctx.project
        self.model: Model = ctx.model
        self.index: Index | None = ctx.index
        self.srcdir = self.project.source_dir.resolve()
        self.texts = dict(texts or {})
        self._lines: dict[Path, list[str]] = {}
        self._spans: dict[str, list[tuple[Link, Span]]] = {}
        self._docnames: dict[Path, str] = {}
        #: Each document's references by what they land on (merged into ``_refs`` when asked).
        self._refs_of: dict[str, _Refs] = {}
        self._refs: _Refs | None = None

    def keep_from(self, previous: Navigator, edited: Path | None = None, landings: bool = False) -> Navigator:
        """Take over ``previous``'s per-document work for every document this run read as that one
        did (same facts, same text) — its lines and where its references are written, and with
        ``landings`` where they land (the caller knows the reference model did not change) — so
        the first question after an edit reads and resolves the edited document only.
        Returns ``self``."""
        # Copies of the dicts: a question on the query thread may be filling them meanwhile.
        for docname, spans in list(previous._spans.items()):
            path = self.path_of(docname)
            if path == edited or not self._same(previous, docname, path):
                continue
            self._spans[docname] = spans
            lines = previous._lines.get(path)
            if lines is not None:
                self._lines[path] = lines
            refs = previous._refs_of.get(docname) if landings else None
            if refs is not None:
                self._refs_of[docname] = refs
        return self

    def _same(self, previous: Navigator, docname: str, path: Path) -> bool:
        mine, theirs = self.facts(docname), previous.facts(docname)
        same_facts = mine is theirs or (mine is not None and theirs is not None and mine.content_key == theirs.content_key)
        return same_facts and self.texts.get(path) == previous.texts.get(path)

    # -- files and names ----------------------------------------------------------------------

    def lines(self, path: Path) -> list[str]:
        """The lines of a file as the run saw it (the unsaved text when there is one); [] when unreadable."""
        found = self._lines.get(path)
        if found is None:
            text = self.texts.get(path)
            if text is None:
                try:
                    # A repository's file: through the door (inside the project, regular, capped).
                    text = door.read_text(path, self.project.pipeline.project_root, "文書", path.name)
                except MdmarkError:
                    text = ""
            found = self._lines[path] = text.splitlines()
        return found

    def docname(self, path: Path) -> str | None:
        # Most paths come resolved (the server's, the facts'): resolving again costs system calls
        # for every drift of every change.
        found = self._docnames.get(path)
        if found is None:
            try:
                rel = path.resolve().relative_to(self.srcdir).as_posix()
            except ValueError:
                rel = ""
            found = self._docnames[path] = rel[: -len(".md")] if rel.endswith(".md") else ""
        return found or None

    def path_of(self, docname: str) -> Path:
        return self.srcdir / f"{docname}.md"

    def facts(self, docname: str) -> DocFacts | None:
        return self.model.facts(docname)

    def is_index(self, path: Path) -> bool:
        # The index is YAML: a document's path is never resolved to be compared with it.
        return self.index is not None and (path == self.index.path or (path.suffix != ".md" and path.resolve() == self.index.path))

    def doc_of_id(self, doc_id: str) -> tuple[Doc, str | None] | None:
        """The index entry of ``doc_id`` and its document's docname (None outside the source folder)."""
        if self.index is None:
            return None
        entry = self.index.doc(doc_id)
        if entry is None:
            return None
        return entry, self.docname(self.ctx.doc_file(entry))

    def entry_of(self, docname: str) -> Doc | None:
        """The index entry of a document (the first when two share its file)."""
        if self.index is None:
            return None
        path = self.path_of(docname)
        return next((d for d in self.index.docs if self.ctx.doc_file(d) == path), None)

    def index_span(self, where: str, value: str | None = None) -> Span | None:
        """The place of key path ``where`` in the index (of ``value`` on that line when given)."""
        if self.index is None or self.index.yaml is None:
            return None
        line = self.index.yaml.line_of(where)
        if line is None:
            return None
        return self._on_line(self.index.path, line, value)

    def _on_line(self, path: Path, line: int, value: str | None) -> Span:
        lines = self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if value:
            at = text.rfind(value)
            if at >= 0:
                return Span(path, line, at, at + len(value))
        stripped = len(text) - len(text.lstrip())
        return Span(path, line, stripped, len(text))

    # -- where references are written -------------------------------------------------------

    def reference_spans(self, docname: str) -> list[tuple[Link, Span]]:
        """Each reference of a document with the span of its target as written (the whole
        paragraph line when it cannot be found)."""
        hit = self._spans.get(docname)
        if hit is not None:
            return hit
        facts = self.facts(docname)
        out: list[tuple[Link, Span]] = []
        if facts is not None:
            path = self.path_of(docname)
            lines = self.lines(path)
            taken: set[tuple[int, int]] = set()
            for link in facts.links:
                out.append((link, self._locate(path, lines, link, taken)))
        self._spans[docname] = out
        return out

    def _locate(self, path: Path, lines: list[str], link: Link, taken: set[tuple[int, int]]) -> Span:
        first = max(link.line, 1)
        for number in range(first, min(len(lines), first + _PARAGRAPH_LINES) + 1):
            text = lines[number - 1]
            for start, end in _written_targets(text, link):
                if (number, start) not in taken:
                    taken.add((number, start))
                    return Span(path, number, start, end)
            if number > first and not text.strip():
                break
        text = lines[first - 1] if first <= len(lines) else ""
        return Span(path, first, 0, len(text))

    def toc_spans(self, docname: str) -> list[tuple[TocEntry, Span]]:
        facts = self.facts(docname)
        if facts is None:
            return []
        path = self.path_of(docname)
        out = []
        for tree in facts.toctrees:
            for entry in tree.entries:
                out.append((entry, self._on_line(path, entry.line, _toc_target_text(entry.written))))
        return out

    def reference_span(self, file: Path, line: int | None, target_hint: str | None = None) -> Span | None:
        """The span of the reference a drift at ``line`` of ``file`` is about (its written target
        is in the sentence between the first pair of backquotes)."""
        docname = self.docname(file)
        if docname is None or line is None:
            return None
        for entry, span in self.toc_spans(docname):
            if entry.line == line and (target_hint is None or entry.written == target_hint):
                return span
        for link, span in self.reference_spans(docname):
            if link.line == line and (target_hint is None or target_hint in (link.target, link.target.split("#", 1)[0], link.anchor)):
                return span
        return None

    # -- what is at a position ---------------------------------------------------------------

    def at(self, path: Path, line: int, column: int) -> Found | None:
        """What the position is on (see :class:`Found`); None when nothing mdmark knows is there."""
        path = path.resolve()
        if self.is_index(path):
            return self._at_index(path, line, column)
        docname = self.docname(path)
        if docname is None or self.facts(docname) is None:
            return None
        facts = self.facts(docname)
        assert facts is not None
        for link, span in self.reference_spans(docname):
            if span.line == line and span.start <= column <= span.end:
                thing = self._landing(link, docname)
                if thing is not None:
                    return Found(thing, span, True)
        for entry, span in self.toc_spans(docname):
            if span.line == line and entry.kind == "doc" and entry.target in self.model.found:
                return Found(Thing("doc", entry.target), span, True)
        lines = self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        label = _LABEL_LINE.match(text)
        if label is not None:
            name = label.group(1)
            owned = next((lab for lab in facts.labels if lab.name == name.lower() or lab.name == name), None)
            if owned is not None:
                start = text.index("(") + 1
                return Found(Thing("anchor", docname, owned.id, owned.name), Span(path, line, start, start + len(name)), False)
        for heading in facts.headings:
            if heading.line == line and not heading.included and heading.anchor:
                start = len(text) - len(text.lstrip("# ")) if text.lstrip().startswith("#") else 0
                return Found(Thing("anchor", docname, heading.anchor), Span(path, line, start, len(text)), False)
        return Found(Thing("doc", docname), Span(path, line, 0, len(text)), False)

    def _landing(self, link: Link, docname: str) -> Thing | None:
        resolved = self.model.resolve(link, docname)
        if link.role == "term" and resolved.doc is not None:
            return Thing("term", resolved.doc, resolved.anchor, resolved.text or link.target)
        if link.role == "eq" and resolved.doc is not None:
            return Thing("eq", resolved.doc, resolved.anchor, link.target)
        if resolved.doc is not None and resolved.anchor is not None:
            return Thing("anchor", resolved.doc, resolved.anchor, link.target if link.role in ("ref", "numref") else None)
        if resolved.doc is not None:
            return Thing("doc", resolved.doc)
        if resolved.file is not None:
            return Thing("file", name=resolved.file)
        return None

    def _keys_on(self, line: int) -> list[str]:
        if self.index is None or self.index.yaml is None:
            return []
        return sorted((w for w, n in self.index.yaml.lines.items() if n == line), key=len, reverse=True)

    def _at_index(self, path: Path, line: int, column: int) -> Found | None:
        index = self.index
        assert index is not None
        lines = self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        data = index.yaml.data if index.yaml is not None else None
        for where in self._keys_on(line):
            value = _value_at(data, where)
            parts = re.findall(r"[^.\[\]]+|\[\d+\]", where)
            if isinstance(value, dict):
                value = value.get("to") if "related" in where else value.get("name") if "tags" in where else None
            if not isinstance(value, str):
                continue
            at = text.find(value)
            span = Span(path, line, max(at, 0), at + len(value) if at >= 0 else len(text))
            top = parts[0] if parts else ""
            last = parts[-1]
            if top == "docs" and (last == "to" or "related" in parts) or top == "terms" and "docs" in parts[1:]:
                found = self.doc_of_id(value)
                if found is not None and found[1] is not None:
                    return Found(Thing("doc", found[1]), span, True)
            elif top == "docs" and ("tags" in parts or last == "deprecated"):
                return Found(Thing("tag", name=index.canonical_tag(value)), span, True)
            elif top == "tags" and last in ("name", "deprecated") or top == "tags" and "aliases" in parts:
                return Found(Thing("tag", name=index.canonical_tag(value)), span, last != "name")
            elif top == "docs" and last in ("id", "path", "title"):
                entry = index.docs[int(parts[1].strip("[]"))]
                docname = self.docname(self.ctx.doc_file(entry))
                if docname is not None:
                    return Found(Thing("doc", docname), span, last == "path")
            elif top == "terms" and last in ("term", "id"):
                term = index.terms[int(parts[1].strip("[]"))]
                owner = self.model.terms.get(term.term.lower())
                return Found(Thing("term", owner[0] if owner else None, owner[1] if owner else None, term.term), span, False)
        return None

    # -- definition ---------------------------------------------------------------------------

    def definition(self, found: Found) -> list[Span]:
        """Where the thing is defined: the document's first line, the heading or label line, the
        glossary entry, the index's tag entry; from the index, a document id's entry comes first."""
        thing = found.thing
        out: list[Span] = []
        if thing.kind == "doc" and thing.doc is not None:
            if self.is_index(found.span.path):
                entry = self.entry_of(thing.doc)
                if entry is not None and found.span.path != self.path_of(thing.doc):
                    span = self.index_span(f"{entry.where}.id", entry.id)
                    if span is not None and span.line != found.span.line:
                        out.append(span)
            out.append(self._doc_start(thing.doc))
        elif thing.kind in ("anchor", "eq") and thing.doc is not None:
            span = self.anchor_span(thing.doc, thing.anchor or "", thing.name)
            out.append(span or self._doc_start(thing.doc))
        elif thing.kind == "term":
            out.extend(self._term_spans(thing))
        elif thing.kind == "tag" and self.index is not None and thing.name:
            tag = self.index.tag(thing.name)
            if tag is not None:
                span = self.index_span(f"{tag.where}.name", tag.name)
                if span is not None:
                    out.append(span)
        elif thing.kind == "file" and thing.name:
            out.append(Span(self.srcdir / thing.name, 1))
        return out

    def _doc_start(self, docname: str) -> Span:
        facts = self.facts(docname)
        line = facts.title_line if facts is not None and facts.title_line else 1
        return Span(self.path_of(docname), line, 0, 0)

    def anchor_span(self, docname: str, anchor: str, name: str | None = None) -> Span | None:
        """The line that defines ``anchor`` (a heading's id, a label, an equation label) in a document."""
        facts = self.facts(docname)
        if facts is None:
            return None
        path = self.path_of(docname)
        lines = self.lines(path)
        wanted = {w for w in (anchor, name) if w}
        labels = {lab.name for lab in facts.labels if lab.id == anchor or lab.name in wanted}
        wanted |= labels
        for number, text in enumerate(lines, 1):
            match = _LABEL_LINE.match(text)
            if match and (match.group(1) in wanted or match.group(1).lower() in wanted):
                start = text.index("(") + 1
                return Span(path, number, start, start + len(match.group(1)))
            option = re.match(r"^\s*:(name|label):\s*(\S+)\s*$", text)
            if option and option.group(2) in wanted:
                return Span(path, number, option.start(2), option.end(2))
            math = re.search(r"\$\$\s*\(([^()\s]+)\)\s*$", text)
            if math and math.group(1) in wanted:
                return Span(path, number, math.start(1), math.end(1))
        for heading in facts.headings:
            if not heading.included and (anchor in heading.ids or heading.slug == anchor):
                return self._heading_span(path, heading)
        return None

    def _heading_span(self, path: Path, heading: Heading) -> Span:
        lines = self.lines(path)
        text = lines[heading.line - 1] if 0 < heading.line <= len(lines) else ""
        at = text.find(heading.title)
        return Span(path, heading.line, max(at, 0), at + len(heading.title) if at >= 0 else len(text))

    def _term_spans(self, thing: Thing) -> list[Span]:
        out: list[Span] = []
        name = thing.name or ""
        if thing.doc is not None:
            path = self.path_of(thing.doc)
            for number, text in enumerate(self.lines(path), 1):
                if text.strip() == name or text.strip().lower() == name.lower():
                    at = text.find(text.strip())
                    out.append(Span(path, number, at, at + len(text.strip())))
                    break
        if self.index is not None:
            for term in self.index.terms:
                if normalize(name) in (normalize(n) for n in (term.term, *term.aliases)):
                    span = self.index_span(f"{term.where}.term", term.term)
                    if span is not None:
                        out.append(span)
        if not out and thing.doc is not None:
            out.append(self._doc_start(thing.doc))
        return out

    # -- references ---------------------------------------------------------------------------

    def _all_refs(self) -> _Refs:
        if self._refs is not None:
            return self._refs
        refs = _Refs()
        for docname in sorted(self.model.found):
            if self.facts(docname) is None:
                continue
            own = self._doc_refs(docname)
            for doc, spans in own.by_doc.items():
                refs.by_doc.setdefault(doc, []).extend(spans)
            for anchor, spans in own.by_anchor.items():
                refs.by_anchor.setdefault(anchor, []).extend(spans)
            for term, spans in own.by_term.items():
                refs.by_term.setdefault(term, []).extend(spans)
        self._refs = refs
        return refs

    def _doc_refs(self, docname: str) -> _Refs:
        """The references one document makes, by what they land on."""
        hit = self._refs_of.get(docname)
        if hit is not None:
            return hit
        refs = _Refs()
        for link, span in self.reference_spans(docname):
            thing = self._landing(link, docname)
            if thing is None or thing.doc is None:
                continue
            if thing.kind == "term" and thing.name:
                refs.by_term.setdefault(thing.name.lower(), []).append(span)
            elif thing.anchor is not None:
                refs.by_anchor.setdefault((thing.doc, thing.anchor), []).append(span)
            else:
                refs.by_doc.setdefault(thing.doc, []).append(span)
        facts = self.facts(docname)
        assert facts is not None
        spans = {(e.line, e.written): s for e, s in self.toc_spans(docname)}
        for tree in facts.toctrees:
            for item in self.model.toctree_items(tree, docname):
                if item.kind == "doc" and (item.line, item.written) in spans:
                    refs.by_doc.setdefault(item.target, []).append(spans[(item.line, item.written)])
        self._refs_of[docname] = refs
        return refs

    def references(self, found: Found, include_definition: bool = True) -> list[Span]:
        """Every place that refers to the thing: links, roles and toctree entries across the
        documents, ids and tags in the index (the definition too when ``include_definition``)."""
        thing = found.thing
        refs = self._all_refs()
        out: list[Span] = []
        if thing.kind == "doc" and thing.doc is not None:
            out.extend(refs.by_doc.get(thing.doc, []))
            # Links to any of its anchors refer to the document too.
            for (doc, _anchor), spans in sorted(refs.by_anchor.items()):
                if doc == thing.doc:
                    out.extend(spans)
            out.extend(self._index_references(thing.doc, include_definition))
        elif thing.kind in ("anchor", "eq") and thing.doc is not None:
            facts = self.facts(thing.doc)
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
        elif thing.kind == "term" and thing.name:
            names = {thing.name.lower()}
            if self.index is not None:
                for term in self.index.terms:
                    if thing.name.lower() in (n.lower() for n in (term.term, *term.aliases)):
                        names |= {n.lower() for n in (term.term, *term.aliases)}
            for name in sorted(names):
                out.extend(refs.by_term.get(name, []))
        elif thing.kind == "tag" and self.index is not None and thing.name:
            for entry in self.index.docs:
                for ref in entry.tags:
                    if self.index.canonical_tag(ref.name) == thing.name:
                        span = self.index_span(ref.where, ref.name)
                        if span is not None:
                            out.append(span)
        if include_definition:
            out = [*self.definition(Found(thing, found.span, True)), *out]
        return _unique(out)

    def _index_references(self, docname: str, include_entry: bool) -> list[Span]:
        entry = self.entry_of(docname)
        if entry is None or self.index is None:
            return []
        out: list[Span] = []
        if include_entry:
            span = self.index_span(f"{entry.where}.id", entry.id)
            if span is not None:
                out.append(span)
        for doc in self.index.docs:
            for rel in doc.related:
                if rel.to == entry.id:
                    span = self.index_span(f"{rel.where}.to" if not rel.written_as_string else rel.where, rel.to)
                    if span is not None:
                        out.append(span)
        for term in self.index.terms:
            for doc_id, where in term.docs_at:
                if doc_id == entry.id:
                    span = self.index_span(where, doc_id)
                    if span is not None:
                        out.append(span)
        return out

    # -- hover --------------------------------------------------------------------------------

    def hover(self, found: Found) -> str | None:
        """Markdown for a hover: on a reference, the target's title and first paragraph; on a
        document's first line, its index entry."""
        thing = found.thing
        if not found.reference:
            facts = self.facts(thing.doc) if thing.doc is not None else None
            first = facts.title_line or 1 if facts is not None else 1
            if thing.doc is not None and found.span.line <= first and not self.is_index(found.span.path):
                return self._entry_text(thing.doc) or self._excerpt(thing.doc, None)
            if thing.kind == "doc" and thing.doc is not None and self.is_index(found.span.path):
                return self._entry_text(thing.doc)
            if thing.kind != "doc" and thing.kind != "tag":
                return None
        if thing.kind == "tag" and self.index is not None and thing.name:
            tag = self.index.tag(thing.name)
            if tag is None:
                return None
            parts = [f"**{tag.name}**（タグ）"]
            if tag.description:
                parts.append(tag.description)
            if tag.aliases:
                parts.append("別名: " + "、".join(tag.aliases))
            parts.append(f"{len(self.index.docs_with_tag(tag.name))} 件の文書")
            return "\n\n".join(parts)
        if thing.kind == "file":
            return f"ファイル `{thing.name}`"
        if thing.doc is None:
            return None
        if thing.kind == "term" and self.index is not None:
            for term in self.index.terms:
                if (thing.name or "").lower() in (n.lower() for n in (term.term, *term.aliases)):
                    return f"**{term.term}**（用語）\n\n{term.definition or ''}".rstrip()
        if thing.kind == "doc":
            return self._entry_text(thing.doc) or self._excerpt(thing.doc, None)
        return self._excerpt(thing.doc, self.anchor_span(thing.doc, thing.anchor or "", thing.name), thing.anchor)

    def _excerpt(self, docname: str, at: Span | None, anchor: str | None = None) -> str | None:
        facts = self.facts(docname)
        if facts is None:
            return None
        lines = self.lines(self.path_of(docname))
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

    def _entry_text(self, docname: str) -> str | None:
        entry = self.entry_of(docname)
        if entry is None or self.index is None:
            return None
        parts = [f"**{entry.title}**（ID `{entry.id}`、`{entry.path}`）"]
        if entry.description:
            parts.append(entry.description)
        if entry.aliases:
            parts.append("別名: " + "、".join(entry.aliases))
        tags = self.index.tags_of(entry)
        if tags:
            parts.append("タグ: " + "、".join(f"{t.name}{'（主）' if t.main else ''}" for t in tags))
        relations = self.index.relations_of(entry.id)
        if relations:
            parts.append("関連: " + "、".join(f"{r.other.id}（{r.type or '関連'}）" for r in relations))
        return "\n\n".join(parts)

    # -- completion ---------------------------------------------------------------------------

    def complete(
        self,
        path: Path,
        line: int,
        column: int,
        directives: Mapping[str, tuple[str, ...]] | None = None,
        text: str | None = None,
    ) -> list[Completion]:
        """What may be typed at the position: documents in links, ``{doc}`` and toctrees, labels in
        ``{ref}``/``{numref}``, terms in ``{term}``, equations in ``{eq}``, anchors after ``#``,
        ids and tags in the index, directive names and options (``directives``: name → options).
        ``text``: the file as typed now, when newer than the check's."""
        path = path.resolve()
        lines = text.splitlines() if text is not None else self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        before = text[:column]
        if self.is_index(path):
            return self._complete_index(before)
        docname = self.docname(path) or ""
        role = re.search(r"\{([\w:.+-]+)\}`(?:[^`<]*<)?([^`<>]*)$", before)
        if role is not None:
            return self._complete_role(role.group(1), role.group(2), docname)
        link = re.search(r"\]\(<?([^()\s<>]*)$", before)
        if link is not None:
            return self._complete_link(link.group(1), docname)
        if directives is not None:
            fence = re.match(r"^\s*(`{3,}|:{3,})\{([\w:.+-]*)$", before)
            if fence is not None:
                return [Completion(name, "directive") for name in sorted(directives)]
            if re.match(r"^\s*:[\w-]*$", before):
                name = self._open_directive(lines, line)
                if name is not None and name in directives:
                    return [Completion(opt, "option", insert=f"{opt}: ") for opt in directives[name]]
        if self._in_toctree(lines, line) and not before.lstrip().startswith(":"):
            return self._doc_names(docname, suffix=False)
        return []

    def _open_directive(self, lines: list[str], line: int) -> str | None:
        for number in range(line - 1, 0, -1):
            text = lines[number - 1]
            fence = _FENCE_OPEN.match(text)
            if fence is not None:
                return fence.group(2)
            if not _OPTION_LINE.match(text):
                return None
        return None

    def _in_toctree(self, lines: list[str], line: int) -> bool:
        for number in range(line - 1, 0, -1):
            text = lines[number - 1]
            fence = _FENCE_OPEN.match(text)
            if fence is not None:
                return fence.group(2) == "toctree"
            if text.strip().startswith(("```", ":::")):
                return False
        return False

    def _doc_names(self, docname: str, suffix: bool) -> list[Completion]:
        folder = posixpath.dirname(docname) or "."
        out = []
        for other in sorted(self.model.found):
            if other == docname:
                continue
            rel = posixpath.relpath(other, folder)
            out.append(Completion(rel + (".md" if suffix else ""), "doc", self.model.title(other) or ""))
        return out

    def _complete_role(self, role: str, typed: str, docname: str) -> list[Completion]:
        name = role.rpartition(":")[2]
        if name in ("ref", "numref"):
            items = [
                Completion(label, "label", entry[1].title or entry[0])
                for label, entry in sorted(self.model.labels.items())
                if name == "ref" or entry[1].figtype is not None
            ]
            return items
        if name == "doc":
            return self._doc_names(docname, suffix=False)
        if name == "term":
            return [Completion(t[2], "term", t[0]) for t in sorted(self.model.terms.values(), key=lambda t: t[2])]
        if name == "eq":
            return [Completion(n, "eq", doc) for (d, n), (doc, _i, _num) in sorted(self.model.targets.items()) if d == "math"]
        return []

    def _complete_link(self, typed: str, docname: str) -> list[Completion]:
        if "#" in typed:
            file, _, _anchor = typed.partition("#")
            target = docname
            if file:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(docname), file)).removesuffix(".md")
            facts = self.facts(target)
            if facts is None:
                return []
            items = [Completion(h.anchor, "anchor", h.title, insert=f"{file}#{h.anchor}") for h in facts.headings if h.anchor]
            items += [Completion(lab.name, "label", lab.title, insert=f"{file}#{lab.name}") for lab in facts.labels]
            return items
        return self._doc_names(docname, suffix=True)

    def _complete_index(self, before: str) -> list[Completion]:
        if self.index is None:
            return []
        if re.search(r"(^|[\s{,])(to|related_to)\s*:\s*[\w./-]*$", before) or re.search(r"(^|[\s{,])docs\s*:\s*\[[^\]]*$", before):
            return [Completion(d.id, "id", d.title) for d in self.index.docs]
        if re.search(r"(^\s*-\s*(name\s*:\s*)?[^:]*$)|(tags\s*:\s*\[[^\]]*$)|(deprecated\s*:\s*\S*$)", before):
            items = [Completion(t.name, "tag", t.description or "") for t in self.index.tags]
            if re.match(r"^\s*-\s*[\w./-]*$", before):
                items += [Completion(d.id, "id", d.title) for d in self.index.docs]
            return items
        return []

    # -- symbols ------------------------------------------------------------------------------

    def document_symbols(self, path: Path) -> list[Symbol]:
        """The outline of a document (the ``outline`` tool's sections), nested by heading level."""
        from mdmark.queries.outline import sections

        docname = self.docname(path.resolve())
        facts = self.facts(docname) if docname is not None else None
        if facts is None:
            return []
        lines = self.lines(path.resolve())
        flat = [
            Symbol(s.heading.title, "heading", self._heading_span(path.resolve(), s.heading), s.end_line, s.heading.level, s.anchor or "")
            for s in sections(facts, [line + "\n" for line in lines])
        ]
        return _nest(flat)

    def workspace_symbols(self, query: str) -> list[Symbol]:
        """Documents (matched as ``find_docs`` text matches: title, aliases, description), labels and
        terms whose names hold ``query`` (normalised)."""
        from mdmark.queries.find import text_matches

        wanted = normalize(query)
        out: list[Symbol] = []
        if self.index is not None:
            for doc in self.index.docs:
                if wanted and not text_matches(doc, wanted):
                    continue
                docname = self.docname(self.ctx.doc_file(doc))
                if docname is not None and self.facts(docname) is not None:
                    out.append(Symbol(doc.title, "doc", self._doc_start(docname), 0, detail=doc.id))
        else:
            for docname in sorted(self.model.found):
                title = self.model.title(docname)
                if title is not None and wanted in normalize(title):
                    out.append(Symbol(title, "doc", self._doc_start(docname), 0, detail=docname))
        for name, (docname, label) in sorted(self.model.labels.items()):
            if wanted in normalize(name) or (label.title and wanted in normalize(label.title)):
                span = self.anchor_span(docname, label.id, name)
                if span is not None:
                    out.append(Symbol(name, "label", span, 0, detail=label.title))
        for _key, (docname, anchor, term) in sorted(self.model.terms.items()):
            if wanted in normalize(term):
                spans = self._term_spans(Thing("term", docname, anchor, term))
                out.append(Symbol(term, "term", spans[0], 0, detail=docname))
        return out

    # -- rename -------------------------------------------------------------------------------

    def rename_target(self, path: Path, line: int, column: int) -> Found | None:
        """The label or heading anchor at the position that :meth:`rename` can rename, else None."""
        found = self.at(path, line, column)
        if found is None or found.thing.kind != "anchor" or found.thing.doc is None:
            return None
        return found

    def rename(self, found: Found, new: str) -> list[Edit]:
        """The edits that rename a label (its definition and every reference) or a heading's anchor
        (a label is put above the heading and every reference to the anchor points at it).
        Raises :class:`MdmarkError` for a name a label cannot have."""
        thing = found.thing
        assert thing.doc is not None
        if not re.fullmatch(r"[^\s()`<>#]+", new):
            raise MdmarkError(f"`{new}` はラベルに使えない（空白・括弧・` < > # を含む）ので、別の名前にしてください。")
        if new.lower() in self.model.labels and new.lower() != (thing.name or "").lower():
            raise MdmarkError(f"ラベル `{new}` はもう `{self.model.labels[new.lower()][0]}.md` にあるので、別の名前にしてください。")
        edits: list[Edit] = []
        definition = self.anchor_span(thing.doc, thing.anchor or "", thing.name)
        facts = self.facts(thing.doc)
        heading = next(
            (h for h in facts.headings if thing.anchor in h.ids or h.slug == thing.anchor), None
        ) if facts is not None else None
        labelled = definition is not None and (heading is None or definition.line != heading.line)
        if labelled and definition is not None:
            edits.append(Edit(definition, new))
        elif heading is not None:
            edits.append(Edit(Span(self.path_of(thing.doc), heading.line, 0, 0), f"({new})=\n"))
        for span in self.references(Found(thing, found.span, True), include_definition=False):
            if self.is_index(span.path):
                continue
            lines = self.lines(span.path)
            text = lines[span.line - 1][span.start : span.end] if 0 < span.line <= len(lines) else ""
            old = thing.anchor or ""
            names = [n for n in (thing.name, old, heading.slug if heading else None) if n]
            for name in names:
                at = text.rfind(name)
                if at >= 0:
                    edits.append(Edit(Span(span.path, span.line, span.start + at, span.start + at + len(name)), new))
                    break
        return edits

    # -- quick fixes ----------------------------------------------------------------------------

    def fixes(self, diagnostic: Diagnostic, span: Span | None) -> list[Fix]:
        """The fixes a drift's sentence proposes: "近い X に直す" (the reference, toctree entry, index
        path or tag becomes X), the title in the index or the heading (title_mismatch), the missing
        index entry (unindexed_doc). ``span`` is where the drift is shown."""
        kind = str(diagnostic.kind)
        quoted = re.findall(r"`([^`]+)`", diagnostic.message)
        near = re.search(r"近い `([^`]+)`", diagnostic.message)
        out: list[Fix] = []
        if near is not None and span is not None and quoted:
            wanted, written = near.group(1), quoted[0]
            lines = self.lines(span.path)
            text = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
            segment = text[span.start : span.end]
            old = written
            if kind == "broken_anchor" and "#" in segment:
                old = segment.split("#", 1)[1]
            elif kind == "broken_anchor" and len(quoted) > 1 and quoted[1] in segment and quoted[0] not in segment:
                old = quoted[1]
            at = segment.rfind(old)
            if at < 0 and kind in ("unknown_tag", "missing_doc"):
                at, segment = text.rfind(old), text
                base = 0
            else:
                base = span.start
            if at >= 0:
                edit = Edit(Span(span.path, span.line, base + at, base + at + len(old)), wanted)
                out.append(Fix(f"`{old}` を `{wanted}` に直す", (edit,)))
        if kind == "title_mismatch" and self.index is not None and len(quoted) >= 3:
            out.extend(self._title_fixes(diagnostic, quoted))
        if kind == "unindexed_doc":
            fix = self._add_entry(diagnostic.file)
            if fix is not None:
                out.append(fix)
        return out

    def _title_fixes(self, diagnostic: Diagnostic, quoted: list[str]) -> list[Fix]:
        assert self.index is not None
        where = diagnostic.where.removesuffix(".title")
        entry = next((d for d in self.index.docs if d.where == where), None)
        if entry is None:
            return []
        docname = self.docname(self.ctx.doc_file(entry))
        facts = self.facts(docname) if docname is not None else None
        if facts is None or facts.title is None or facts.title_line is None:
            return []
        out = []
        span = self.index_span(diagnostic.where, entry.title)
        if span is not None:
            out.append(Fix(f"索引の title を `{facts.title}` にする", (Edit(span, _yaml_scalar(facts.title)),)))
        heading = next((h for h in facts.headings if h.line == facts.title_line), None)
        if heading is not None and docname is not None:
            out.append(Fix(f"文書の見出しを `{entry.title}` にする", (Edit(self._heading_span(self.path_of(docname), heading), entry.title),)))
        return out

    def _add_entry(self, file: str) -> Fix | None:
        """The index with an entry for the document ``file`` (relative to the config folder), made
        by the same text edit as ``update_index``."""
        from mdmark.queries.edit_index import edit_index_text

        if self.index is None:
            return None
        path = (self.project.root / file).resolve()
        docname = self.docname(path)
        facts = self.facts(docname) if docname is not None else None
        rel = posixpath.relpath(path.as_posix(), self.index.path.parent.as_posix())
        base = re.sub(r"[^\w-]+", "-", posixpath.splitext(rel)[0]).strip("-").lower() or "doc"
        taken = {d.id for d in self.index.docs}
        doc_id, n = base, 2
        while doc_id in taken:
            doc_id, n = f"{base}-{n}", n + 1
        item = {"id": doc_id, "path": rel, "title": (facts.title if facts is not None and facts.title else posixpath.basename(rel))}
        lines = self.lines(self.index.path)
        text = "\n".join(lines) + ("\n" if lines else "")
        try:
            _action, new_text = edit_index_text(text, "doc", doc_id, item, self.index.shown)
        except MdmarkError:
            return None
        whole = Span(self.index.path, 1, 0, 0)
        return Fix(f"索引に `{rel}` を ID `{doc_id}` で足す", (Edit(Span(whole.path, 1, 0, 0), _WHOLE + new_text),))


#: Marks an edit whose text replaces the whole file (the adapter turns it into a full-range edit).
_WHOLE = "\0whole\0"


def whole_file_text(edit: Edit) -> str | None:
    """The new content of the whole file when the edit replaces it, else None."""
    return edit.text[len(_WHOLE) :] if edit.text.startswith(_WHOLE) else None


def _yaml_scalar(text: str) -> str:
    import yaml

    dumped = yaml.safe_dump(text, allow_unicode=True, default_flow_style=True, width=2**30).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()


def _written_targets(text: str, link: Link) -> Iterator[tuple[int, int]]:
    """Spans (code points) on a line where ``link``'s target is written."""
    # Code spans of two or more backquotes may show a role or link as text: not a reference.
    text = _CODE_SPAN.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(1), text)
    role = link.role
    markdown = role in ("link", "myst", "myst-doc", "local") or (role == "download" and "](" in text)
    if not markdown:
        for match in _ROLE.finditer(text):
            name = match.group(1)
            if name.rpartition(":")[2] != role.rpartition(":")[2] and name != role:
                continue
            body = match.group(2)
            angle = re.search(r"<([^<>]*)>\s*$", body)
            if angle is not None:
                inner, start = angle.group(1), match.start(2) + angle.start(1)
            else:
                inner, start = body, match.start(2)
            if inner.strip().lstrip("!~") == link.target or inner.strip() == link.target or link.target in inner:
                yield start, start + len(inner)
        return
    import urllib.parse

    written = {link.target, urllib.parse.quote(link.target, safe="/#:?=&%.~-_")}
    if link.anchor is not None:
        head = link.target.split("#", 1)[0]
        written.add(f"{head}#{urllib.parse.quote(link.anchor, safe='-_.~')}")
    for target in sorted(written):
        for pattern in (f"]({target}", f"](<{target}>", f"<{target}>", f"]: {target}"):
            at = text.find(pattern)
            while at >= 0:
                start = at + len(pattern) - len(target) - (1 if pattern.startswith(("](<", "<")) else 0)
                after = text[start + len(target) : start + len(target) + 1]
                # The whole target, not the start of a longer one (`b.md#準備` in `b.md#準備す`).
                if after in ("", ")", ">", " ", '"', "'"):
                    yield start, start + len(target)
                at = text.find(pattern, at + 1)


def _toc_target_text(written: str) -> str:
    angle = re.search(r"<([^<>]+)>\s*$", written)
    return angle.group(1) if angle else written


def _value_at(data: object, where: str) -> object:
    value = data
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", where):
        if part.startswith("["):
            if not isinstance(value, list):
                return None
            i = int(part[1:-1])
            value = value[i] if i < len(value) else None
        else:
            if not isinstance(value, dict):
                return None
            value = value.get(part)
    return value


def _unique(spans: list[Span]) -> list[Span]:
    return list(dict.fromkeys(spans))


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
