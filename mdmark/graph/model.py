"""The graph model: indexed documents as nodes, their relations as edges.

Edges come from :meth:`mdmark.workspace.relations.RelationGraph.edges` — the same relations ``find_docs``
reports — so the picture and the query never disagree: index relations by type, and for a
direction with none, one light edge for the body links and name occurrences.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.graph.style import BODY, UNTYPED
from mdmark.index.model import Doc, Index
from mdmark.workspace.relations import RelationGraph

if TYPE_CHECKING:
    from mdmark.references.main import Model


@dataclass(frozen=True)
class Group:
    """A colour group: the documents' main tag, or their folder when they have none."""

    name: str
    by: str  # "tag" | "folder"


@dataclass(frozen=True)
class Node:
    id: str
    title: str
    path: str
    group: int


@dataclass(frozen=True)
class GraphEdge:
    source: str
    target: str
    #: A relation type, :data:`~mdmark.graph.style.UNTYPED` or :data:`~mdmark.graph.style.BODY`.
    kind: str
    when: str | None

    @property
    def directed(self) -> bool:
        return self.kind != "change_together"

    @property
    def written(self) -> bool:
        return self.kind != BODY


@dataclass
class DocGraph:
    nodes: list[Node]
    groups: list[Group]
    edges: list[GraphEdge]
    #: The document a neighbourhood is drawn around (None: the whole set).
    centre: str | None = None
    _by_id: dict[str, Node] = field(default_factory=dict, repr=False)
    #: Edges by the documents they touch (a build draws one neighbourhood per document).
    _touching: dict[str, list[GraphEdge]] = field(default_factory=dict, repr=False)
    #: The positions of each id's nodes in ``nodes``.
    _positions: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {node.id: node for node in self.nodes}
        for i, node in enumerate(self.nodes):
            self._positions.setdefault(node.id, []).append(i)
        for edge in self.edges:
            self._touching.setdefault(edge.source, []).append(edge)
            if edge.target != edge.source:
                self._touching.setdefault(edge.target, []).append(edge)

    def node(self, doc_id: str) -> Node | None:
        return self._by_id.get(doc_id)

    def neighbourhood(self, doc_id: str) -> DocGraph:
        """``doc_id``, the documents it has a relation with (either way), and those relations."""
        edges = self._touching.get(doc_id, [])
        ids = {doc_id} | {e.source for e in edges} | {e.target for e in edges}
        nodes = [self.nodes[i] for i in sorted(i for x in ids for i in self._positions.get(x, ()))]
        used = sorted({n.group for n in nodes})
        renumber = {old: new for new, old in enumerate(used)}
        return DocGraph(
            [replace(n, group=renumber[n.group]) for n in nodes],
            [self.groups[i] for i in used],
            edges,
            centre=doc_id,
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "doc": self.centre,
            "groups": [{"name": g.name, "by": g.by} for g in self.groups],
            "nodes": [
                {"id": n.id, "title": n.title, "path": n.path, "group": self.groups[n.group].name} for n in self.nodes
            ],
            "edges": [
                {
                    "source": e.source,
                    "target": e.target,
                    "type": None if e.kind in (UNTYPED, BODY) else e.kind,
                    "when": e.when,
                    "origin": "index" if e.written else "body",
                    "directed": e.directed,
                }
                for e in self.edges
            ],
        }


def _group_of(index: Index, doc: Doc, root: Path, folders: dict[str, Group]) -> Group:
    """``folders``: the groups of the folders met so far (one path computation per folder, not per
    document: the page's graph is drawn again on every rebuild of ``mdmark preview``)."""
    for tag in doc.tags:
        if tag.main:
            return Group(index.canonical_tag(tag.name), "tag")
    # index.doc_path(doc).parent, as text.
    parent = os.path.dirname(os.path.normpath(os.path.join(index.folder, doc.path)))
    group = folders.get(parent)
    if group is None:
        folder = Path(os.path.relpath(parent, root)).as_posix()
        group = folders[parent] = Group("./" if folder == "." else f"{folder}/", "folder")
    return group


def doc_graph(index: Index, relations: RelationGraph, root: Path) -> DocGraph:
    """The graph of every indexed document (the first entry of a duplicated id).

    A document without a main tag is grouped by its folder, shown relative to ``root`` (the
    config folder, where the reader's paths start).
    """
    groups: list[Group] = []
    numbers: dict[Group, int] = {}
    nodes: list[Node] = []
    seen: set[str] = set()
    folders: dict[str, Group] = {}
    for doc in index.docs:
        if doc.id in seen:
            continue
        seen.add(doc.id)
        group = _group_of(index, doc, root, folders)
        if group not in numbers:
            numbers[group] = len(groups)
            groups.append(group)
        nodes.append(Node(doc.id, doc.title, doc.path, numbers[group]))
    edges: list[GraphEdge] = []
    kept: set[tuple[str, str, str]] = set()
    for edge in relations.edges():
        kind = edge.type or (UNTYPED if edge.written else BODY)
        # change_together is written on both sides: one undirected edge, as first written.
        ends = sorted((edge.source, edge.target)) if kind == "change_together" else [edge.source, edge.target]
        key = (ends[0], ends[1], kind)
        if key in kept:
            continue
        kept.add(key)
        edges.append(GraphEdge(edge.source, edge.target, kind, edge.when))
    return DocGraph(nodes, groups, edges)


def facts_graph(model: Model, files: dict[str, Path], root: Path) -> DocGraph:
    """The graph of a project without an index: every document the reference model holds (its
    docname as id, its first heading as title, grouped by folder) and one body edge per document
    another links to, wherever the links land as ``check`` resolves them ({doc}, {ref}, Markdown
    links)."""
    groups: list[Group] = []
    numbers: dict[Group, int] = {}
    nodes: list[Node] = []
    for name, file in sorted(files.items()):
        rel = Path(os.path.relpath(file, root)).as_posix()
        folder = os.path.dirname(rel)
        group = Group(f"{folder}/" if folder else "./", "folder")
        if group not in numbers:
            numbers[group] = len(groups)
            groups.append(group)
        nodes.append(Node(name, model.title(name) or name, rel, numbers[group]))
    edges: list[GraphEdge] = []
    for node in nodes:
        facts = model.facts(node.id)
        if facts is None:
            continue
        reached: list[str] = []
        for link in facts.links:
            if link.external:
                continue
            target = model.resolve(link, node.id).doc
            if target is not None and target != node.id and target in files and target not in reached:
                reached.append(target)
        edges += [GraphEdge(node.id, target, BODY, None) for target in reached]
    return DocGraph(nodes, groups, edges)
