"""Filling in a fragment's references and toctrees, and prefixing ids for the single-page build.

Every reference is resolved by the one resolver (:class:`mdmark.references.main.Model`); this module only
turns where it lands into an ``href``:

* export (:class:`ExportLinks`): another document is its sibling ``.html`` (the file ``mdmark
  export`` of that document writes), relative to the output file;
* build (:class:`BuildLinks`): every document's ids get the document's prefix, and a reference to
  another document lands on that document's section of the page.

A reference that resolves to nothing keeps its text, loses its ``href`` and becomes a warning with
the file, the line and the sentence ``check`` reports for it.
"""

from __future__ import annotations

import html as htmllib
import os
import posixpath
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mdmark.core.facts import Heading, Link, Toctree
from mdmark.html.render import TEXT_MARK_CLOSE, TEXT_MARK_OPEN, TOCTREE_MARK, XREF_PREFIX, Fragment, Note
from mdmark.references.lookup import Resolved
from mdmark.references.main import Model

_PLACEHOLDER = re.compile(r' href="' + re.escape(XREF_PREFIX) + r'(\d+)"')
_TEXT_MARK = re.compile(TEXT_MARK_OPEN + r"(\d+)" + TEXT_MARK_CLOSE)
_TOCTREE = re.compile(re.escape(TOCTREE_MARK) + r"(\d+)-->")
_ID_ATTR = re.compile(r'(\s(?:id|for|aria-controls|aria-labelledby|aria-describedby|name)=")([^"]*)(")')
_LOCAL_HREF = re.compile(r'(\shref="#)([^"]+)(")')


#: Entries one toctree shows at most: past them, entries show without what is under them (a
#: project whose toctrees list each other everywhere would otherwise fill the page with copies).
TOCTREE_ROWS = 5000


