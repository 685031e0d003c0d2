"""Filling in a fragment's reference placeholders, and prefixing ids for the single-page build.

Export (:class:`ExportLinks`): a link to another Markdown document points at its sibling
``.html`` (the file ``mdmark export`` of that document writes), relative to the output file.
Build (:class:`BuildLinks`): every document's ids get the document's prefix, and links between
documents become in-page anchors that land in the right document.

A reference that resolves to nothing keeps its text, loses its ``href`` and becomes a warning
with the file and line.
"""

from __future__ import annotations

import html as htmllib
import os
import posixpath
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mdmark.facts import DocFacts
from mdmark.html.render import TEXT_MARK_CLOSE, TEXT_MARK_OPEN, XREF_PREFIX, Fragment, Note, Xref

_PLACEHOLDER = re.compile(r' href="' + re.escape(XREF_PREFIX) + r'(\d+)"')
_TEXT_MARK = re.compile(TEXT_MARK_OPEN + r"(\d+)" + TEXT_MARK_CLOSE)
_ID_ATTR = re.compile(r'(\s(?:id|for|aria-controls|aria-labelledby|aria-describedby|name)=")([^"]*)(")')
_LOCAL_HREF = re.compile(r'(\shref="#)([^"]+)(")')
_IDS = re.compile(r'\sid="([^"]*)"')
#: A numbered equation in a fragment: its id and number (the text of an {eq} reference).
EQUATION = re.compile(r'\sid="([^"]*)">\s*<span class="eqno">(\([^<]*\))</span>')


#: A glossary term in a fragment: its id and its text (up to the permalink).
TERM = re.compile(r'<dt\b[^>]*\sid="([^"]+)"[^>]*>(.*?)<a class="headerlink"', re.S)
_TAG = re.compile(r"<[^>]+>")


def term_key(text: str) -> str:
    """How a {term} reference is matched to a glossary entry (Sphinx: case-insensitive)."""
    return " ".join(text.split()).lower()


@dataclass
class Target:
    """What a reference landed on: an href (None when broken), the title for implicit text, a warning."""

    href: str | None
    title: str | None = None
    problem: str | None = None


@dataclass
class DocTargets:
    """What other documents' references may land on in one document."""

    docname: str
    title: str | None
    anchors: set[str] = field(default_factory=set)
    #: Section id → heading title (the text of a ``{ref}`` to a section label).
    titles: dict[str, str] = field(default_factory=dict)
    #: Glossary term (:func:`term_key`) → its id.
    terms: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_facts(cls, docname: str, facts: DocFacts, fragment_html: str | None = None) -> DocTargets:
        anchors = set(facts.anchors)
        if fragment_html is not None:
            anchors |= {htmllib.unescape(m) for m in _IDS.findall(fragment_html)}
        titles: dict[str, str] = {}
        terms: dict[str, str] = {}
        if fragment_html is not None:
            titles.update((htmllib.unescape(i), n) for i, n in EQUATION.findall(fragment_html))
            for ident, text in TERM.findall(fragment_html):
                terms.setdefault(term_key(htmllib.unescape(_TAG.sub("", text))), htmllib.unescape(ident))
        for heading in facts.headings:
            for ident in (*heading.ids, *([heading.slug] if heading.slug else [])):
                titles.setdefault(ident, heading.title)
        return cls(docname, facts.title, anchors, titles, terms)


def fill(fragment: Fragment, resolve: Callable[[Xref], Target]) -> tuple[str, list[Note]]:
    """Replace the placeholders of ``fragment`` using ``resolve``; return the HTML and the problems."""
    targets = [resolve(x) for x in fragment.xrefs]
    notes = [Note(x.line, t.problem) for x, t in zip(fragment.xrefs, targets, strict=True) if t.problem]

    def href(match: re.Match[str]) -> str:
        target = targets[int(match.group(1))]
        return "" if target.href is None else f' href="{htmllib.escape(target.href)}"'

    def text(match: re.Match[str]) -> str:
        number = int(match.group(1))
        xref = fragment.xrefs[number]
        return htmllib.escape(targets[number].title or xref.written, quote=False)

    out = _PLACEHOLDER.sub(href, fragment.html)
    out = _TEXT_MARK.sub(text, out)
    return out, notes


