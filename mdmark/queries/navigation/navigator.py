"""The navigator of one check run's project: places, what is at a position, where things are.

The language server's features (one module each beside this one) answer from it: it holds one
check run's :class:`~mdmark.check.rules.context.CheckContext` (the facts of
every document, unsaved buffers included, the reference model and the index) — the same resolver
``check``, ``export`` and ``build`` use, so "go to definition" lands where a built link would.

Places are :class:`Span`: an absolute path, a 1-based line and 0-based code-point columns. The
facts give a reference's paragraph line, not its column; the reference is found in the text from
that line on (:meth:`Navigator.reference_spans`), its target as written.
"""

from __future__ import annotations

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
    from mdmark.index.model import Doc, Index
    from mdmark.references.main import Model

#: Lines after a reference's paragraph line searched for its text (a paragraph's lines).
_PARAGRAPH_LINES = 200
_ROLE = re.compile(r"\{([\w:.+-]+)\}`([^`]*)`")
_LABEL_LINE = re.compile(r"^\s*\(([^()\s][^()]*)\)=\s*$")
FENCE_OPEN = re.compile(r"^\s*(`{3,}|:{3,})\{([\w:.+-]+)\}")
OPTION_LINE = re.compile(r"^\s*:([\w-]+):")
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
class Refs:
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
        self._refs_of: dict[str, Refs] = {}
        self._refs: Refs | None = None

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
        return self.index is not None and (
            path == self.index.path or (path.suffix != ".md" and path.resolve() == self.index.path)
        )

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
            if link.line == line and (
                target_hint is None or target_hint in (link.target, link.target.split("#", 1)[0], link.anchor)
            ):
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
        lines = self.lines(path)
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        for link, span in self.reference_spans(docname):
            if span.line == line and span.start <= column <= span.end:
                thing = self._landing(link, docname)
                if thing is not None:
                    return Found(thing, span, True)
                if (span.start, span.end) != (0, len(text)):
                    # A reference that lands nowhere (its drift says why): nothing is there to go
                    # to, not the document it is written in.
                    return None
        for entry, span in self.toc_spans(docname):
            if span.line == line and entry.kind == "doc" and entry.target in self.model.found:
                return Found(Thing("doc", entry.target), span, True)
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
        if link.role == "term" and (resolved.doc is not None or (resolved.silent and resolved.problem is None)):
            # A document's glossary entry, or (no document) the index's terms entry.
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

    def doc_start(self, docname: str) -> Span:
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
                return self.heading_span(path, heading)
        return None

    def heading_span(self, path: Path, heading: Heading) -> Span:
        lines = self.lines(path)
        text = lines[heading.line - 1] if 0 < heading.line <= len(lines) else ""
        at = text.find(heading.title)
        return Span(path, heading.line, max(at, 0), at + len(heading.title) if at >= 0 else len(text))

    def term_spans(self, thing: Thing) -> list[Span]:
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
            out.append(self.doc_start(thing.doc))
        return out

    # -- references ---------------------------------------------------------------------------

    def all_refs(self) -> Refs:
        if self._refs is not None:
            return self._refs
        refs = Refs()
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

    def _doc_refs(self, docname: str) -> Refs:
        """The references one document makes, by what they land on."""
        hit = self._refs_of.get(docname)
        if hit is not None:
            return hit
        refs = Refs()
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


#: Marks an edit whose text replaces the whole file (the adapter turns it into a full-range edit).
WHOLE = "\0whole\0"


def whole_file_text(edit: Edit) -> str | None:
    """The new content of the whole file when the edit replaces it, else None."""
    return edit.text[len(WHOLE) :] if edit.text.startswith(WHOLE) else None


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


def unique_spans(spans: list[Span]) -> list[Span]:
    return list(dict.fromkeys(spans))