class _Links:
    """Where resolved references point in one page; the kinds of page differ in :meth:`doc_href`."""

    def __init__(self, model: Model, docname: str, srcdir: Path, out: Path) -> None:
        self.model = model
        self.docname = docname
        self.srcdir = srcdir
        self.out_dir = out.parent
        #: docname → heading id → the heading's inner HTML as the page shows it
        #: (:func:`mdmark.html.nav.heading_markup`); titles without an entry are escaped text.
        self.markup: dict[str, dict[str, str]] = {}
        #: Told ``(what, of what, the answer)`` for each question about another document this page
        #: asks outside the reference model (the build keeps finished sections by them).
        self.noted: Callable[[str, str, Any], object] | None = None
        #: While a toctree renders: the documents already shown with what is under them (each
        #: once, so a toctree grows with the entries, not with the paths), and the entries left.
        self._expanded: set[str] = set()
        self._rows_left = TOCTREE_ROWS

    def title_html(self, docname: str, heading: Heading | None, text: str) -> str:
        """A heading's title in a toctree: its markup when the page shows inline HTML there."""
        if self.noted is not None:
            self.noted("markup", docname, self.markup.get(docname))
        found = self.markup.get(docname, {})
        if heading is not None:
            for ident in heading.ids:
                if ident in found:
                    return found[ident]
        return htmllib.escape(text)

    def _rel(self, srcpath: str) -> str:
        rel = os.path.relpath(self.srcdir / srcpath, self.out_dir)
        return urllib.parse.quote(Path(rel).as_posix())

    def doc_href(self, docname: str, anchor: str | None) -> str | None:
        raise NotImplementedError

    def missing_doc(self, docname: str, written: str) -> str | None:
        """A build-only problem: the document exists but is not part of the page."""
        return None

    def href(self, resolved: Resolved, written: str) -> tuple[str | None, str | None]:
        """(href, extra problem) for a resolved reference."""
        if resolved.url is not None:
            return resolved.url, None
        if resolved.file is not None:
            return self._rel(resolved.file) + (f"#{resolved.anchor}" if resolved.anchor else ""), None
        if resolved.doc is None:
            return None, None
        href = self.doc_href(resolved.doc, resolved.anchor if resolved.problem is None else None)
        if href is None:
            return None, self.missing_doc(resolved.doc, written)
        return href, None

    def __call__(self, link: Link) -> tuple[str | None, str | None, str | None]:
        """(href, text for a reference without its own, a problem of this page only) of one reference.

        The reference's own problems are :func:`mdmark.references.main.document_problems`' (check's sentences).
        """
        resolved = self.model.resolve(link, self.docname)
        if resolved.problem is not None and link.role == "local":
            # An in-page name that is not there (rST's `` `text <#name>`__ ``): text, as any
            # reference that lands nowhere, not a link to the top of the document.
            return None, resolved.text, None
        href, extra = self.href(resolved, link.target)
        if href is None and extra is None and resolved.problem is None and not resolved.silent:
            # Lands nowhere, and check has nothing to say (Sphinx is silent there too): the page
            # still says why the reference is text.
            extra = unlinked_message(link, resolved)
        return href, resolved.text, extra

    # -- toctrees ---------------------------------------------------------------------------------

    def toctree(self, tree: Toctree) -> str:
        """A toctree as a list of links to its documents (and their headings down to ``maxdepth``)."""
        if tree.hidden:
            return ""
        parts = ['<nav class="mdmark-toctree toctree-wrapper compound">']
        if tree.caption:
            parts.append(f'<p class="caption"><span class="caption-text">{htmllib.escape(tree.caption)}</span></p>')
        self._expanded = set()
        self._rows_left = TOCTREE_ROWS
        items = self._toc_items(tree, self.docname, tree.maxdepth, set(), tree.numbered > 0, ())
        parts.append(items or "<ul></ul>")
        parts.append("</nav>\n")
        return "".join(parts)

    def _toc_items(
        self, tree: Toctree, docname: str, depth: int, seen: set[str], numbered: bool, prefix: tuple[int, ...]
    ) -> str:
        rows: list[str] = []
        number = 0
        level = f"toctree-l{len(prefix) + 1}"
        for entry in self.model.toctree_items(tree, docname):
            if entry.kind == "url":
                title = htmllib.escape(entry.title or entry.target)
                rows.append(f'<li class="{level}"><a class="reference external" href="{htmllib.escape(entry.target)}">{title}</a></li>')
                continue
            if entry.kind == "self":
                own_title = htmllib.escape(entry.title or self.model.title(docname) or untitled_name(docname))
                own_href = htmllib.escape(self.doc_href(docname, None) or "#")
                rows.append(f'<li class="{level}"><a class="reference internal" href="{own_href}">{own_title}</a></li>')
                continue
            child = entry.target
            if child in seen:
                continue  # a cycle back to a document above: Sphinx leaves the entry out (check: toc.circular)
            facts = self.model.facts(child)
            number += 1
            self._rows_left -= 1
            label = entry.title or (facts.title if facts is not None else None) or untitled_name(child)
            numbers = (*prefix, number)
            first = facts.headings[0] if facts is not None and facts.headings and not entry.title else None
            shown = self.title_html(child, first, label)
            if numbered:
                shown = f"{'.'.join(map(str, numbers))}. {shown}"
            child_href = self.doc_href(child, None)
            link = (
                f'<a class="reference internal" href="{htmllib.escape(child_href)}">{shown}</a>'
                if child_href is not None
                else shown
            )
            inner = ""
            if (depth < 0 or depth > 1) and child not in self._expanded and self._rows_left > 0:
                self._expanded.add(child)
                inner = self._toc_children(child, depth - 1 if depth > 0 else -1, {*seen, child}, numbered, numbers, tree.titlesonly)
            rows.append(f'<li class="{level}">{link}{inner}</li>')
        return f"<ul>{''.join(rows)}</ul>" if rows else ""

    def _toc_children(
        self, docname: str, depth: int, seen: set[str], numbered: bool, prefix: tuple[int, ...], titlesonly: bool
    ) -> str:
        """Under a toctree entry: the document's headings (below its title) and its own toctrees."""
        facts = self.model.facts(docname)
        if facts is None:
            return ""
        rows: list[str] = []
        if not titlesonly:
            top = facts.headings[0].level if facts.headings else 1
            for heading in facts.headings[1:]:
                if heading.level == top + 1 and heading.ids:
                    href = self.doc_href(docname, heading.anchor)
                    if href is not None:
                        rows.append(
                            f'<li class="toctree-l{len(prefix) + 1}"><a class="reference internal" href="{htmllib.escape(href)}">{self.title_html(docname, heading, heading.title)}</a></li>'
                        )
        nested = "".join(
            self._toc_items(tree, docname, depth, seen, numbered or tree.numbered > 0, prefix) for tree in facts.toctrees
        )
        inner = f"<ul>{''.join(rows)}</ul>" if rows else ""
        return inner + nested


