"""One reference model and one resolver for check, export and build (the guide page ``check``, リンクと参照の点検).

:class:`Model` holds what references can land on across the whole project — documents, their
heading slugs and ids, labels, glossary terms, equations, domain objects, figure numbers — built
from the documents' facts. :meth:`Model.resolve` decides a reference the way Sphinx and MyST do
(``sphinx.domains.std``, ``myst_parser.sphinx_ext.myst_refs``), and when it lands nowhere gives the
one sentence that ``check`` reports as a drift and ``export``/``build`` print as a warning, at the
same line. Hints never name the document the reference is in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import posixpath
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from mdmark.host.confine import OUTSIDE_WARNING, REFUSED_WARNING
from mdmark.host.confinfo import TOC_PLACING
from mdmark.core.facts import UNCHECKED_WARNING, DocFacts, Label, Link, TocEntry, Toctree, Warning
from mdmark.util.sentences import close_fix, fix_to
from mdmark.util.text import close_file
from mdmark.util.globs import glob_match

if TYPE_CHECKING:
    from mdmark.config.main import Config
    from mdmark.host.confinfo import ConfInfo

_T = TypeVar("_T")

#: Labels Sphinx's std domain always has (its generated index and search pages).
BUILTIN_LABELS: dict[str, str] = {"genindex": "Index", "modindex": "Module Index", "py-modindex": "Module Index", "search": "Search Page"}

#: The pages a toctree may list that Sphinx writes itself (``StandardDomain._virtual_doc_names``):
#: ``sphinx-build -b html`` says nothing of them; a single file has none, so they are left out.
GENERATED_DOCS = frozenset({"genindex", "modindex", "search"})


#: :attr:`Problem.file` of a warning Sphinx could not place (``<unknown>``): check reports it at the
#: config file, without a line, once.
UNPLACED = "<unknown>"


@dataclass(frozen=True)
class Problem:
    """A reference that lands nowhere: the drift kind, Sphinx's warning type and the sentence.

    ``file`` is set (absolute) when the problem stands in a file the document ``{include}``s
    rather than in the document itself: Sphinx reports it at that file and line, and so does check.
    """

    kind: str
    type: str
    message: str
    file: str | None = None


@dataclass(frozen=True)
class Resolved:
    """Where a reference lands: a document (``doc``) and an id in it (``anchor``, None for the
    document itself), a file (``file``, relative to the source folder), or a URL (``url``).

    ``text`` is what a reference without text of its own shows (a title, or ``図 3``); ``problem``
    is set when the reference lands nowhere (then at most ``doc`` is kept, for a link to the page).
    """

    doc: str | None = None
    anchor: str | None = None
    file: str | None = None
    url: str | None = None
    text: str | None = None
    problem: Problem | None = None
    #: Lands nowhere and needs no warning in a page either (Sphinx's generated index pages).
    silent: bool = False
    #: Lands nowhere that mdmark knows, but only code conf.py would run could define it (autodoc
    #: while conf.py is not trusted): not a drift, and the page shows it as text.
    unverified: bool = False


@dataclass
class Consulted:
    """What resolving one document's references looked at beyond the project-wide tables
    (:meth:`Model.track`): the answer holds while these are as they were."""

    #: Documents whose facts were looked at (as :func:`local_part` gives them).
    docs: set[str] = field(default_factory=set)
    #: Every document's headings (a close-name hint over all of them).
    every: bool = False
    #: Paths relative to the source folder asked about on disk (exists, is a folder, listed).
    paths: set[str] = field(default_factory=set)


def global_part(facts: DocFacts | None) -> object:
    """What of one document's facts the model's project-wide tables hold (labels, targets, figure
    numbers, toctrees, included files): while no document's part changes, neither do they."""
    if facts is None or facts.error is not None:
        return None
    return (facts.labels, facts.targets, facts.figures, facts.toctrees, tuple(rel for rel, _stamp in facts.deps))


def local_part(facts: DocFacts | None) -> object:
    """What of one document's facts resolving another document's references can read through
    :meth:`Model.facts`: its path, title, headings, labels and anchors."""
    if facts is None or facts.error is not None:
        return None
    return (facts.path, facts.title, facts.headings, facts.labels, facts.anchors)


def _unquote(anchor: str) -> str:
    return urllib.parse.unquote(anchor) if "%" in anchor else anchor


def _join(docdir: str, path: str) -> str:
    if path.startswith("/"):
        return posixpath.normpath(path.lstrip("/"))
    return posixpath.normpath(posixpath.join(docdir, path)) if docdir else posixpath.normpath(path)


def _suggest(wanted: str, pool: Iterable[str]) -> str:
    # Names with spaces are section names docutils also records; slugs and labels are what people write.
    return close_fix(wanted, [p for p in pool if p and not any(ch.isspace() for ch in p)], "")


def _names(facts: DocFacts) -> tuple[object, ...]:
    """What a document adds to the model's name tables (labels, targets, terms, objects)."""
    return (facts.error, tuple(facts.labels), tuple(facts.targets))


def _slugify(title: str) -> str:
    """MyST's default heading slug (``myst_parser.mdit_to_docutils.base.default_slugify``)."""
    import re

    title = title.strip().lower()
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


