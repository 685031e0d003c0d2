"""Directives that put what the index knows into the pages.

* ``{mdmark-related}`` — the related documents of a page: the relations it writes (with their
  type and ``when``) and the ones other documents write about it (with the reverse name:
  ``references`` → ``referenced_by`` …).
* ``{mdmark-docs}`` — a table of documents (ID, title, description, tags) filtered by tags, like
  ``find_docs``: ``:tags:`` (all of them) and ``:any-tags:`` (at least one).
* ``{mdmark-glossary}`` — the index ``terms`` as a Sphinx glossary inside a document, so ``{term}``
  links land there (without it, HTML builds get a generated glossary page, see :mod:`.pages`).

Every directive notes the index file as a dependency, so a changed index re-reads the pages that
show it. Links to documents are ordinary ``{doc}`` cross-references; links to tag pages are
:class:`tag_ref` nodes resolved per builder (:func:`.pages.resolve_tag_refs`).
"""

from __future__ import annotations

from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util import logging as sphinx_logging
from sphinx.util.docutils import SphinxDirective

from mdmark.core.errors import MdmarkError
from mdmark.index.model import Doc, Index
from mdmark.util.sentences import close_note

from .state import doc_for_docname, docname_of, env_state

logger = sphinx_logging.getLogger("mdmark.sphinx_ext")


class tag_ref(nodes.inline):  # type: ignore[misc]  # noqa: N801 - docutils nodes are lower case
    """A tag name that links to its tag page where the builder writes tag pages (``tag`` attribute)."""


def split_names(value: str | None) -> list[str]:
    """Tag names of an option: comma-separated, or separated by spaces when there is no comma."""
    if not value:
        return []
    parts = value.split(",") if "," in value else value.split()
    return [p.strip() for p in parts if p.strip()]


class _IndexDirective(SphinxDirective):
    """Shared parts: the index (with its dependency noted) and located warnings."""

    def warn(self, message: str) -> None:
        logger.warning(message, location=(self.env.docname, self.lineno), type="mdmark", subtype="directive")

    def load_index(self) -> Index | None:
        state = env_state(self.env)
        index_file = state.index_file()
        if index_file is not None:
            self.env.note_dependency(str(index_file))
        if state.config is not None and state.config.path is not None:
            self.env.note_dependency(str(state.config.path))
        try:
            return state.index()
        except MdmarkError as exc:
            self.warn(f"{{{self.name}}} を表示できません: {exc.message}")
            return None

    def doc_link(self, index: Index, doc: Doc) -> nodes.Node:
        docname = docname_of(self.env, index, doc)
        if docname is None:
            return nodes.inline("", doc.title, classes=["mdmark-doc"])
        ref = addnodes.pending_xref(
            "",
            refdomain="std",
            reftype="doc",
            reftarget="/" + docname,
            refexplicit=True,
            refwarn=True,
            refdoc=self.env.docname,
        )
        ref += nodes.inline("", doc.title, classes=["mdmark-doc"])
        return ref


