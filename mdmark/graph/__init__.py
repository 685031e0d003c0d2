"""The relation graph of the indexed documents: ``mdmark graph`` and the pictures in ``build``/``export``.

* :mod:`mdmark.graph.model` — nodes (indexed documents, grouped by main tag or folder) and edges
  (the relations of :class:`mdmark.workspace.relations.RelationGraph`: index relations by type, body links
  and occurrences), the whole set or one document's neighbourhood;
* :mod:`mdmark.graph.layout` — a deterministic layered layout in integer coordinates: clusters per
  group, a compact overview past a size, and the neighbourhood picture of one document;
* :mod:`mdmark.graph.svg`, :mod:`mdmark.graph.dot` — the drawings as SVG and the graph as DOT;
* :mod:`mdmark.graph.views` — the front-end functions: ``mdmark graph``, the build page's sections
  and the exported page's neighbourhood.

The layout is our own: the package index has no maintained pure-Python layout library (grandalf's
last release is from 2023, networkx lays out with numpy, fast-sugiyama and graph-layout are
compiled), and Graphviz is a system binary.
"""