class Model:
    """What references can land on, project-wide.

    ``facts`` gives a document's facts by docname (None when there is no such document); ``found``
    is every document of the project (the Markdown files Sphinx would read); ``order`` the document
    order figures are numbered in.
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
        self._given_is_dir = is_dir
        self._is_dir = self._probe(is_dir or (lambda _path: False))
        self._in_toctrees: set[str] | None = None
        self._circular: set[tuple[str, str]] | None = None
        self._titles: dict[str, dict[str, str]] = {}
        self.found = set(found)
        #: The documents sphinx-build reads (its exclude_patterns applied), when known.
        self.sphinx_docs = set(sphinx_docs) if sphinx_docs is not None else set(self.found)
        #: Documents of other source suffixes (``.rst``): they exist, mdmark does not read them.
        self.unread = set(unread)
        self.info = info
        self._given_exists = exists
        self._given_listdir = listdir
        self._exists = self._probe(exists or (lambda _path: False))
        #: The file names in a folder (relative to the source folder), for close-name hints.
        self._listdir = self._probe(listdir or (lambda _folder: []))
        self._included: set[str] | None = None
        self.labels: dict[str, tuple[str, Label]] = {}
        self.targets: dict[tuple[str, str], tuple[str, str, str | None]] = {}
        self.terms: dict[str, tuple[str, str, str]] = {}
        #: The index's terms and aliases (lower case → as written) that ``{term}`` resolves to when no
        #: document's glossary defines them: the Sphinx extension's generated glossary page, which a
        #: check outside Sphinx does not make (set by :meth:`mdmark.project.main.Project.model_from`).
        self.index_terms: dict[str, str] = dict(names_of.index_terms) if names_of is not None else {}
        #: Domain objects: domain → full name → [(object type, document, id)], as the domains hold them.
        self.objects: dict[str, dict[str, list[tuple[str, str, str]]]] = {}
        #: Close-name hints already found over each project-wide pool: pool → wanted → hint.
        self._hints: dict[str, dict[str, str]] = {}
        if names_of is not None:
            self.labels, self.targets, self.terms, self.objects = names_of.labels, names_of.targets, names_of.terms, names_of.objects
            self._hints = dict(names_of._hints)
        # Sphinx reads documents in sorted order and a later label replaces an earlier one.
        for docname in sorted(self.found) if names_of is None else ():
            doc_facts = self._facts(docname)
            if doc_facts is None or doc_facts.error is not None:
                continue
            for label in doc_facts.labels:
                self.labels[label.name] = (docname, label)
            for target in doc_facts.targets:
                if target.type == "term":
                    self.terms.setdefault(target.name.lower(), (docname, target.id, target.name))
                else:
                    self.targets.setdefault((target.domain, target.name), (docname, target.id, target.number))
                if target.domain not in ("math",) and target.type != "term":
                    self.objects.setdefault(target.domain, {}).setdefault(target.name, []).append(
                        (target.type, docname, target.id)
                    )
        self._order = list(order)
        self._numbers: dict[tuple[str, str], str] | None = None

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
        model = Model(
            lookup,
            self.found,
            self.info,
            self._order,
            self._given_exists,
            self._given_listdir,
            unread,
            srcdir=self.srcdir,
            is_dir=self._given_is_dir,
            sphinx_docs=self.sphinx_docs,
            names_of=self if before is not None and _names(before) == _names(facts) else None,
        )
        model._layers = (base, replaced)
        model.index_terms = self.index_terms
        if before is not None and [h.slug for h in before.headings] != [h.slug for h in facts.headings]:
            model._hints.pop("anchors", None)  # the pool of Markdown anchors holds every heading's slug
        return model

    def _hint(self, pool: str, wanted: str, names: Callable[[], Iterable[str]]) -> str:
        """:func:`_suggest` over the project-wide pool ``pool`` (its ``names``), remembered."""
        hints = self._hints.setdefault(pool, {})
        found = hints.get(wanted)
        if found is None:
            found = hints[wanted] = _suggest(wanted, names())
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
        names (labels, targets, terms) as there: the pools are then the same. The Markdown anchors'
        pool holds every heading's slug: kept only when those are the same too."""
        if self._hints or self.found != other.found:
            return
        anchors = True
        for docname in changed:
            before, now = other._facts(docname), self._facts(docname)
            if before is None or now is None:
                if before is not now:
                    return
                continue
            if _names(before) != _names(now):
                return
            anchors = anchors and [h.slug for h in before.headings] == [h.slug for h in now.headings]
        self._hints = {pool: hints for pool, hints in other._hints.items() if anchors or pool != "anchors"}

    def adopt_tables(self, other: Model) -> None:
        """Take ``other``'s figure numbers and toctree tables instead of making them: for a model of
        the same :meth:`inputs` whose documents all have the same :func:`global_part`."""
        self._numbers = other._numbers
        self._in_toctrees = other._in_toctrees
        self._circular = other._circular
        self._included = other._included

    def inputs(self) -> tuple[object, ...]:
        """What the model was made of besides the documents' facts: the documents, the unread ones,
        the ones Sphinx reads, the source folder, the figure order and the configuration."""
        return (frozenset(self.found), frozenset(self.unread), frozenset(self.sphinx_docs), self.srcdir, tuple(self._order), self.info)

    def _probe(self, ask: Callable[[str], _T]) -> Callable[[str], _T]:
        """``ask`` about a path on disk, noted while :meth:`track` records."""

        def noted(path: str) -> _T:
            if self._consulted is not None:
                self._consulted.paths.add(path)
            return ask(path)

        return noted

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
        (see :func:`global_part`)."""
        held, self._consulted = self._consulted, None
        try:
            yield
        finally:
            self._consulted = held

    @property
    def numbers(self) -> dict[tuple[str, str], str]:
        """Figure numbers per (document, id): one counter per figtype over the documents in toctree
        order from the root document (as Sphinx numbers them), then the documents no toctree reaches."""
        if self._numbers is None:
            with self._untracked():
                self._numbers = self._count_figures()
        return self._numbers

    def _count_figures(self) -> dict[tuple[str, str], str]:
        numbers: dict[tuple[str, str], str] = {}
        counters: dict[str, int] = {}
        for docname in [*(self._order or self.toctree_order()), *sorted(self.found)]:
            doc_facts = self.facts(docname)
            if doc_facts is None:
                continue
            for figtype, idents in doc_facts.figures:
                if not idents or (docname, idents[0]) in numbers:
                    continue
                counters[figtype] = counters.get(figtype, 0) + 1
                for ident in idents:
                    numbers[(docname, ident)] = str(counters[figtype])
        return numbers

    def toctree_order(self, root: str | None = None) -> list[str]:
        """The documents reachable from ``root`` (default: conf.py's ``root_doc``) through toctrees,
        depth-first, each once — the order of Sphinx's ``singlehtml``."""
        start = root if root is not None else self.info.root_doc
        order: list[str] = []
        seen: set[str] = set()

        def visit(docname: str) -> None:
            if docname in seen:
                return
            found = self.facts(docname)
            if found is None:
                return
            seen.add(docname)
            order.append(docname)
            for tree in found.toctrees:
                for _title, child in self.toctree_docs(tree, docname):
                    visit(child)

        visit(start)
        return order

    def with_order(self, order: Iterable[str]) -> Model:
        """This model, numbering figures in ``order`` (the built page's) instead of the toctree's."""
        self._order = list(order)
        self._numbers = None
        return self

    # -- what one document offers ------------------------------------------------------------

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

    def _slug(self, facts: DocFacts, anchor: str) -> tuple[str, str] | None:
        """MyST's ``[t](doc.md#anchor)``: a heading slug, a section id that has a slug, or a label
        of that document (by name or by id) — (id, title)."""
        for heading in facts.headings:
            if heading.slug == anchor:
                return heading.anchor or anchor, heading.title
        for heading in facts.headings:
            if heading.slug and anchor in heading.ids:
                return anchor, heading.title
        for label in facts.labels:
            if anchor in (label.name, label.id):
                return label.id, label.title
        return None

    def _too_deep(self, facts: DocFacts, anchor: str) -> bool:
        """Whether ``anchor`` names a heading below ``heading_anchors`` (so it has no slug)."""
        return any(h.slug is None and (anchor in h.ids or _slugify(h.title) == anchor) for h in facts.headings)

    def _anchor_problem(self, written: str, anchor: str, facts: DocFacts, own: bool) -> Problem:
        where = "この文書" if own else f" `{facts.path}` "
        if self._too_deep(facts, anchor):
            message = (
                f"リンク `{written}` の見出し `{anchor}` は heading_anchors（{self.info.heading_anchors}）より深く"
                f"アンカーが無いので、heading_anchors を上げるか見出しに `({anchor})=` のラベルを付けてください。"
            )
        else:
            pool = [h.slug for h in facts.headings if h.slug] + [label.name for label in facts.labels]
            fix = _suggest(anchor, pool)
            what = f"リンク先 `{anchor}`" if written.lstrip("#") == anchor else f"リンク `{written}` の `{anchor}`"
            message = f"{what} に当たる見出し・ラベルが{where}に無いので、{fix or '見出しかラベルを足すか、'}リンクを直してください。"
        return Problem("broken_anchor", "myst.xref_missing", message)

    # -- resolving -------------------------------------------------------------------------------

    def resolve(self, link: Link, docname: str) -> Resolved:
        """Where ``link``, written in ``docname``, lands (see :class:`Resolved`)."""
        if link.external:
            return Resolved(url=link.target)
        role = link.role
        if role == "myst-doc":
            return self._doc(link.doc or "", link.anchor, link.target, docname, "myst.xref_missing")
        if role == "doc":
            return self._doc(link.doc or "", None, link.target, docname, "ref.doc")
        if role == "local":
            return self._local(link, docname)
        if role == "myst":
            return self._myst(link, docname)
        if role in ("link", "download"):
            return self._file(link, docname)
        if role in ("ref", "numref"):
            return self._label(link, docname)
        if role == "term":
            return self._term(link)
        if role == "eq":
            return self._eq(link)
        if role == "any":
            found = self._any(link, docname)
            if found is not None:
                return found
            if self._unverified(None, link.target):
                return Resolved(unverified=True)
            return self._missing_label(link, "ref.any")
        return self._domain(link)

    def _doc(self, target: str, anchor: str | None, written: str, docname: str, type_: str) -> Resolved:
        facts = self.facts(target)
        if facts is None and target in self.unread:
            return Resolved(doc=target)  # a document mdmark does not read: its anchors are not known
        if facts is None:
            pool = [posixpath.relpath(d, posixpath.dirname(docname) or ".") for d in self.found if d != docname]
            wanted = posixpath.relpath(target, posixpath.dirname(docname) or ".")
            fix = close_fix(wanted, pool, "パスを直すか、")
            what = "リンク先の文書" if type_ != "ref.doc" else "{doc} の参照先の文書"
            message = f"{what} `{written.split('#', 1)[0]}` が無いので、{fix}リンクを消してください。"
            return Resolved(problem=Problem("broken_link", type_, message))
        if not anchor:
            return Resolved(doc=target, text=facts.title)
        found = self._slug(facts, _unquote(anchor))
        if found is None:
            return Resolved(doc=target, text=facts.title, problem=self._anchor_problem(written, _unquote(anchor), facts, target == docname))
        return Resolved(doc=target, anchor=found[0], text=found[1] or facts.title)

    def _local(self, link: Link, docname: str) -> Resolved:
        """``[t](#x)`` MyST resolved to an id of this page while reading."""
        facts = self.facts(docname)
        anchor = link.local_id or link.anchor or ""
        if facts is not None and link.local_id is None and anchor not in facts.anchors:
            return Resolved(doc=docname, problem=self._anchor_problem(link.target, anchor, facts, True))
        title = self._heading_titles(docname, facts).get(anchor) if facts is not None else None
        return Resolved(doc=docname, anchor=anchor, text=title)

    def _heading_titles(self, docname: str, facts: DocFacts) -> dict[str, str]:
        """A document's heading titles by id and slug, the first heading winning (made once per
        document: a page of 20,000 headings linking to each other must not search per link)."""
        found = self._titles.get(docname)
        if found is None:
            found = {}
            for heading in facts.headings:
                for key in (*heading.ids, *((heading.slug,) if heading.slug else ())):
                    found.setdefault(key, heading.title)
            self._titles[docname] = found
        return found

    def _label_entry(self, name: str, explicit: bool) -> tuple[str, Label] | None:
        found = self.labels.get(name.lower())
        if found is None:
            return None
        if not explicit and not found[1].title:
            return None  # Sphinx: an anonymous label needs text of its own
        return found

    def _any(self, link: Link, docname: str) -> Resolved | None:
        """MyST's resolution of ``[t](name)``: a label, a document, a std object, another domain's object."""
        target = _written_name(link)
        if target.lower() in BUILTIN_LABELS:
            # Sphinx's generated pages: a single file has none to link to, and nothing is broken.
            return Resolved(text=link.text or BUILTIN_LABELS[target.lower()], silent=True)
        entry = self._label_entry(target, link.explicit)
        if entry is not None:
            owner, label = entry
            return Resolved(doc=owner, anchor=label.id, text=label.title or None)
        doc = _join(posixpath.dirname(docname), target)
        for suffix in self.info.source_suffixes:
            doc = doc.removesuffix(suffix)
        if doc in self.found and self.facts(doc) is not None:
            return Resolved(doc=doc, text=self.title(doc))
        term = self.terms.get(target.lower())
        if term is not None:
            return Resolved(doc=term[0], anchor=term[1], text=term[2])
        equation = self.targets.get(("math", target))
        if equation is not None:
            owner, ident, number = equation
            return Resolved(doc=owner, anchor=ident, text=f"({number})" if number else target)
        found = self.find_object(None, target, None, None, None, True)
        if found is not None:
            return Resolved(doc=found[0], anchor=found[1], text=target)
        return None

    def find_object(
        self,
        domain: str | None,
        name: str,
        objtypes: frozenset[str] | None,
        module: str | None,
        scope: str | None,
        specific: bool,
    ) -> tuple[str, str] | None:
        """(document, id) of the domain object ``name`` names, looked up as the domains do.

        ``domain`` None asks every domain as MyST's ``myst_refs`` and the ``{any}`` role do: the
        std domain by exact name, the others in their "specific" search mode (``resolve_any_xref``).
        A role's own domain searches as ``PythonDomain.find_obj``: written plainly (search mode 0),
        the name itself, then within the class and the module it stands in, whatever the object
        type; written ``.name`` (mode 1), objects of the role's types: module.class.name,
        module.name, name, then any object whose full name ends with ``.name``. Domains whose
        names nest with ``::`` (C, C++) match the same way on that separator.
        """
        domains = [domain] if domain is not None else sorted(self.objects, key=lambda d: d != "std")
        for dom in domains:
            objects = self.objects.get(dom)
            if not objects:
                continue
            if dom == "std":
                entry = (objects.get(f"{module} {name}") if module else None) or objects.get(name)
                if entry and (objtypes is None or any(t in objtypes for t, _o, _i in entry)):
                    kept = [e for e in entry if objtypes is None or e[0] in objtypes]
                    return kept[0][1], kept[0][2]
                continue
            sep = "::" if dom in ("c", "cpp") else "."
            bare = name.lstrip("~").lstrip(".") if dom not in ("c", "cpp") else name.lstrip("~")
            if domain is None or specific:
                wanted = objtypes
                candidates = [sep.join(p for p in (module, scope, bare) if p), sep.join(p for p in (module, bare) if p), bare]
            else:
                wanted = None
                candidates = [bare, sep.join(p for p in (scope, bare) if p), sep.join(p for p in (module, bare) if p),
                              sep.join(p for p in (module, scope, bare) if p)]  # fmt: skip
            for candidate in candidates:
                hit = self._object_of(objects.get(candidate), wanted)
                if hit is not None:
                    return hit
            if domain is None or specific:
                suffix = sep + bare
                for full in sorted(objects):
                    if full.endswith(suffix):
                        hit = self._object_of(objects[full], wanted)
                        if hit is not None:
                            return hit
        return None

    @staticmethod
    def _object_of(entries: list[tuple[str, str, str]] | None, objtypes: frozenset[str] | None) -> tuple[str, str] | None:
        for objtype, owner, ident in entries or ():
            if objtypes is None or objtype in objtypes:
                return owner, ident
        return None

    def _unverified(self, domain: str | None, name: str) -> bool:
        """Whether only code mdmark did not run (autodoc while conf.py is untrusted) could define ``name``."""
        if not self.info.unverified:
            return False
        if domain is not None:
            return domain in self.info.unverified
        # A Markdown link or {any}: a name shaped like a Python object's, when the py domain is unverified.
        return "py" in self.info.unverified and _PY_NAME.fullmatch(name.lstrip("~.")) is not None

    def _myst(self, link: Link, docname: str) -> Resolved:
        found = self._any(link, docname)
        if found is not None:
            return found
        if link.local_id:
            return Resolved(doc=docname, anchor=link.local_id)
        if self._unverified(None, _written_name(link)) or self._held_unread():
            return Resolved(unverified=True)
        written = link.target.split("#", 1)[0]
        # A bare name (no folder, no suffix) is a label; anything else names a file.
        if link.path is not None and ("/" in written or "." in written):
            if self._exists(link.path) and not self._is_dir(link.path):
                return Resolved(file=link.path)
            if self._is_dir(link.path):
                # MyST links documents and files, not folders (Sphinx: myst.xref_missing).
                index = posixpath.join(link.path, "index")
                fix = f"`{posixpath.join(written.rstrip('/'), 'index.md')}` のように文書を指すか、" if index in self.found else ""
                return Resolved(
                    problem=Problem(
                        "broken_link",
                        "myst.xref_missing",
                        f"リンク先 `{written}` はフォルダで文書でもファイルでもないので、{fix or '文書かファイルを指すか、'}リンクを消してください。",
                    )
                )
            return Resolved(problem=Problem("broken_link", "myst.xref_missing", self._missing_file(written, link.path, docname)))
        name = _written_name(link)
        fix = self._hint(
            "anchors", name, lambda: sorted({*self.labels, *(h.slug for f in self._all_facts() for h in f.headings if h.slug)})
        ) or "見出しかラベルを足すか、"
        return Resolved(
            problem=Problem(
                "broken_anchor",
                "myst.xref_missing",
                f"リンク先 `{name}` に当たる見出し・ラベル・文書がどこにも無いので、{fix}リンクを直してください。",
            )
        )

    def _all_facts(self) -> Iterable[DocFacts]:
        if self._consulted is not None:
            self._consulted.every = True
        for docname in sorted(self.found):
            found = self.facts(docname)
            if found is not None:
                yield found

    def _missing_file(self, written: str, path: str, docname: str) -> str:
        folder, name = posixpath.split(path)
        own = f"{docname}.md"
        names = [n for n in self._listdir(folder) if posixpath.join(folder, n) != own and not n.startswith(".")]
        close = close_file(name, names)
        fix = fix_to(posixpath.join(posixpath.dirname(written), close) if close else None, "パスを直すか、")
        return f"リンク先のファイル `{written}` が無いので、{fix}リンクを消してください。"

    def _file(self, link: Link, docname: str) -> Resolved:
        path = link.path
        if path is None:
            return Resolved(url=link.target)
        if path.endswith(".md") and path[: -len(".md")] in self.found:
            return self._doc(path[: -len(".md")], link.anchor, link.target, docname, "myst.xref_missing")
        if link.role == "link" and path.endswith(".html") and not self._exists(path):
            # A URL of a sphinx-design button or card (not a Markdown link: MyST would warn about
            # it) naming the page Sphinx writes for a document: that document.
            page = path[: -len(".html")]
            if page in self.found or page in self.unread:
                return self._doc(page, link.anchor, link.target, docname, "myst.xref_missing")
        if self._exists(path):
            return Resolved(file=path, anchor=link.anchor)
        written = link.target.split("#", 1)[0]
        type_ = "download.not_readable" if link.role == "download" else "myst.xref_missing"
        return Resolved(problem=Problem("broken_link", type_, self._missing_file(written, path, docname)))

    def _held_unread(self) -> bool:
        """Whether documents only a held extension reads exist (notebooks before trust): a label
        nowhere in the documents read may be in one of them."""
        return bool(self.info.held_suffixes) and bool(self.unread)

    def _missing_label(self, link: Link, type_: str) -> Resolved:
        if self._held_unread():
            return Resolved(unverified=True)
        name = link.target
        fix = self._hint("labels", name, lambda: self.labels) or f"`({name})=` を置くか、"
        role = link.role
        return Resolved(
            problem=Problem(
                "broken_anchor", type_, f"{{{role}}} の参照先のラベル `{name}` がどの文書にも無いので、{fix}参照を直してください。"
            )
        )

    def _label(self, link: Link, docname: str) -> Resolved:
        name = link.target.lower()
        if name in BUILTIN_LABELS and link.role == "ref":
            return Resolved(text=BUILTIN_LABELS[name], silent=True)
        if link.role == "numref":
            entry = self.labels.get(name)
        else:
            entry = self._label_entry(name, link.explicit)
            if entry is None and name in self.labels:
                return Resolved(
                    doc=self.labels[name][0],
                    anchor=self.labels[name][1].id,
                    problem=Problem(
                        "broken_anchor",
                        "ref.ref",
                        f"ラベル `{link.target}` には見出しも図の題も無いので、{{ref}} に `文字 <{link.target}>` の形で表示の文字を書いてください。",
                    ),
                )
        if entry is None:
            return self._missing_label(link, f"ref.{link.role}")
        owner, label = entry
        if link.role != "numref":
            return Resolved(doc=owner, anchor=label.id, text=label.title or None)
        number = self.numbers.get((owner, label.id))
        figtype = label.figtype
        if figtype is None or (figtype != "section" and number is None):
            return Resolved(
                doc=owner,
                anchor=label.id,
                text=label.title or link.target,
                problem=Problem(
                    "broken_anchor",
                    "ref.numref",
                    f"{{numref}} のラベル `{link.target}` は番号の付く図・表・コードを指していないので、{{ref}} にするかラベルを図・表・コードに付けてください。",
                ),
            )
        if number is None:
            # Sections are numbered only by a `:numbered:` toctree.
            return Resolved(doc=owner, anchor=label.id, text=label.title or link.target)
        fmt = link.text if link.explicit else self.info.numfig_format.get(figtype, "%s")
        return Resolved(doc=owner, anchor=label.id, text=_numfig_text(fmt, number, label.title))

    def _term(self, link: Link) -> Resolved:
        found = self.terms.get(link.target.lower())
        if found is None and link.target.lower() in self.index_terms:
            # Defined in the index: the Sphinx extension's glossary page holds it; a page mdmark
            # writes shows the term as text, and nothing is wrong.
            return Resolved(text=self.index_terms[link.target.lower()], silent=True)
        if found is None:
            fix = self._hint("terms", link.target, lambda: [t[2] for t in self.terms.values()]) or "用語の綴りを直すか、"
            return Resolved(
                problem=Problem(
                    "broken_anchor",
                    "ref.term",
                    f"用語 `{link.target}` が用語集（glossary）に無いので、{fix}glossary に加えてください。",
                )
            )
        return Resolved(doc=found[0], anchor=found[1], text=found[2])

    def _eq(self, link: Link) -> Resolved:
        found = self.targets.get(("math", link.target))
        if found is None:
            fix = self._hint("math", link.target, lambda: [n for d, n in self.targets if d == "math"]) or "ラベルを直すか、"
            return Resolved(
                problem=Problem(
                    "broken_anchor",
                    "ref.eq",
                    f"数式のラベル `{link.target}` がどの文書にも無いので、{fix}数式に `(label)` を付けてください。",
                )
            )
        return Resolved(doc=found[0], anchor=found[1], text=f"({found[2]})" if found[2] else link.target)

    def _domain(self, link: Link) -> Resolved:
        domain, _, role = link.role.rpartition(":")
        if not domain or link.role == "std:keyword":
            domain, role = "std", role
        objtypes = self.info.objtypes_for(domain, role)
        found = self.find_object(domain, link.target, objtypes, link.module, link.scope, link.specific)
        if found is not None:
            return Resolved(doc=found[0], anchor=found[1], text=None)
        if self._unverified(domain, link.target):
            return Resolved(unverified=True)
        if domain == "py" and _python_builtin(role, link.target):
            return Resolved()  # Sphinx's builtin_resolver: a built-in or typing name stays text, never a warning
        # Sphinx warns about a missing target only for roles made with ``warn_dangling`` (std's
        # option, confval, keyword), or for any role under `nitpicky`.
        warns = domain == "std" and role in _STD_WARNING_ROLES
        if (warns or self.info.nitpicky) and not self._nitpick_ignored(link.role, domain, link.target):
            return Resolved(
                problem=Problem(
                    "broken_anchor",
                    f"ref.{role}",
                    f"{{{link.role}}} の参照先 `{link.target}` がどの文書にも無いので、名前を直すか参照先を書いてください。",
                )
            )
        return Resolved()

    def _nitpick_ignored(self, role: str, domain: str, target: str) -> bool:
        full = role if ":" in role else f"{domain}:{role}"
        return any((kind, name) in self.info.nitpick_ignore for kind in (role, full) for name in (target,))

    # -- toctrees ---------------------------------------------------------------------------------

    def in_toctrees(self) -> set[str]:
        """Every document some toctree of the project lists (Sphinx's ``toctree_includes``)."""
        if self._in_toctrees is None:
            listed: set[str] = set()
            with self._untracked():
                for docname in sorted(self.found):
                    found = self.facts(docname)
                    for tree in found.toctrees if found is not None else ():
                        listed.update(child for _title, child in self.toctree_docs(tree, docname))
            self._in_toctrees = listed
        return self._in_toctrees

    def circular_entries(self) -> set[tuple[str, str]]:
        """The toctree entries ``(document, listed document)`` that close a cycle: the listed
        document leads back through toctrees to the one listing it. Sphinx ignores each of them
        where it meets one (``toc.circular``); every entry inside a strongly connected part of the
        toctree graph is met from some page. Linear in the toctrees' entries (Tarjan, iterative)."""
        if self._circular is None:
            edges: dict[str, list[str]] = {}
            with self._untracked():
                for docname in sorted(self.found):
                    found = self.facts(docname)
                    trees = found.toctrees if found is not None else ()
                    edges[docname] = [c for t in trees for _title, c in self.toctree_docs(t, docname) if c in self.found]
            component = _components(edges)
            self._circular = {
                (d, c) for d, children in edges.items() for c in children if c == d or component[c] == component[d]
            }
        return self._circular

    def included_files(self) -> set[str]:
        """Files some document pulls in with ``{include}`` (Sphinx does not ask those to be in a toctree)."""
        if self._included is None:
            with self._untracked():
                self._included = {
                    rel for docname in sorted(self.found) if (f := self.facts(docname)) is not None for rel, _stamp in f.deps
                }
        return self._included

    def toctree_items(self, tree: Toctree, docname: str) -> list[TocEntry]:
        """A toctree's entries as Sphinx lists them: globs expanded (each document once, never the
        toctree's own), entries naming no document left out, then ``:reversed:`` applied."""
        out: list[TocEntry] = []
        taken = {docname}
        for entry in tree.entries:
            if entry.kind == "glob":
                for match in sorted(d for d in self.found if d not in taken and posixpath_match(d, entry.target)):
                    taken.add(match)
                    out.append(TocEntry(entry.line, entry.written, "doc", match))
            elif entry.kind == "doc":
                if entry.target in self.found or entry.target in self.unread:
                    taken.add(entry.target)
                    out.append(entry)
            else:
                out.append(entry)
        return out[::-1] if tree.reversed else out

    def toctree_docs(self, tree: Toctree, docname: str) -> list[tuple[str | None, str]]:
        """The documents a toctree lists, in order: (title as written or None, docname)."""
        return [(e.title, e.target) for e in self.toctree_items(tree, docname) if e.kind == "doc"]

    def _listable(self, docname: str) -> bool:
        """Whether a toctree entry may name ``docname`` without a warning: a document of the model
        (read or not), except, in a Sphinx project, a Markdown document the config checks but
        conf.py's exclude_patterns leave out (sphinx-build does not read it)."""
        if docname in self.unread or (docname in GENERATED_DOCS and docname not in self.found):
            return True
        if docname not in self.found:
            return False
        return not (self.info.sphinx and docname not in self.sphinx_docs and self._exists(f"{docname}.md"))

    def _excluded_source(self, docname: str) -> tuple[str, str] | None:
        """For a Sphinx project's toctree entry naming no document Sphinx reads: the source file
        that is there all the same (left out by exclude_patterns) and Sphinx's warning type, or None.

        Sphinx says ``toc.excluded`` only when the path it tests, ``doc2path(docname, False)`` (the
        first source suffix), matches a pattern, and ``toc.not_readable`` otherwise, even for a
        ``.md`` file it left out: the type follows Sphinx, the sentence names the file."""
        if not self.info.sphinx or not self.info.source_suffixes:
            return None
        tested = f"{docname}{self.info.source_suffixes[0]}"
        kind = "toc.excluded" if any(glob_match(tested, p) for p in self.info.exclude_patterns) else "toc.not_readable"
        there = next((f"{docname}{s}" for s in self.info.source_suffixes if self._exists(f"{docname}{s}")), None)
        if there is None:
            return (tested, kind) if kind == "toc.excluded" else None
        return there, kind

    def toctree_problems(self, tree: Toctree, docname: str) -> list[tuple[int, Problem]]:
        problems: list[tuple[int, Problem]] = []
        for entry in tree.entries:
            if entry.kind == "doc" and not self._listable(entry.target):
                excluded = self._excluded_source(entry.target)
                if excluded is not None:
                    message = (
                        f"toctree の項目 `{entry.written}` の文書 `{excluded[0]}` は conf.py の exclude_patterns で外されているので、"
                        "項目を消すか、exclude_patterns から外してください。"
                    )
                    problems.append((entry.line, Problem("broken_link", excluded[1], message)))
                    continue
                folder = posixpath.dirname(entry.target)
                pool = [f"{d}.md" for d in self.found if d != docname and posixpath.dirname(d) == folder]
                close = close_file(f"{entry.target}.md", pool)
                fix = fix_to(_relative(close[: -len(".md")], docname) if close else None, "文書の名前を直すか、")
                problems.append(
                    (
                        entry.line,
                        Problem(
                            "broken_link",
                            "toc.not_readable",
                            f"toctree の項目 `{entry.written}` に当たる文書が無いので、{fix}その文書を置いてください。",
                        ),
                    )
                )
            elif entry.kind == "glob" and not any(
                d != docname and posixpath_match(d, entry.target) for d in self.found
            ):
                problems.append(
                    (
                        entry.line,
                        Problem(
                            "broken_link",
                            "toc.empty_glob",
                            f"toctree の glob `{entry.written}` に当たる文書が無いので、パターンを直すか文書を置いてください。",
                        ),
                    )
                )
        return problems


#: std roles Sphinx makes with ``warn_dangling`` (``sphinx.domains.std.StandardDomain.roles``), other
#: than the ones resolved elsewhere here (ref, numref, doc, term).
_STD_WARNING_ROLES = frozenset({"option", "confval", "keyword"})

#: A Python object's dotted name (what autodoc could define).
_PY_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def _python_builtin(role: str, target: str) -> bool:
    """Whether ``{py:role}`target``` names what ``sphinx.domains.python.builtin_resolver`` lets
    pass without a warning: ``None`` (class, obj), a built-in class or a ``typing`` name (class, obj, exc)."""
    import builtins
    import inspect
    import typing

    if role in ("class", "obj") and target == "None":
        return True
    if role not in ("class", "obj", "exc"):
        return False
    return inspect.isclass(getattr(builtins, target, None)) or target.removeprefix("typing.") in typing.__all__


def _written_name(link: Link) -> str:
    """The name a ``myst`` reference looks up (``[t](#name)`` arrives as ``#name``)."""
    return link.anchor if link.target.startswith("#") and link.anchor else link.target


def _relative(target: str, docname: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(docname) or ".")


def posixpath_match(docname: str, pattern: str) -> bool:
    """Sphinx's ``patfilter`` for toctree globs (``*`` does not cross folders, ``**`` does)."""
    return glob_match(docname, pattern)


def _numfig_text(fmt: str, number: str, name: str) -> str:
    """Sphinx's ``{numref}`` text: ``{number}``/``{name}`` fields, else ``%s``."""
    try:
        if "{name}" in fmt or "{number}" in fmt:
            return fmt.format(name=name, number=number)
        return fmt % number if "%s" in fmt else fmt
    except (KeyError, ValueError, IndexError, TypeError):
        return fmt


def _elsewhere(warning: Warning, model: Model, docname: str) -> bool:
    """Whether a warning stands in another document of the project (text this one ``{include}``s):
    Sphinx reports it there, and that document's own check reports it."""
    if not warning.source or not model.srcdir:
        return False
    prefix = model.srcdir.rstrip("/") + "/"
    if not warning.source.startswith(prefix):
        return False
    rel = warning.source[len(prefix) :]
    if rel == f"{docname}.md":
        return False
    other = rel.removesuffix(".md")
    return rel.endswith(".md") and other in model.sphinx_docs and model.facts(other) is not None


def _needs_toctree(facts: DocFacts, model: Model, docname: str) -> bool:
    """Whether Sphinx would say the document is in no toctree (``toc.not_included``)."""
    if docname not in model.sphinx_docs:
        return False  # a document docs.include adds that Sphinx does not read: Sphinx says nothing
    if docname == model.info.root_doc or "orphan" in facts.metadata or docname in model.in_toctrees():
        return False
    return f"{docname}.md" not in model.included_files()


#: docutils' and Sphinx's sentences for an ``{include}``/``{literalinclude}`` whose file is missing.
_MISSING_INCLUDE = re.compile(
    r"""^(?:Directive "(?P<directive>[\w-]+)": file not found: '(?P<a>[^']*)'|Include file '(?P<b>[^']*)' not found or reading it failed)"""
)


def _shown_path(path: str, srcdir: str | None, docname: str) -> str:
    """An absolute path of a warning, relative to the document's folder (as the document writes it)."""
    if srcdir and path.startswith("/"):
        # Outside the source folder too (`../../example.md`): as the document writes it.
        return posixpath.relpath(path, posixpath.join(srcdir, posixpath.dirname(docname)))
    return path


#: Sphinx warnings that name one thing in quotes and are a drift of their own kind: type -> (kind, sentence).
_NAMED_WARNINGS: dict[str, tuple[str, str]] = {
    "misc.highlighting_failure": (
        "code_language",
        "コードブロックの言語 `{name}` を Pygments が知らず色が付かないので、言語の名前を直すか `text` にしてください。",
    ),
    "myst.iref_missing": (
        "broken_link",
        "インベントリ（intersphinx）の参照 `{name}` に当たるものが無いので、conf.py の intersphinx_mapping か参照の名前を直してください。",
    ),
}


#: Sphinx's warning for code that does not lex as its language (``PygmentsBridge.highlight_block``).
_LEXING_ERROR = re.compile(r'as "(?P<lang>[^"]*)" resulted in an error at token: (?P<quote>[\'"])(?P<token>.*?)(?P=quote)\. Retrying')


def warning_problem(warning: Warning, srcdir: str | None = None, docname: str = "") -> Problem:
    """A MyST/docutils warning of a document as the one sentence check and export/build share."""
    missing = _MISSING_INCLUDE.match(warning.message)
    if missing is not None:
        directive = missing.group("directive") or "literalinclude"
        path = _shown_path(missing.group("a") or missing.group("b") or "", srcdir, docname)
        return Problem(
            "broken_link",
            warning.type,
            f"{{{directive}}} のファイル `{path}` が無いので、パスを直すかファイルを置いてください。",
        )
    lexing = _LEXING_ERROR.search(warning.message) if warning.type == "misc.highlighting_failure" else None
    if lexing is not None:
        return Problem(
            "code_language",
            warning.type,
            f"コードを言語 `{lexing.group('lang')}` として読むと `{lexing.group('token')}` で字句が崩れて色付けが外れるので、"
            "コードを直すか、言語を合うもの（`text` など）にしてください。",
        )
    if warning.type in _NAMED_WARNINGS:
        kind, sentence = _NAMED_WARNINGS[warning.type]
        match = re.search(r"'([^']*)'", warning.message)
        return Problem(kind, warning.type, sentence.format(name=match.group(1) if match else warning.message))
    if warning.type in (REFUSED_WARNING, "mdmark.math"):  # mdmark's own: its message is the sentence
        return Problem("syntax", warning.type, warning.message)
    from mdmark.host.warnings_ja import warning_sentence

    return Problem("syntax", warning.type, warning_sentence(warning.message, warning.type))


def _components(edges: dict[str, list[str]]) -> dict[str, int]:
    """Each node's strongly connected component (Tarjan's algorithm without recursion: a
    hostile project's toctrees may chain thousands of documents)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    component: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in edges:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            children = edges.get(node, [])
            if at > 0:
                low[node] = min(low[node], low[children[at - 1]])
            while at < len(children) and children[at] in index:
                if children[at] in on_stack:
                    low[node] = min(low[node], index[children[at]])
                at += 1
            if at < len(children):
                work.append((node, at + 1))
                work.append((children[at], 0))
                continue
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[node]
                    if member == node:
                        break
    return component


def document_problems(facts: DocFacts, model: Model, docname: str) -> list[tuple[int | None, Problem]]:
    """Every broken reference, toctree entry and warning of one document, in line order — what
    ``check`` reports as drift and ``export``/``build`` print, the same sentence at the same line."""
    found: list[tuple[int | None, Problem]] = []
    for link in facts.links:
        resolved = model.resolve(link, docname)
        if resolved.problem is not None and not model.info.suppressed(resolved.problem.type):
            found.append((link.line, resolved.problem))
    circular = model.circular_entries()
    for tree in facts.toctrees:
        for line, problem in model.toctree_problems(tree, docname):
            if not model.info.suppressed(problem.type):
                found.append((line, problem))
        for entry in model.toctree_items(tree, docname):
            if entry.kind == "doc" and (docname, entry.target) in circular and not model.info.suppressed("toc.circular"):
                sentence = (
                    f"toctree の項目 `{entry.written}` をたどるとこの文書に戻って循環し Sphinx はその項目を無視するので、"
                    "循環のどこかの toctree から項目を外してください。"
                )
                found.append((entry.line, Problem("toctree_cycle", "toc.circular", sentence)))
        for _title, child in model.toctree_docs(tree, docname):
            child_facts = model.facts(child)
            if child_facts is not None and not child_facts.headings and not model.info.suppressed("toc.no_title"):
                # Sphinx reports it at the toctree's line, once per entry.
                found.append(
                    (
                        tree.line,
                        Problem(
                            "toctree_no_title",
                            "toc.no_title",
                            f"toctree に挙げた文書 `{_relative(child, docname)}` に見出しが無くリンクが作られないので、その文書に最初の見出しを書いてください。",
                        ),
                    )
                )
    if (
        model.info.sphinx
        and not model.info.suppressed("toc.not_included")
        and not (model.info.static and TOC_PLACING.intersection(model.info.held))  # a held blog or _toc.yml places documents
        and _needs_toctree(facts, model, docname)
    ):
        found.append(
            (
                None,
                Problem(
                    "not_in_toctree",
                    "toc.not_included",
                    "この文書はどの toctree にも入っていないので、どこかの toctree に足すか、front matter に `orphan: true` を書いてください。",
                ),
            )
        )
    for warning in facts.warnings:
        if warning.type == OUTSIDE_WARNING:  # an {include} of a file outside the project root
            found.append((warning.line, Problem("broken_link", warning.type, warning.message)))
    own = posixpath.join(model.srcdir, f"{docname}.md") if model.srcdir else None
    for warning in facts.syntax_warnings:
        if model.info.suppressed(warning.type) or _elsewhere(warning, model, docname):
            continue
        problem = warning_problem(warning, model.srcdir, docname)
        if warning.source and warning.source.startswith("<"):
            # Sphinx's "<unknown>:1" (a docstring autodoc could not place): no file, no line.
            found.append((None, dataclasses.replace(problem, file=UNPLACED)))
            continue
        if warning.source and own is not None and posixpath.normpath(warning.source) != posixpath.normpath(own):
            problem = dataclasses.replace(problem, file=warning.source)
        found.append((warning.line, problem))
    found.sort(key=lambda item: item[0] or 0)
    return found


def unchecked_counts(facts: Iterable[DocFacts]) -> dict[str, int]:
    """The directives and roles left unchecked until trust, per held extension (:mod:`mdmark.host.held_markup`)."""
    counts: dict[str, int] = {}
    for one in facts:
        for warning in one.warnings:
            if warning.type == UNCHECKED_WARNING:
                counts[warning.message] = counts.get(warning.message, 0) + 1
    return counts


def trust_notice(config: Config, info: ConfInfo, facts: Iterable[DocFacts]) -> str | None:
    """The one notice of an untrusted conf.py — check's ``config_value`` drift, build's and export's
    warning — with the blocks and roles its held extensions left unchecked; None when it runs."""
    if config.sphinx_conf is None or not info.static:
        return None
    from mdmark.host.trust import trust_config_name, untrusted_sentence
    from mdmark.util.files import display

    shown = display(config.sphinx_conf, config.root)
    return untrusted_sentence(shown, trust_config_name(config.path), info.held, unchecked_counts(facts), config.sphinx_conf)
