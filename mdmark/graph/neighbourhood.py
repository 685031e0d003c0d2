"""The neighbourhood picture of one document: the document in the middle, the documents that point
to it above, those it points to below, and the two-way ones (``change_together`` or both
directions) beside it; at most :data:`MAX_NEIGHBOURS` others, the rest counted.
"""

from __future__ import annotations

from mdmark.graph.geometry import BOX_H, GAP_X, GAP_Y, MARGIN, MAX_WIDTH, ROW_GAP, Box, Drawing, box_labels, box_width, edge_lines, fit
from mdmark.graph.model import DocGraph, Node

#: A neighbourhood picture shows at most this many other documents; the rest are counted.
MAX_NEIGHBOURS = 24


def _rows(nodes: list[Node], labels: dict[str, str], limit: int) -> list[list[Node]]:
    rows: list[list[Node]] = []
    width = 0
    for node in nodes:
        w = box_width(labels[node.id])
        if rows and width + GAP_X + w <= limit:
            rows[-1].append(node)
            width += GAP_X + w
        else:
            rows.append([node])
            width = w
    return rows


def neighbourhood(graph: DocGraph, labels: dict[str, str] | None = None) -> Drawing:
    """``graph`` is :meth:`DocGraph.neighbourhood`: the centre, its neighbours and their relations.

    ``labels``: the boxes' labels (:func:`box_labels` of the whole graph, so that a document reads
    the same in every picture of a page); by default this picture's own."""
    drawing = Drawing(graph)
    centre = graph.node(graph.centre or "")
    if centre is None:
        return drawing
    outgoing: set[str] = set()
    incoming: set[str] = set()
    both: set[str] = set()
    written: set[str] = set()
    for e in graph.edges:
        other = e.target if e.source == centre.id else e.source
        if e.written:
            written.add(other)
        if not e.directed:
            both.add(other)
        elif e.source == centre.id:
            outgoing.add(other)
        else:
            incoming.add(other)
    others = [n for n in graph.nodes if n.id != centre.id]
    # Index relations before body links when there are too many to show; then by group and index order.
    ranked = sorted(others, key=lambda n: (n.id not in written, n.group))
    shown = {n.id for n in ranked[:MAX_NEIGHBOURS]}
    drawing.hidden = len(others) - len(shown)
    side = [n for n in others if n.id in shown and (n.id in both or (n.id in outgoing and n.id in incoming))]
    up = [n for n in others if n.id in shown and n.id in incoming and n not in side]
    down = [n for n in others if n.id in shown and n.id in outgoing and n not in side]
    for kept in (side, up, down):
        kept.sort(key=lambda n: n.group)

    if labels is None:
        labels = box_labels(graph)
    middle = [*side[0:4:2][::-1], centre, *side[1:4:2]]
    bands = [_rows(up, labels, MAX_WIDTH), [middle, *_rows(side[4:], labels, MAX_WIDTH)], _rows(down, labels, MAX_WIDTH)]
    placed: list[Box] = []
    y = MARGIN
    for band in bands:
        if not band:
            continue
        for row in band:
            widths = [box_width(labels[n.id]) for n in row]
            total = sum(widths) + GAP_X * (len(row) - 1)
            x = -total // 2
            for node, w in zip(row, widths, strict=True):
                placed.append(Box(node, x, y, w, BOX_H, labels[node.id], centre=node.id == centre.id))
                x += w + GAP_X
            y += BOX_H + ROW_GAP
        y += GAP_Y - ROW_GAP
    boxes = {b.node.id: b for b in placed}
    drawing.boxes = [boxes[n.id] for n in graph.nodes if n.id in boxes]
    drawing.lines = edge_lines(boxes, graph.edges)
    return fit(drawing)