def _anchor_problem(written: str, anchor: str) -> str:
    return f"リンク `{written}` の見出し・ラベル `{anchor}` が無いので、リンク先の見出しかアンカーを直してください。"


def _missing_problem(written: str) -> str:
    return f"リンク先 `{written}` が無いので、パスを直すかファイルを置いてください。"


def _term_problem(term: str) -> str:
    return f"用語 `{term}` が用語集（glossary）に無いので、用語の綴りを直すか glossary に加えてください。"


def _label_problem(label: str) -> str:
    return f"参照先のラベル `{label}` がどの文書にも無いので、ラベルの名前を直すか `({label})=` を置いてください。"


class _Links:
    """What export and build resolve alike: dispatch on the reference kind, local files, labels."""

    def __init__(self, docname: str, srcdir: Path, out: Path) -> None:
        self.docname = docname
        self.docdir = posixpath.dirname(docname)
        self.srcdir = srcdir
        self.out_dir = out.parent

    def _rel(self, srcpath: str) -> str:
        rel = os.path.relpath(self.srcdir / srcpath, self.out_dir)
        return urllib.parse.quote(Path(rel).as_posix())

    def _doc(self, docname: str, anchor: str | None, written: str) -> Target:
        raise NotImplementedError

    def _own_anchor(self, anchor: str) -> Target | None:
        raise NotImplementedError

    def _label(self, label: str) -> Target | None:
        return None

    def _term(self, term: str) -> Target:
        raise NotImplementedError

    def _path(self, path: str, anchor: str | None, written: str) -> Target:
        if path.endswith(".md"):
            return self._doc(path[: -len(".md")], anchor, written)
        if (self.srcdir / path).exists():
            return Target(self._rel(path) + (f"#{anchor}" if anchor else ""))
        return Target(None, None, _missing_problem(written))

    def __call__(self, xref: Xref) -> Target:
        if xref.kind == "doc":
            return self._doc(xref.target, xref.anchor, xref.written)
        if xref.kind == "path":
            return self._path(xref.target, xref.anchor, xref.written)
        if xref.kind == "any":
            if not xref.target and xref.anchor:
                return self._doc(self.docname, xref.anchor, xref.written)
            found = self._own_anchor(xref.target) or self._label(xref.target)
            if found is not None:
                return found
            if _looks_like_label(xref.target):
                return Target(None, None, _label_problem(xref.target))
            return self._path(_join(self.docdir, xref.target), xref.anchor, xref.written)
        if xref.kind == "term":
            return self._term(xref.target)
        found = self._own_anchor(xref.target) or self._label(xref.target)
        return found or Target(None, None, _label_problem(xref.target))


class ExportLinks(_Links):
    """Links of one exported document: other documents become their sibling ``.html``."""

    def __init__(
        self,
        docname: str,
        srcdir: Path,
        out: Path,
        own: DocTargets,
        targets_of: Callable[[str], DocTargets | None],
    ) -> None:
        super().__init__(docname, srcdir, out)
        self.own = own
        self.targets_of = targets_of

    def _doc(self, docname: str, anchor: str | None, written: str) -> Target:
        if docname == self.docname:
            info: DocTargets | None = self.own
            href = ""
        elif (self.srcdir / f"{docname}.md").is_file():
            info = self.targets_of(docname)
            href = self._rel(f"{docname}.html")
        else:
            return Target(None, None, _missing_problem(written))
        title = info.title if info else None
        if anchor:
            if info is not None and anchor not in info.anchors:
                return Target(href or None, title, _anchor_problem(written, anchor))
            return Target(f"{href}#{anchor}", info.titles.get(anchor, title) if info else title)
        return Target(href or "#", title)

    def _own_anchor(self, anchor: str) -> Target | None:
        # Only this document's labels are known without reading the others.
        if anchor in self.own.anchors:
            return Target(f"#{anchor}", self.own.titles.get(anchor))
        return None

    def _term(self, term: str) -> Target:
        ident = self.own.terms.get(term_key(term))
        return Target(f"#{ident}") if ident else Target(None, None, _term_problem(term))


