"""One reference model and one resolver for check, export and build (the guide page ``check``, リンクと参照の点検).

:class:`Model` holds what references can land on across the whole project — documents, their
heading slugs and ids, labels, glossary terms, equations, domain objects, figure numbers — built
from the documents' facts, and is the one object callers ask. It keeps what the modules beside it
make and answers through them:

* :mod:`~mdmark.references.tables` — the name tables (a domain's data) and what one document offers;
* :mod:`~mdmark.references.resolve` — the role → resolver table (:meth:`Model.resolve`);
* :mod:`~mdmark.references.toctrees` — toctree entries, order, membership, cycles, figure numbers;
* :mod:`~mdmark.references.tracking` — what an answer depends on (:meth:`Model.track`);
* :mod:`~mdmark.references.problems` — every problem of one document, as check and export say it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from mdmark.core.facts import DocFacts, Label, Link, TocEntry, Toctree
from mdmark.references import toctrees
from mdmark.references.lookup import Problem, Resolved
from mdmark.references.resolve import resolve
from mdmark.references.tables import Names, heading_titles, same_names, same_slugs, suggest
from mdmark.references.tracking import Consulted, kept_hints, noting, same_names_in

if TYPE_CHECKING:
    from mdmark.host.confinfo import ConfInfo


class Model:
    """What references can land on, project-wide.

    ``facts`` gives a document's facts by docname (None when there is no such document); ``found``
    is every document of the project (the Markdown files Sphinx would read); ``order`` the document
    order figures are numbered in.

    The build's section recorder (:class:`mdmark.builders.sections.Recorder`) replaces ``facts``,
    ``_hint``, ``_exists``, ``_is_dir`` and ``_listdir`` on a shallow copy: everything the model
    answers asks through them, and the tables it keeps are attributes of the model itself.
    """

    def __init__(
        self,
        facts: Callable[[str], DocFacts | None],
        found: Iterable[str],
        info: ConfInfo,
        order: Iterable[str] = (),
        exists: Callable[[str], bool] | None = None,
        listdir: Callable[[str], list[str]] | None = None,
        unread: Iterable[str] = (),
        srcdir: str | None = None,
        is_dir: Callable[[str], bool] | None = None,
        sphinx_docs: Iterable[str] | None = None,
        names_of: Model | None = None,
    ) -> None:
        """``names_of``: a model whose documents define the same names (labels, targets, terms):
        its tables and close-name hints are shared instead of every document being read again."""
        self._facts = facts
        #: The facts this model was made from and the documents :meth:`with_facts` replaced.
        self._layers: tuple[Callable[[str], DocFacts | None], dict[str, DocFacts]] = (facts, {})
        #: Every document's facts by docname, when the maker has them as a mapping.
        self.known: Mapping[str, DocFacts | None] | None = None
        #: What the document being resolved looks at, while :meth:`track` records it.
        self._consulted: Consulted | None = None
        #: The source folder (absolute, POSIX): warnings that name absolute paths are shown relative.
        self.srcdir = srcdir
        self._given = (exists, listdir, is_dir)
        self._is_dir = noting(self._noted, is_dir or (lambda _path: False))
        self._in_toctrees: set[str] | None = None
        self._circular: set[tuple[str, str]] | None = None
        self._titles: dict[str, dict[str, str]] = {}
        self.found = set(found)
        #: The documents sphinx-build reads (its exclude_patterns applied), when known.
        self.sphinx_docs = set(sphinx_docs) if sphinx_docs is not None else set(self.found)
        #: Documents of other source suffixes (``.rst``): they exist, mdmark does not read them.
        self.unread = set(unread)
        self.info = info
        self._exists = noting(self._noted, exists or (lambda _path: False))
        #: The file names in a folder (relative to the source folder), for close-name hints.
        self._listdir = noting(self._noted, listdir or (lambda _folder: []))
        self._included: set[str] | None = None
        #: The index's terms and aliases (lower case → as written) that ``{term}`` resolves to when no
        #: document's glossary defines them: the Sphinx extension's generated glossary page, which a
        #: check outside Sphinx does not make (set by :meth:`mdmark.project.main.Project.model_from`).
        self.index_terms: dict[str, str] = dict(names_of.index_terms) if names_of is not None else {}
        #: Close-name hints already found over each project-wide pool: pool → wanted → hint.
        self._hints: dict[str, dict[str, str]] = dict(names_of._hints) if names_of is not None else {}
        #: Labels, targets, terms and domain objects (shared with ``names_of``): made when first
        #: asked for, unless :meth:`keep_names` found the last model's to hold.
        self._names: Names | None = names_of.names if names_of is not None else None
        self._order = list(order)
        self._numbers: dict[tuple[str, str], str] | None = None

    # -- the name tables (:class:`~mdmark.references.tables.Names`) ------------------------------

    @property
    def names(self) -> Names:
        names = self._names
        if names is None:
            # Two threads asking at once both make the same tables: the second's replaces the first's.
            names = self._names = Names.build(self.found, self._facts)
        return names

    @property
    def labels(self) -> dict[str, tuple[str, Label]]:
        return self.names.labels

    @property
    def targets(self) -> dict[tuple[str, str], tuple[str, str, str | None]]:
        return self.names.targets

    @property
    def terms(self) -> dict[str, tuple[str, str, str]]:
        return self.names.terms

    @property
    def objects(self) -> dict[str, dict[str, list[tuple[str, str, str]]]]:
        return self.names.objects

    # -- models made from this one ----------------------------------------------------------------

    def with_facts(self, docname: str, facts: DocFacts) -> Model:
        """This model with one document's facts replaced (an edited document, the others as they
        were): what a check of that one document resolves against. Made again at every keystroke
        of an editor: one lookup deep however many edits came before, and when the document
        defines the same names as before, the name tables are this model's."""
        base, replaced = self._layers
        replaced = {**replaced, docname: facts}

        def lookup(name: str) -> DocFacts | None:
            found = replaced.get(name)
            return found if found is not None else base(name)

        before = self._facts(docname)
        unread = {d for d in self.unread if d != docname} | ({docname} if facts.error is not None else set())
        exists, listdir, is_dir = self._given
        model = Model(
            lookup,
            self.found,
            self.info,
            self._order,
            exists,
            listdir,
            unread,
            srcdir=self.srcdir,
            is_dir=is_dir,
            sphinx_docs=self.sphinx_docs,
            names_of=self if before is not None and same_names(before, facts) else None,
        )
        model._layers = (base, replaced)
        model.index_terms = self.index_terms
        if before is not None and not same_slugs(before, facts):
            model._hints.pop("anchors", None)  # the pool of Markdown anchors holds every heading's slug
        return model

    def with_order(self, order: Iterable[str]) -> Model:
        """This model, numbering figures in ``order`` (the built page's) instead of the toctree's."""
        self._order = list(order)
        self._numbers = None
        return self

    # -- what an answer depends on (:mod:`~mdmark.references.tracking`) ---------------------------

    def _noted(self) -> Consulted | None:
        return self._consulted

    def _hint(self, pool: str, wanted: str, names: Callable[[], Iterable[str]]) -> str:
        """:func:`~mdmark.references.tables.suggest` over the project-wide pool ``pool`` (its ``names``), remembered."""
        hints = self._hints.setdefault(pool, {})
        found = hints.get(wanted)
        if found is None:
            found = hints[wanted] = suggest(wanted, names())
        elif pool == "anchors" and self._consulted is not None:
            # The remembered hint read every document's headings: what depends on it still does.
            self._consulted.every = True
        return found

    def hint_pool(self, pool: str) -> dict[str, str]:
        """The remembered hints over the project-wide pool ``pool``: the same object while the model
        (or one that took them with :meth:`keep_hints`) keeps them."""
        return self._hints.setdefault(pool, {})

    def keep_hints(self, other: Model, changed: Iterable[str]) -> None:
        """Take ``other``'s remembered close-name hints, for a model of the same documents where the
        documents ``changed`` (those whose facts are not the very ones of ``other``) define the same
        names as there (:func:`~mdmark.references.tracking.kept_hints`)."""
        if self._hints or self.found != other.found:
            return
        kept = kept_hints(other._hints, other._facts, self._facts, changed)
        if kept is not None:
            self._hints = kept

    def keep_names(self, other: Model, changed: Iterable[str]) -> None:
        """Take ``other``'s name tables instead of making them, for a model of the same documents
        where the documents ``changed`` (those whose facts are not the very ones of ``other``) add
        the same names as there: after one edit of a text, nothing in the tables moved."""
        if self._names is None and self.found == other.found and same_names_in(other._facts, self._facts, changed):
            self._names = other.names

    def adopt_tables(self, other: Model) -> None:
        """Take ``other``'s figure numbers and toctree tables instead of making them: for a model of
        the same :meth:`inputs` whose documents all have the same :func:`~mdmark.references.tracking.global_part`."""
        self._numbers = other._numbers
        self._in_toctrees = other._in_toctrees
        self._circular = other._circular
        self._included = other._included

    def inputs(self) -> tuple[object, ...]:
        """What the model was made of besides the documents' facts: the documents, the unread ones,
        the ones Sphinx reads, the source folder, the figure order and the configuration."""
        return (frozenset(self.found), frozenset(self.unread), frozenset(self.sphinx_docs), self.srcdir, tuple(self._order), self.info)

    @contextlib.contextmanager
    def track(self) -> Iterator[Consulted]:
        """Record what the block's resolving looks at beyond the project-wide tables: the tables
        (labels, targets, toctrees, figure numbers) are made first, unrecorded."""
        _ = self.numbers
        self.in_toctrees()
        self.circular_entries()
        self.included_files()
        consulted = Consulted()
        self._consulted = consulted
        try:
            yield consulted
        finally:
            self._consulted = None

    @contextlib.contextmanager
    def _untracked(self) -> Iterator[None]:
        """The project-wide tables read every document: not what one document's answer depends on
        (see :func:`~mdmark.references.tracking.global_part`)."""
        held, self._consulted = self._consulted, None
        try:
            yield
        finally:
            self._consulted = held

    # -- what one document offers -------------------------------------------------------------------

    def facts(self, docname: str) -> DocFacts | None:
        if self._consulted is not None:
            self._consulted.docs.add(docname)
        if docname not in self.found:
            return None
        found = self._facts(docname)
        return None if found is None or found.error is not None else found

    def title(self, docname: str) -> str | None:
        found = self.facts(docname)
        return found.title if found is not None else None

    def all_facts(self) -> Iterable[DocFacts]:
        """Every document's facts, in name order (what depends on them depends on every document)."""
        if self._consulted is not None:
            self._consulted.every = True
        for docname in sorted(self.found):
            found = self.facts(docname)
            if found is not None:
                yield found

    def heading_titles(self, docname: str, facts: DocFacts) -> dict[str, str]:
        """A document's heading titles by id and slug, the first heading winning (made once per
        document: a page of 20,000 headings linking to each other must not search per link)."""
        found = self._titles.get(docname)
        if found is None:
            found = self._titles[docname] = heading_titles(facts)
        return found

    # -- resolving (:mod:`~mdmark.references.resolve`) -----------------------------------------------

    def resolve(self, link: Link, docname: str) -> Resolved:
        """Where ``link``, written in ``docname``, lands (see :class:`~mdmark.references.lookup.Resolved`)."""
        return resolve(self, link, docname)

    # -- toctrees (:mod:`~mdmark.references.toctrees`) -----------------------------------------------

    @property
    def numbers(self) -> dict[tuple[str, str], str]:
        """Figure numbers per (document, id): one counter per figtype over the documents in toctree
        order from the root document (as Sphinx numbers them), then the documents no toctree reaches."""
        if self._numbers is None:
            with self._untracked():
                order = [*(self._order or self.toctree_order()), *sorted(self.found)]
                self._numbers = toctrees.count_figures(order, self.facts)
        return self._numbers

    def toctree_order(self, root: str | None = None) -> list[str]:
        """The documents reachable from ``root`` (default: conf.py's ``root_doc``) through toctrees,
        depth-first, each once — the order of Sphinx's ``singlehtml``."""
        start = root if root is not None else self.info.root_doc
        return toctrees.toctree_order(start, self.facts, self.found, self.unread)

    def in_toctrees(self) -> set[str]:
        """Every document some toctree of the project lists (Sphinx's ``toctree_includes``)."""
        if self._in_toctrees is None:
            with self._untracked():
                self._in_toctrees = toctrees.listed_documents(self.facts, self.found, self.unread)
        return self._in_toctrees

    def circular_entries(self) -> set[tuple[str, str]]:
        """The toctree entries ``(document, listed document)`` that close a cycle (:func:`~mdmark.references.toctrees.circular_entries`)."""
        if self._circular is None:
            with self._untracked():
                self._circular = toctrees.circular_entries(self.facts, self.found, self.unread)
        return self._circular

    def included_files(self) -> set[str]:
        """Files some document pulls in with ``{include}`` (Sphinx does not ask those to be in a toctree)."""
        if self._included is None:
            with self._untracked():
                self._included = toctrees.included_files(self.facts, self.found)
        return self._included

    def toctree_items(self, tree: Toctree, docname: str) -> list[TocEntry]:
        """A toctree's entries as Sphinx lists them (:func:`~mdmark.references.toctrees.toctree_items`)."""
        return toctrees.toctree_items(tree, docname, self.found, self.unread)

    def toctree_docs(self, tree: Toctree, docname: str) -> list[tuple[str | None, str]]:
        """The documents a toctree lists, in order: (title as written or None, docname)."""
        return toctrees.toctree_docs(tree, docname, self.found, self.unread)

    def toctree_problems(self, tree: Toctree, docname: str) -> list[tuple[int, Problem]]:
        """The entries of ``tree`` naming no document, and its globs matching none."""
        return toctrees.toctree_problems(self, tree, docname)
