"""What resolving a reference answers (:class:`Resolved`, :class:`Problem`) and what it may ask of the
reference model (:class:`Lookup`, which :class:`mdmark.references.main.Model` is).

The resolvers (:mod:`~mdmark.references.resolve`) and the toctree checks
(:mod:`~mdmark.references.toctrees`) are written against :class:`Lookup`, not the model itself: the
model imports them, and a module they imported back would close a circle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mdmark.core.facts import DocFacts
    from mdmark.host.confinfo import ConfInfo
    from mdmark.references.tables import Names

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


class Lookup(Protocol):
    """What a resolver or a toctree check asks of the reference model.

    The file questions and the close-name hint are attributes with a leading underscore because
    the build's section recorder (:class:`mdmark.builders.sections.Recorder`) replaces exactly
    these on a copy of the model: every question must go through them, never around them.
    """

    found: set[str]
    unread: set[str]
    sphinx_docs: set[str]
    info: ConfInfo
    index_terms: dict[str, str]
    #: Whether a path relative to the source folder exists, is a folder; a folder's file names.
    _exists: Callable[[str], bool]
    _is_dir: Callable[[str], bool]
    _listdir: Callable[[str], list[str]]

    @property
    def names(self) -> Names: ...

    def facts(self, docname: str) -> DocFacts | None: ...

    def title(self, docname: str) -> str | None: ...

    @property
    def numbers(self) -> dict[tuple[str, str], str]: ...

    def _hint(self, pool: str, wanted: str, names: Callable[[], Iterable[str]]) -> str: ...

    def all_facts(self) -> Iterable[DocFacts]: ...

    def heading_titles(self, docname: str, facts: DocFacts) -> dict[str, str]: ...