class RelatedDirective(_IndexDirective):
    """``{mdmark-related}`` [doc id] — the related documents of this page (or of the named document)."""

    optional_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, object]] = {
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        index = self.load_index()
        if index is None:
            return []
        if self.arguments:
            doc_id = self.arguments[0].strip()
            doc = index.doc(doc_id)
            if doc is None:
                hint = close_note(doc_id, [d.id for d in index.docs])
                self.warn(f"文書の ID `{doc_id}` は索引に無いので、索引の docs[].id を指定してください{hint}。")
                return []
        else:
            doc = doc_for_docname(self.env, index, self.env.docname)
            if doc is None:
                self.warn(
                    f"この文書 `{self.env.doc2path(self.env.docname, base=False)}` は索引に無いので、"
                    "索引に載せるか {mdmark-related} に文書の ID を書いてください。"
                )
                return []
        container = nodes.container(classes=["mdmark-related", *self.options.get("class", [])])
        items = nodes.bullet_list()
        seen: set[tuple[str, str | None]] = set()
        for rel in index.relations_of(doc.id):
            if rel.direction == "incoming" and rel.type == "change_together" and (rel.other.id, rel.type) in seen:
                continue  # written on both sides: shown once
            seen.add((rel.other.id, rel.type))
            items += self._item(index, rel.other, rel.type, rel.when, rel.direction)
        if len(items.children) == 0:
            container += nodes.paragraph("", "関連する文書はありません。", classes=["mdmark-empty"])
        else:
            container += items
        return [container]

    def _item(self, index: Index, target: Doc, rel_type: str | None, when: str | None, direction: str) -> nodes.list_item:
        para = nodes.paragraph()
        para += self.doc_link(index, target)
        para += nodes.Text(" ")
        para += nodes.literal("", rel_type or "related", classes=["mdmark-relation-type"])
        if when:
            para += nodes.Text(" — ")
            para += nodes.inline("", when, classes=["mdmark-when"])
        return nodes.list_item("", para, classes=[f"mdmark-{direction}"])


class DocsDirective(_IndexDirective):
    """``{mdmark-docs}`` with ``:tags:`` / ``:any-tags:`` — a table of the matching documents."""

    has_content = False
    option_spec: ClassVar[dict[str, object]] = {
        "tags": directives.unchanged,
        "any-tags": directives.unchanged,
        "class": directives.class_option,
    }

    def _warn_unknown(self, index: Index, names: list[str]) -> None:
        """A warning for each tag the vocabulary (when the index has one) does not know."""
        vocabulary = [t.name for t in index.tags]
        for name in names:
            if index.has_tags and index.tag(name) is None:
                self.warn(f"タグ `{name}` は索引のタグの語彙に無いので、語彙にあるタグを指定してください{close_note(name, vocabulary)}。")

    def run(self) -> list[nodes.Node]:
        index = self.load_index()
        if index is None:
            return []
        all_tags = split_names(self.options.get("tags"))
        any_tags = split_names(self.options.get("any-tags"))
        self._warn_unknown(index, all_tags)
        self._warn_unknown(index, any_tags)
        matches = index.docs_with_tags(all_tags, any_tags)
        if not matches:
            return [nodes.paragraph("", "該当する文書はありません。", classes=["mdmark-empty"])]
        return [self._table(index, matches)]

    def _table(self, index: Index, docs: list[Doc]) -> nodes.table:
        table = nodes.table(classes=["mdmark-docs", *self.options.get("class", [])])
        group = nodes.tgroup(cols=4)
        table += group
        # Text builders take these as characters; HTML leaves the widths to the browser.
        for width in (12, 24, 36, 24):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        group += head
        head += self._row([nodes.Text(h) for h in ("ID", "タイトル", "説明", "タグ")])
        body = nodes.tbody()
        group += body
        for doc in docs:
            tags = nodes.inline()
            for i, tag in enumerate(index.tags_of(doc)):
                if i:
                    tags += nodes.Text(", ")
                node = tag_ref("", tag.name, classes=["mdmark-tag", *(["mdmark-main-tag"] if tag.main else [])], tag=tag.name)
                tags += nodes.strong("", "", node) if tag.main else node
            body += self._row(
                [nodes.literal("", doc.id), self.doc_link(index, doc), nodes.Text(doc.description or ""), tags]
            )
        return table

    @staticmethod
    def _row(cells: list[nodes.Node]) -> nodes.row:
        row = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += nodes.paragraph("", "", cell)
            row += entry
        return row


class GlossaryDirective(_IndexDirective):
    """``{mdmark-glossary}`` — the index terms as a Sphinx glossary (each term and alias is a ``{term}`` target)."""

    has_content = False
    option_spec: ClassVar[dict[str, object]] = {
        "sorted": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        from sphinx.domains.std import make_glossary_term

        index = self.load_index()
        if index is None:
            return []
        terms = list(index.terms)
        glossary = addnodes.glossary()
        # Sphinx's GlossarySorter reads this flag and sorts the entries itself.
        glossary["sorted"] = "sorted" in self.options
        dlist = nodes.definition_list(classes=["glossary", "mdmark-glossary"])
        glossary += dlist
        source, lineno = self.get_source_info()
        for term in terms:
            item = nodes.definition_list_item()
            for name in (term.term, *term.aliases):
                item += make_glossary_term(self.env, [nodes.Text(name)], None, source, lineno, None, self.state.document)
            definition = nodes.definition()
            if term.definition:
                definition += nodes.paragraph("", term.definition)
            docs = [d for d in (index.doc(i) for i in term.docs) if d is not None]
            if docs:
                para = nodes.paragraph(classes=["mdmark-term-docs"])
                para += nodes.Text("説明している文書: ")
                for i, doc in enumerate(docs):
                    if i:
                        para += nodes.Text("、")
                    para += self.doc_link(index, doc)
                definition += para
            item += definition
            dlist += item
        return [glossary]
