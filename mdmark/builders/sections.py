"""The built page's finished sections, kept between builds of one page (``mdmark preview`` builds
the page again on every save).

A finished section is a document's fragment with its ids prefixed and its references and toctrees
filled in, plus the warnings the build prints for it. What it came from is of two kinds:

* its own inputs (the document's facts and fragment, where it sits in the page), compared as a key;
* what filling it in read of other documents and of the disk: what of each document's facts the
  reference model looked at (:func:`read_part`: not the content key, so a paragraph added to a
  document leaves the sections that link to it or list it in a toctree as they were), each heading
  markup a toctree showed, each close-name hint's pool, each file whose existence it asked. These
  reads are recorded while the section is made, and a kept section is used again only when asking
  the same questions now gives the same answers.

What every section may depend on without asking by name (the project's labels, targets, figures,
toctrees and included files, the set of documents, the page's order and documents, conf.py's
settings) is one key for the whole page: when it changes, no section is kept.
So an edit that changes no label, figure or toctree makes the edited document's section again, and
the sections that read it (the documents that link to it or list it in a toctree) only when what
they read of it changed (its title, headings, anchors or toctrees), nothing else.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mdmark.references.tracking import local_part

if TYPE_CHECKING:
    from mdmark.core.facts import DocFacts
    from mdmark.references.main import Model

#: One recorded question: (what was asked, of what, the answer). Answers are compared, not hashed.
Read = tuple[str, str, Any]


def fingerprint(facts: DocFacts | None) -> Hashable:
    """What a document's facts are made from: its content key (bytes, settings, conf.py) and the
    stamps of the files it pulled in."""
    return None if facts is None else (facts.sha, tuple(facts.deps))


def read_part(facts: DocFacts | None) -> object:
    """What making another document's section can read of a document's facts through the reference
    model: :func:`~mdmark.references.tracking.local_part` (its path, title, headings, labels and anchors: what
    a reference to it lands on) and its toctrees (what a toctree listing it shows under it). The rest
    the model reads of every document (labels, targets, figures, toctree membership, included files)
    is in the whole-page key. An unchanged document keeps its very lists: comparing is a walk of
    identities."""
    return None if facts is None else (local_part(facts), facts.toctrees)


class _Same:
    """An answer equal only to the answer of the very same object (a close-name hint's pool: the
    model keeps it while no document changed what it is made of)."""

    __slots__ = ("what",)

    def __init__(self, what: object) -> None:
        self.what = what

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.what is self.what

    def __hash__(self) -> int:
        return id(self.what)


@dataclass
class Finished:
    """One document's section of the page as it was made, and what it was made from."""

    own: Hashable
    reads: tuple[Read, ...]
    #: The section's inner HTML (the fragment filled in, before the relation aside).
    html: str
    warnings: list[str]
    #: The identities of the facts, fragment and names the section was last found for, and the
    #: objects themselves (held, so no other object can take their identities).
    source: tuple[int, int, int] | None = None
    held: tuple[object, ...] = ()
    #: The documents whose facts :attr:`reads` asked for, and the reads of other kinds.
    read_docs: frozenset[str] = field(init=False)
    other_reads: tuple[Read, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.read_docs = frozenset(name for kind, name, _answer in self.reads if kind == "facts")
        self.other_reads = tuple(read for read in self.reads if read[0] != "facts")

    def __getstate__(self) -> dict[str, Any]:
        # Kept in a workspace snapshot: identities do not outlive the process (the next one compares
        # the section's own key instead).
        return {**self.__dict__, "source": None, "held": ()}

    def keep_source(self, facts: object, fragment: object, names: object) -> None:
        self.source = (id(facts), id(fragment), id(names))
        self.held = (facts, fragment, names)


@dataclass
class PageSections:
    """What one page (by its output file) keeps between builds."""

    #: The key for the whole page (see the module's text); sections made under another are dropped.
    whole: Hashable = None
    #: docname → (the fragment's section titles as written, their markup as entries show them).
    markup: dict[str, tuple[object, dict[str, str]]] = field(default_factory=dict)
    finished: dict[str, Finished] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Sections made again and kept in the last build (a benchmark and the tests read them).
    made: int = 0
    kept: int = 0
    #: Moves whenever :attr:`whole` changes: what is made from the whole page names it in its key.
    generation: int = 0
    #: Each document's facts (by docname) every kept section was last found still to hold for:
    #: a section none of whose documents' facts changed since needs only its other reads asked.
    seen: Mapping[str, Any] | None = None
    #: The page's navigation: (what it was made from, the entries).
    nav: tuple[Hashable, list[Any]] | None = None
    #: The navigation's markup: (the entries of :attr:`nav` it was written from, with the
    #: overview's entry or not, the markup).
    nav_text: tuple[object, bool, str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        # Kept in a workspace snapshot: not the lock.
        state = dict(self.__dict__)
        del state["lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def nav_of(self, key: Hashable, make: Callable[[], list[Any]]) -> list[Any]:
        """The navigation of ``key`` (the last build's when the key is the same): a new list, the
        caller may append to it."""
        if self.nav is None or self.nav[0] != key:
            self.nav = (key, make())
        return list(self.nav[1])

    def nav_markup(self, overview: bool, make: Callable[[], str]) -> str:
        """The navigation's markup, written again only when :meth:`nav_of` made its entries again
        (or the overview's entry came or went)."""
        entries = self.nav[1] if self.nav is not None else None
        if self.nav_text is None or self.nav_text[0] is not entries or self.nav_text[1] != overview:
            self.nav_text = (entries, overview, make())
        return self.nav_text[2]

    def markup_of(self, docname: str, written: object, make: Callable[[], dict[str, str]]) -> dict[str, str]:
        """The markup ``make`` gives for a document's titles ``written``: the last build's while they are the same."""
        hit = self.markup.get(docname)
        if hit is not None and hit[0] == written:
            return hit[1]
        value = make()
        self.markup[docname] = (written, value)
        return value

    def begin(self, whole: Hashable) -> None:
        if whole != self.whole:
            self.finished.clear()
            self.whole = whole
            self.generation += 1
            self.nav = self.nav_text = self.seen = None
        self.made = self.kept = 0

    def changed_since(self, by_name: Mapping[str, Any]) -> frozenset[str] | None:
        """The documents whose facts are not the very ones of :attr:`seen` (None: ask every read);
        :attr:`seen` is forgotten until :meth:`held_for` says the sections hold for ``by_name``."""
        seen, self.seen = self.seen, None
        if seen is None:
            return None
        changed = {name for name, facts in by_name.items() if facts is not seen.get(name)}
        return frozenset(changed | {name for name in seen if name not in by_name})

    def held_for(self, by_name: Mapping[str, Any]) -> None:
        """Every section of the page was found or made for the documents' facts ``by_name``."""
        self.seen = by_name

    def keep_only(self, docnames: set[str]) -> None:
        """Forget the documents that left the page (bounded by the page's documents)."""
        for gone in [d for d in self.finished if d not in docnames]:
            del self.finished[gone]
        for gone in [d for d in self.markup if d not in docnames]:
            del self.markup[gone]


def whole_key(model: Model, extra: Hashable) -> Hashable:
    """The page-wide key: every document's labels, targets, figures, toctrees and included files
    (the tables the reference model is built from, numbering and toctree membership), the sets of
    documents, conf.py's settings, and ``extra`` (the page's order, documents, output, language).

    The facts' lists are compared as they are: unchanged documents keep the same list objects, so
    comparing the key of an unchanged project is a walk of identities."""
    surfaces = []
    for docname in sorted(model.found):
        facts = model.facts(docname)
        surfaces.append(
            None if facts is None else (docname, facts.labels, facts.targets, facts.figures, facts.toctrees, facts.deps)
        )
    return (
        repr(model.info),
        model.srcdir,
        frozenset(model.found),
        frozenset(model.unread),
        frozenset(model.sphinx_docs),
        tuple(surfaces),
        extra,
    )


class Recorder:
    """Records what making sections asks of the reference model and of the disk.

    It works on a shallow copy of the model (made once per build) whose per-document lookup and
    file questions are replaced by recording ones; the model itself is never changed, so another
    thread using it sees nothing."""

    def __init__(self, model: Model, markup: Mapping[str, dict[str, str]]) -> None:
        """``markup``: each document's headings' markup (what a toctree shows of it)."""
        self.model = model
        self.markup = markup
        self._facts = model.facts
        self._hint = model._hint
        # The model's file questions: relative to the source folder (exists, is a folder, listing).
        self._exists: Callable[[str], bool] = model._exists
        self._is_dir: Callable[[str], bool] = model._is_dir
        self._listdir: Callable[[str], list[str]] = model._listdir
        self.log: list[Read] | None = None
        self._copy: Model | None = None

    def _recording(self) -> Model:
        if self._copy is None:
            # What the whole-page key stands for is made before the copy, without recording: a
            # section that numbers a figure or asks for toctree membership must not depend on
            # every document by name for it.
            self.model.numbers  # noqa: B018
            self.model.in_toctrees()
            self.model.circular_entries()
            self.model.names  # noqa: B018  (made once, shared with the copy)
            watched = copy.copy(self.model)

            def facts(docname: str) -> DocFacts | None:
                # The facts themselves are kept: the same object later needs no comparing.
                return self.note("facts", docname, self._facts(docname))  # type: ignore[no-any-return]

            def hint(pool: str, wanted: str, names: Callable[[], Iterable[str]]) -> str:
                # A hint reads every document once, maybe for another section, and the model keeps
                # it with its pool only while no document changed the names and headings the pool
                # is made of: the pool stands for those reads, which are not recorded one by one.
                held, self.log = self.log, None
                try:
                    found = self._hint(pool, wanted, names)
                finally:
                    self.log = held
                self.note("hint", pool, self._pool(pool))
                return found

            def exists(rel: str) -> bool:
                return bool(self.note("exists", rel, self._exists(rel)))

            def is_dir(rel: str) -> bool:
                return bool(self.note("is_dir", rel, self._is_dir(rel)))

            def listdir(folder: str) -> list[str]:
                names = self._listdir(folder)
                self.note("listdir", folder, tuple(names))
                return names

            # Instance attributes of the copy: the model's own methods call these.
            replaced = (("facts", facts), ("_hint", hint), ("_exists", exists), ("_is_dir", is_dir), ("_listdir", listdir))
            for name, value in replaced:
                setattr(watched, name, value)
            self._copy = watched
        return self._copy

    def _pool(self, pool: str) -> _Same:
        return _Same(self.model.hint_pool(pool))

    def note(self, kind: str, name: str, answer: Any) -> Any:
        if self.log is not None:
            self.log.append((kind, name, answer))
        return answer

    @contextmanager
    def recording(self) -> Iterator[tuple[Model, list[Read]]]:
        """The recording model and the list the section's reads go to."""
        log: list[Read] = []
        self.log = log
        try:
            yield self._recording(), log
        finally:
            self.log = None

    def answer(self, kind: str, name: str, is_file: Callable[[str], bool]) -> Any:
        """The answer to a recorded question now (against the model of this build)."""
        if kind == "facts":
            return self._facts(name)
        if kind == "hint":
            return self._pool(name)
        if kind == "exists":
            return self._exists(name)
        if kind == "is_dir":
            return self._is_dir(name)
        if kind == "listdir":
            return tuple(self._listdir(name))
        if kind == "markup":
            return self.markup.get(name)
        if kind == "doc_file":
            return is_file(name)
        raise ValueError(kind)

    def still(self, section: Finished, is_file: Callable[[str], bool], changed: frozenset[str] | None = None) -> bool:
        """Whether every question ``section`` recorded has the same answer now (a document's facts:
        the same :func:`read_part`). ``changed``: the only documents whose facts may differ from
        when the section was last found to hold (:meth:`PageSections.changed_since`)."""
        reads = section.reads
        if changed is not None:
            if section.read_docs.isdisjoint(changed):
                reads = section.other_reads
            else:
                reads = tuple(read for read in reads if read[0] != "facts" or read[1] in changed)
        answer, facts = self.answer, self._facts
        for kind, name, was in reads:
            if kind == "facts":
                # Most reads are of documents whose facts are the very same objects as then.
                now = facts(name)
                if now is not was and read_part(now) != read_part(was):
                    return False
            elif answer(kind, name, is_file) != was:
                return False
        return True