def untitled_name(docname: str) -> str:
    """What the navigation and toctrees show for a document without a title: its file's name
    (``guide/setup`` → ``setup``), where Sphinx shows ``<no title>``."""
    return posixpath.basename(docname) or docname


def unlinked_message(link: Link, resolved: Resolved) -> str:
    """Why a reference that check does not report is shown as text in a page."""
    written = link.target
    if resolved.unverified:
        return (
            f"参照 `{written}` の行き先は conf.py を信頼するまで作られず（autodoc など）文字のまま出したので、"
            "conf.py の中身を確かめて動かしてよければ `mdmark trust` で信頼してください。"
        )
    role = f"{{{link.role}}} の" if link.role not in ("link", "myst", "local", "myst-doc") else ""
    return f"{role}参照 `{written}` の行き先がどの文書にも無く文字のまま出したので、名前を直すか参照先を書いてください。"


#: An ``<a>`` whose href is a placeholder, up to its end (links do not nest).
_PLACEHOLDER_LINK = re.compile(r'<a\b([^>]*?) href="' + re.escape(XREF_PREFIX) + r'(\d+)"([^>]*)>(.*?)</a>', re.S)
_CLASS_ATTR = re.compile(r'\sclass="([^"]*)"')


def fill(fragment: Fragment, links: _Links, toctrees: list[Toctree]) -> tuple[str, list[Note]]:
    """Replace the placeholders of ``fragment``; return the HTML and the problems only this page has."""
    answers = [links(x) for x in fragment.xrefs]
    notes = [Note(x.line, problem) for x, (_h, _t, problem) in zip(fragment.xrefs, answers, strict=True) if problem]

    def href(match: re.Match[str]) -> str:
        target = answers[int(match.group(1))][0]
        return "" if target is None else f' href="{htmllib.escape(target)}"'

    def text(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return htmllib.escape(answers[number][1] or fragment.xrefs[number].target, quote=False)

    def toctree(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return links.toctree(toctrees[number]) if number < len(toctrees) else ""

    def link(match: re.Match[str]) -> str:
        target = answers[int(match.group(2))][0]
        if target is not None:
            return f'<a{match.group(1)} href="{htmllib.escape(target)}"{match.group(3)}>{match.group(4)}</a>'
        # Never an <a> that goes nowhere: the reference's content, as text, in a span.
        found = _CLASS_ATTR.search(match.group(1) + match.group(3))
        classes = f"{found.group(1)} mdmark-unresolved" if found else "mdmark-unresolved"
        return f'<span class="{classes}">{match.group(4)}</span>'

    out = _PLACEHOLDER_LINK.sub(link, fragment.html)
    out = _PLACEHOLDER.sub(href, out)
    out = _TEXT_MARK.sub(text, out)
    out = _TOCTREE.sub(toctree, out)
    return out, notes


class ExportLinks(_Links):
    """Links of one exported document: other documents become their sibling ``.html``."""

    def doc_href(self, docname: str, anchor: str | None) -> str | None:
        base = "" if docname == self.docname else self._rel(f"{docname}.html")
        if anchor:
            return f"{base}#{anchor}"
        return base or "#"


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
    """Links of one document in the single-page build: every document is a section of the page."""

    def __init__(self, model: Model, docname: str, srcdir: Path, out: Path, in_page: set[str]) -> None:
        super().__init__(model, docname, srcdir, out)
        self.in_page = in_page

    def doc_href(self, docname: str, anchor: str | None) -> str | None:
        if docname not in self.in_page:
            return None
        wrapper = doc_id(docname)
        return f"#{wrapper}:{anchor}" if anchor else f"#{wrapper}"

    def missing_doc(self, docname: str, written: str) -> str | None:
        there = (self.srcdir / f"{docname}.md").is_file()
        if self.noted is not None:
            self.noted("doc_file", docname, there)
        if not there:
            # A Sphinx project's .rst document: mdmark builds Markdown only, so the reference stays
            # text; nothing the user could add to build.include would change that.
            return None
        shown = written.split("#", 1)[0] or posixpath.relpath(docname, posixpath.dirname(self.docname) or ".")
        return f"リンク先の文書 `{shown}` は build の include に当たらず 1 枚に入っていないので、include に加えてください。"