def _looks_like_label(target: str) -> bool:
    """MyST's ``[text](#name)`` arrives without the ``#``; a name with no folder or suffix is a label."""
    return bool(target) and "/" not in target and "." not in target


def _join(docdir: str, path: str) -> str:
    if path.startswith("/"):
        return posixpath.normpath(path.lstrip("/"))
    return posixpath.normpath(posixpath.join(docdir, path)) if docdir else posixpath.normpath(path)


def doc_id(docname: str) -> str:
    """The id of a document's wrapper in the built page; its own ids are ``{doc_id}:{id}``.

    Derived from the document's path alone, so an id never changes because another document was
    added, and two documents never share a prefix.
    """
    return re.sub(r"[\s%]", lambda m: f"%{ord(m.group(0)):02X}", docname)


def prefix_ids(html: str, prefix: str) -> str:
    """Prefix every id (and every attribute that names one) in a document's fragment."""
    escaped = htmllib.escape(prefix)
    out = _ID_ATTR.sub(lambda m: f"{m.group(1)}{escaped}:{m.group(2)}{m.group(3)}", html)
    return _LOCAL_HREF.sub(lambda m: f"{m.group(1)}{escaped}:{m.group(2)}{m.group(3)}", out)


class BuildLinks(_Links):
    """Links of one document in the single-page build: every document is an anchor in the page."""

    def __init__(
        self,
        docname: str,
        srcdir: Path,
        out: Path,
        docs: dict[str, DocTargets],
        labels: dict[str, str],
        terms: dict[str, tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(docname, srcdir, out)
        self.docs = docs
        self.labels = labels
        #: Glossary term → (document, id), the first document that defines it.
        self.terms = terms or {}

    def _doc(self, docname: str, anchor: str | None, written: str) -> Target:
        info = self.docs.get(docname)
        if info is None:
            if (self.srcdir / f"{docname}.md").is_file():
                return Target(
                    None,
                    None,
                    f"リンク先の文書 `{written}` は build の include に当たらず 1 枚に入っていないので、include に加えてください。",
                )
            return Target(None, None, _missing_problem(written))
        wrapper = doc_id(docname)
        if anchor:
            if anchor not in info.anchors:
                return Target(f"#{wrapper}", info.title, _anchor_problem(written, anchor))
            return Target(f"#{wrapper}:{anchor}", info.titles.get(anchor, info.title))
        return Target(f"#{wrapper}", info.title)

    def _label(self, label: str) -> Target | None:
        owner = self.labels.get(label)
        if owner is None:
            return None
        info = self.docs[owner]
        return Target(f"#{doc_id(owner)}:{label}", info.titles.get(label))

    def _own_anchor(self, anchor: str) -> Target | None:
        own = self.docs.get(self.docname)
        if own is not None and anchor in own.anchors:
            return Target(f"#{doc_id(self.docname)}:{anchor}", own.titles.get(anchor))
        return None

    def _term(self, term: str) -> Target:
        own_terms = self.docs[self.docname].terms if self.docname in self.docs else {}
        key = term_key(term)
        if key in own_terms:
            return Target(f"#{doc_id(self.docname)}:{own_terms[key]}")
        if key in self.terms:
            owner, ident = self.terms[key]
            return Target(f"#{doc_id(owner)}:{ident}")
        return Target(None, None, _term_problem(term))
