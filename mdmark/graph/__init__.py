"""The relation graph of the indexed documents: ``mdmark graph`` and the pictures in ``build``/``export``.

* :mod:`mdmark.graph.model` — nodes (indexed documents, grouped by main tag or folder) and edges
  (the relations of :class:`mdmark.workspace.relations.RelationGraph`: index relations by type, body links
  and occurrences), the whole set or one document's neighbourhood;
* where every box and line goes, deterministically and in integer coordinates: the shapes and their
  shared geometry (:mod:`mdmark.graph.geometry`), the layered layout (:mod:`mdmark.graph.layering`),
  the overview — clusters per group, a compact map past a size (:mod:`mdmark.graph.overview`) — and
  the neighbourhood picture of one document (:mod:`mdmark.graph.neighbourhood`);
* :mod:`mdmark.graph.svg`, :mod:`mdmark.graph.dot` — the drawings as SVG and the graph as DOT;
* :mod:`mdmark.graph.views` — the front-end functions: ``mdmark graph``, the build page's sections
  and the exported page's neighbourhood.

The layout is our own: the package index has no maintained pure-Python layout library (grandalf's
last release is from 2023, networkx lays out with numpy, fast-sugiyama and graph-layout are
compiled), and Graphviz is a system binary.
"""
