"""What an answer of the reference model depends on, so a check can reuse a document's reference
drifts (:mod:`mdmark.check.rules.reuse`) and a model its close-name hints and tables.

A document's answer holds while the project-wide tables hold (every document's :func:`global_part`
the same) and the documents and paths it looked at beyond them (:class:`Consulted`, recorded by
:meth:`mdmark.references.main.Model.track`) are as they were (their :func:`local_part`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from mdmark.core.facts import DocFacts
from mdmark.references.tables import same_names, same_slugs

_T = TypeVar("_T")


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


def noting(consulted: Callable[[], Consulted | None], ask: Callable[[str], _T]) -> Callable[[str], _T]:
    """``ask`` about a path on disk, the path noted in what is ``consulted`` while something records."""

    def noted(path: str) -> _T:
        held = consulted()
        if held is not None:
            held.paths.add(path)
        return ask(path)

    return noted


def kept_hints(
    hints: dict[str, dict[str, str]],
    before: Callable[[str], DocFacts | None],
    now: Callable[[str], DocFacts | None],
    changed: Iterable[str],
) -> dict[str, dict[str, str]] | None:
    """The remembered close-name hints ``hints`` a model of the same documents may take, where the
    documents ``changed`` have the facts ``now`` instead of ``before``: all of them when those define
    the same names (labels, targets, terms), the pools then being the same; the Markdown anchors'
    pool holds every heading's slug and is kept only when those are the same too. None: none."""
    changed = list(changed)
    if not same_names_in(before, now, changed):
        return None
    pairs = ((before(docname), now(docname)) for docname in changed)
    anchors = all(same_slugs(was, is_) for was, is_ in pairs if was is not None and is_ is not None)
    return {pool: kept for pool, kept in hints.items() if anchors or pool != "anchors"}


def same_names_in(
    before: Callable[[str], DocFacts | None], now: Callable[[str], DocFacts | None], changed: Iterable[str]
) -> bool:
    """Whether each of the documents ``changed`` adds the same names (labels, targets, terms) to
    the tables with the facts ``now`` as with ``before`` (one that is missing on one side only does not)."""
    for docname in changed:
        was, is_ = before(docname), now(docname)
        if was is None or is_ is None:
            if was is not is_:
                return False
        elif not same_names(was, is_):
            return False
    return True
