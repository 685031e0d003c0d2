"""Relations between indexed documents, as ``find_docs`` reports them (``related_to``, ``referenced_by``).

A relation comes from one of three places (the guide page ``write-index``):

* the index: a ``related`` entry of one document naming another (string or ``{to, type, when}``);
* a body link: a Markdown link in one indexed document whose target file is another indexed document;
* an occurrence: another document's title or alias in the plain text of a document (outside code).

Seen from a document ``T``, an index relation written in ``T`` reads as written (outgoing); one
written in another document ``R`` naming ``T`` reads with its reverse name (incoming:
``requires`` → ``required_by`` …). Only for a direction that has no index relation, one relation
of type null stands for the body links and occurrences.

The body graph (links + occurrences) is computed over all indexed documents from the pipeline
facts (cached by content); after an edit, each document whose content, link targets and names to
look for are unchanged keeps its part from the graph made before, so one edit costs one document. Occurrences depend on the names in the index as well as on
the text, so they are cached per (set of names, document content): an unchanged index and
unchanged documents cost one dictionary look-up per document.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from mdmark.core.facts import DocFacts
from mdmark.index.model import Index
from mdmark.index.occurrences import NameMatcher
from mdmark.util.files import file_stamps
from mdmark.util.memo import Memo


class GraphMemos(Protocol):
    """The memos a relation graph is kept in between calls (the project's workspace has them)."""

    matchers: Memo[str, NameMatcher]
    occurrences: Memo[tuple[str, str], frozenset[str]]
    stamped: Memo[str, tuple[Any, ...]]
    graphs: Memo[str, RelationGraph]


@dataclass(frozen=True)
class RelationView:
    """One element of ``docs[].relations``."""

    direction: str
    type: str | None
    when: str | None

    def as_dict(self) -> dict[str, str | None]:
        return {"direction": self.direction, "type": self.type, "when": self.when}


@dataclass(frozen=True)
class Edge:
    """One relation ``source`` → ``target``: an index relation (``written``) or a body link/occurrence."""

    source: str
    target: str
    type: str | None
    when: str | None
    written: bool


def _matcher(workspace: GraphMemos, index: Index) -> tuple[str, NameMatcher]:
    pairs = [(name, doc.id) for doc in index.docs for name in doc.names]
    digest = hashlib.sha256("\0".join(f"{n}\x01{o}" for n, o in pairs).encode()).hexdigest()
    return digest, workspace.matchers.get_or_make(digest, lambda: NameMatcher(pairs))


def _occurring(workspace: GraphMemos, signature: str, matcher: NameMatcher, facts: DocFacts) -> frozenset[str]:
    """Ids of the documents whose title or alias occurs in the plain text of ``facts``."""
    return workspace.occurrences.get_or_make(
        (signature, facts.content_key), lambda: frozenset(occ.owner for occ in matcher.find(facts.text))
    )



def _files_by_path(index: Index) -> dict[str, str]:
    """Each document file's path -> the id of the first entry naming it."""
    by_file: dict[str, str] = {}
    for doc, path in zip(index.docs, index.doc_paths(), strict=True):
        by_file.setdefault(path, doc.id)
    return by_file


def _first_readable(index: Index, facts: list[DocFacts]) -> Iterator[tuple[str, DocFacts]]:
    """(id, facts) of each id's first entry, for the documents that could be read."""
    seen: set[str] = set()
    for doc, doc_facts in zip(index.docs, facts, strict=True):
        if doc.id in seen:
            continue
        seen.add(doc.id)
        if doc_facts.error is None:
            yield doc.id, doc_facts


def _body_targets(doc_id: str, facts: DocFacts, by_file: dict[str, str], src: str, occurring: frozenset[str]) -> set[str]:
    """The ids a document's body links reach, and those whose names occur in it, less itself."""
    targets: set[str] = set()
    for link in facts.links:
        if link.external or link.path is None:
            continue
        target = by_file.get(os.path.normpath(os.path.join(src, link.path)))
        if target is not None:
            targets.add(target)
    targets |= occurring
    targets.discard(doc_id)
    return targets


def _written_incoming(index: Index) -> dict[str, frozenset[str]]:
    """target id -> ids of the documents whose index relations point at it."""
    written: dict[str, set[str]] = {}
    for doc in index.first_docs():
        for seen in index.relations_of(doc.id):
            if seen.direction == "outgoing":
                written.setdefault(seen.other.id, set()).add(doc.id)
    return {target: frozenset(ids) for target, ids in written.items()}


def _all_incoming(written: dict[str, frozenset[str]], body: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    incoming = {target: set(ids) for target, ids in written.items()}
    for source_id, targets in body.items():
        for target in targets:
            incoming.setdefault(target, set()).add(source_id)
    return {target: frozenset(ids) for target, ids in incoming.items()}

def _same_content(a: DocFacts, b: DocFacts) -> bool:
    """The same document content (parse key and included files), so the same links and text."""
    return a is b or (a.path == b.path and a.sha == b.sha and a.deps == b.deps)


def _patched(
    incoming: dict[str, frozenset[str]],
    written: dict[str, frozenset[str]],
    before: dict[str, set[str]],
    after: dict[str, set[str]],
) -> dict[str, frozenset[str]]:
    """``incoming`` (of the body ``before`` and the index's relations ``written``) for the body
    ``after``: only the sources whose targets differ touch it (an unchanged source keeps the very
    same set)."""
    patched = dict(incoming)
    for source in before.keys() | after.keys():
        old, new = before.get(source, set()), after.get(source, set())
        if old is new:
            continue
        for target in old - new:
            if source in written.get(target, ()):
                continue  # still refers to it through the index
            left = patched[target] - {source}
            if left:
                patched[target] = left
            else:
                del patched[target]
        for target in new - old:
            patched[target] = patched.get(target, frozenset()) | {source}
    return patched


class RelationGraph:
    """All relations among the documents of one index, computed once and queried per document.

    The index relations are the index model's (:meth:`Index.relations_of`); the graph adds the
    body links and occurrences.
    """

    _by_file: dict[str, str]
    _signature: str
    _src: str
    _written_incoming: dict[str, frozenset[str]]

    def __init__(
        self,
        index: Index,
        facts: list[DocFacts],
        srcdir: Path,
        workspace: GraphMemos,
        previous: RelationGraph | None = None,
    ) -> None:
        """``facts``: one per ``index.docs`` entry, in the same order (errors allowed: they add nothing).

        ``previous``: a graph of the same project made earlier: each document whose content, and
        whose link targets and names to look for, are as they were keeps its body relations from it
        (after one edit, one document's links and occurrences are worked out again, not all)."""
        self.index = index
        same_index = previous if previous is not None and previous.index is index else None
        # Lexical paths (both roots are already resolved): resolving every link target costs
        # system calls per link, seconds for thousands of documents.
        by_file = same_index._by_file if same_index is not None else _files_by_path(index)
        src = str(srcdir.resolve())
        kept_matcher = workspace.matchers.get(same_index._signature) if same_index is not None else None
        if same_index is not None and kept_matcher is not None:
            signature, matcher = same_index._signature, kept_matcher  # the same index model: the same names
        else:
            signature, matcher = _matcher(workspace, index)
        self._by_file = by_file
        self._signature = signature
        self._src = src
        earlier = (
            previous
            if previous is not None
            and previous._src == src
            and previous._signature == signature
            and previous._by_file == by_file
            else None
        )
        #: The facts each source's body relations came from.
        self._sources: dict[str, DocFacts] = {}
        #: source id -> target ids reached by a body link or an occurrence (no self-relations).
        self.body: dict[str, set[str]] = {}
        for doc_id, doc_facts in _first_readable(index, facts):
            self._sources[doc_id] = doc_facts
            before = earlier._sources.get(doc_id) if earlier is not None else None
            if earlier is not None and before is not None and _same_content(before, doc_facts):
                targets = earlier.body.get(doc_id, set())
            else:
                targets = _body_targets(doc_id, doc_facts, by_file, src, _occurring(workspace, signature, matcher, doc_facts))
            if targets:
                self.body[doc_id] = targets
        #: target id -> ids of every document whose index relations refer to it (the index's part of
        #: :attr:`_incoming`, kept while the index model is the same object).
        self._written_incoming = same_index._written_incoming if same_index is not None else _written_incoming(index)
        #: target id -> ids of every document that refers to it (index relation, link or occurrence).
        #: Never changed once made: a later graph shares the sets it does not change.
        self._incoming: dict[str, frozenset[str]]
        if earlier is not None and earlier.index is index:
            self._incoming = _patched(earlier._incoming, self._written_incoming, earlier.body, self.body)
        else:
            self._incoming = _all_incoming(self._written_incoming, self.body)

    def referenced_by(self, doc_id: str) -> int:
        """How many other documents refer to ``doc_id``."""
        return len(self._incoming.get(doc_id, ()))

    def linked(self, source_id: str, target_id: str) -> bool:
        """Whether a body link or an occurrence in ``source_id`` reaches ``target_id``."""
        return target_id in self.body.get(source_id, ())

    def relations_of(self, target_id: str) -> dict[str, list[RelationView]]:
        """Other document id -> its relations seen from ``target_id`` (the ``related_to`` document).

        outgoing: ``target`` → ``other``; incoming: ``other`` → ``target``. Within a direction the
        index relations in their written order; a direction with none gets one type-null relation
        when a body link or an occurrence connects the two. Others in index order.
        """
        if self.index.doc(target_id) is None:
            return {}
        written: dict[str, dict[str, list[RelationView]]] = {}
        for seen in self.index.relations_of(target_id):
            views = written.setdefault(seen.other.id, {"outgoing": [], "incoming": []})
            views[seen.direction].append(RelationView(seen.direction, seen.type, seen.when))
        found: dict[str, list[RelationView]] = {}
        for other in self.index.first_docs():
            if other.id == target_id:
                continue
            views = written.get(other.id, {"outgoing": [], "incoming": []})
            outgoing = views["outgoing"] or (
                [RelationView("outgoing", None, None)] if self.linked(target_id, other.id) else []
            )
            incoming = views["incoming"] or (
                [RelationView("incoming", None, None)] if self.linked(other.id, target_id) else []
            )
            if outgoing or incoming:
                found[other.id] = outgoing + incoming
        return found

    def edges(self) -> list[Edge]:
        """Every relation as a directed edge, by the rule of :meth:`relations_of`.

        Sources in index order; per source, the index relations in written order, then the
        documents reached only by body links or occurrences, by id.
        """
        found: list[Edge] = []
        for source in self.index.first_docs():
            written: dict[str, list[Edge]] = {}
            for seen in self.index.relations_of(source.id):
                if seen.direction == "outgoing":
                    edge = Edge(source.id, seen.other.id, seen.type, seen.when, True)
                    written.setdefault(seen.other.id, []).append(edge)
            for edges in written.values():
                found += edges
            found += [Edge(source.id, t, None, None, False) for t in sorted(self.body.get(source.id, ())) if t not in written]
        return found


def build_graph(
    index: Index,
    srcdir: Path,
    facts_for: Callable[[list[Path]], list[DocFacts]],
    parsed_as: str,
    workspace: GraphMemos,
) -> RelationGraph:
    """The relation graph of ``index``; ``facts_for`` is :meth:`mdmark.project.main.Project.facts_for`,
    ``parsed_as`` says how it parses (:meth:`mdmark.pipeline.pipeline.Pipeline.parse_key`).

    The graph is reused while the index text and every document's content are unchanged; while
    the index model, the way documents are parsed and every document's file (and what it includes)
    keep their stat, not even the documents' facts are looked up again.
    """
    files = index.doc_paths()
    stamps = file_stamps(files)
    quick = f"graph\0{index.path}\0{srcdir}\0{parsed_as}"
    last = workspace.stamped.get(quick)
    if (
        last is not None
        and stamps is not None
        and last[1] is not None
        and last[0] is index
        and last[1] == stamps
        and file_stamps(last[2]) == last[3]
    ):
        return cast(RelationGraph, last[4])
    # The same index model gives the same paths: made once (a thousand Path objects cost ms).
    paths = cast(list[Path], last[5]) if last is not None and last[0] is index else [Path(f) for f in files]
    facts = facts_for(paths)
    digest = hashlib.sha256()
    for part in (str(index.path), str(srcdir), index.yaml.text if index.yaml is not None else repr(index.docs)):
        digest.update(part.encode())
        digest.update(b"\0")
    for doc_facts in facts:
        digest.update(f"{doc_facts.path}\1{doc_facts.content_key}\1{doc_facts.error is not None}\0".encode())
    previous = cast(RelationGraph, last[4]) if last is not None else None
    graph = workspace.graphs.get_or_make(
        digest.hexdigest(), lambda: RelationGraph(index, facts, srcdir, workspace, previous)
    )
    deps = sorted({os.path.join(srcdir, rel) for f in facts for rel, _stamp in f.deps})
    dep_stamps = file_stamps(deps) if stamps is not None else None
    # Kept even when a file just changed (no stamps to answer the next call from): the next graph
    # still takes the body relations of every document but the edited one from this one.
    workspace.stamped.put(quick, (index, stamps if dep_stamps is not None else None, deps, dep_stamps, graph, paths))
    return graph
