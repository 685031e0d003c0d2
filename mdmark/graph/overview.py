"""The overview picture of the whole set, in integer coordinates (drawn by :mod:`mdmark.graph.svg`):

* up to :data:`DETAIL_MAX_NODES` documents: one cluster per group, each laid out in layers
  (:mod:`mdmark.graph.layering`), clusters packed in rows with connected clusters side by side, and
  every relation drawn between its documents;
* past that size: a map of the groups (one box per group, one line per pair of groups with the
  number of relations, laid out in layers like documents), then each group's documents as a grid
  of links (the documents' own relations are in their neighbourhood pictures,
  :mod:`mdmark.graph.neighbourhood`).

Nothing depends on hash order or the clock: every collection is ordered by the index, so the same
graph gives the same coordinates, and the SVG is byte-identical.
"""

from __future__ import annotations

import math
from dataclasses import replace

from mdmark.graph.geometry import (
    BOX_H, CHIP_GAP, CHIP_H, CHIP_W, CLUSTER_GAP, CLUSTER_HEAD, CLUSTER_PAD, GAP_X, GAP_Y, MARGIN, MAX_WIDTH,
    Box, Cluster, Drawing, Line, box_labels, box_width, chip_labels, count_box, curve_between, edge_lines, fit, rect,
)  # fmt: skip
from mdmark.graph.labels import text_width
from mdmark.graph.layering import layers, order_layers
from mdmark.graph.model import DocGraph, GraphEdge, Node
from mdmark.graph.style import FONT_SIZE

#: Past this many documents (or edges) the overview shows clusters as grids (readable at 300).
DETAIL_MAX_NODES = 40
DETAIL_MAX_EDGES = 120
#: The group map of the compact overview spreads out: its lines carry numbers.
MAP_GAP_X = 72
MAP_GAP_Y = 64
#: The compact map draws each group's strongest relations only (all pairs at 9 groups pile up in
#: the middle); every cluster's frame names its strongest partners with their counts.
MAP_PARTNERS = 2
SUMMARY_PARTNERS = 3


def _cluster_layout(nodes: list[Node], edges: list[GraphEdge], labels: dict[str, str]) -> tuple[list[Box], int, int]:
    """Boxes of one cluster relative to its inner top-left corner, and the inner size."""
    ids = [n.id for n in nodes]
    inside = set(ids)
    pairs = [(e.source, e.target) for e in edges if e.source in inside and e.target in inside]
    # Only index relations order the layers: body links often point every which way.
    directed = [
        (e.source, e.target) for e in edges if e.directed and e.written and e.source in inside and e.target in inside
    ]
    width = max(2, math.ceil(math.sqrt(len(ids) * 1.5)))
    rows = order_layers(layers(ids, directed, width), pairs)
    by_id = {n.id: n for n in nodes}
    widths = {n: box_width(labels[n]) for n in ids}
    row_widths = [sum(widths[n] for n in row) + GAP_X * (len(row) - 1) for row in rows]
    inner_w = max(row_widths)
    boxes: list[Box] = []
    for r, row in enumerate(rows):
        x = (inner_w - row_widths[r]) // 2
        y = r * (BOX_H + GAP_Y)
        for n in row:
            boxes.append(Box(by_id[n], x, y, widths[n], BOX_H, labels[n]))
            x += widths[n] + GAP_X
    inner_h = len(rows) * BOX_H + (len(rows) - 1) * GAP_Y
    return boxes, inner_w, inner_h


def _chip_layout(nodes: list[Node], labels: dict[str, str]) -> tuple[list[Box], int, int]:
    cols = min(len(nodes), 5, max(1, math.ceil(math.sqrt(len(nodes) * 2))))
    boxes: list[Box] = []
    for i, node in enumerate(nodes):
        r, c = divmod(i, cols)
        boxes.append(Box(node, c * (CHIP_W + CHIP_GAP), r * (CHIP_H + CHIP_GAP), CHIP_W, CHIP_H, labels[node.id]))
    rows = math.ceil(len(nodes) / cols)
    return boxes, cols * CHIP_W + (cols - 1) * CHIP_GAP, rows * CHIP_H + (rows - 1) * CHIP_GAP


def _cluster_rows(graph: DocGraph, sizes: dict[int, tuple[int, int]]) -> list[list[int]]:
    """Clusters in rows by the same layered layout as documents: a group whose documents point to
    another's sits above it (by the majority of index relations), connected groups side by side."""
    group_of = {n.id: n.group for n in graph.nodes}
    pointing: dict[tuple[str, str], int] = {}
    touching: list[tuple[str, str]] = []
    for e in graph.edges:
        a, b = str(group_of[e.source]), str(group_of[e.target])
        if a == b:
            continue
        touching.append((a, b))
        if e.directed and e.written:
            pointing[(a, b)] = pointing.get((a, b), 0) + 1
    directed = [
        (a, b)
        for (a, b), count in pointing.items()
        if count > pointing.get((b, a), 0) or (count == pointing.get((b, a), 0) and int(a) < int(b))
    ]
    ids = [str(g) for g in range(len(graph.groups))]
    total = sum(w for w, _ in sizes.values()) + CLUSTER_GAP * (len(sizes) - 1)
    per_row = max(1, min(len(ids), round(len(ids) * MAX_WIDTH / total) if total > MAX_WIDTH else len(ids)))
    rows = layers(ids, directed, per_row)
    # Groups point at each other in long chains more often than documents do: at most about
    # max(4, sqrt(groups)) rows keep the picture wide rather than a tower (rows merge in order).
    most = max(4, math.ceil(math.sqrt(len(ids))))
    if len(rows) > most:
        merged: list[list[str]] = [[] for _ in range(most)]
        for r, row in enumerate(rows):
            merged[r * most // len(rows)].extend(row)
        rows = merged
    return [[int(g) for g in row] for row in order_layers(rows, touching)]


def overview(graph: DocGraph) -> Drawing:
    """The whole set: clusters per group, detailed or compact by size."""
    drawing = Drawing(graph)
    if not graph.nodes:
        return drawing
    compact = len(graph.nodes) > DETAIL_MAX_NODES or len(graph.edges) > DETAIL_MAX_EDGES
    drawing.compact = compact
    members: list[list[Node]] = [[] for _ in graph.groups]
    for node in graph.nodes:
        members[node.group].append(node)
    group_of = {n.id: n.group for n in graph.nodes}
    weight: dict[tuple[int, int], int] = {}
    for e in graph.edges:
        a, b = sorted((group_of[e.source], group_of[e.target]))
        if a != b:
            weight[(a, b)] = weight.get((a, b), 0) + 1

    names = chip_labels(graph) if compact else box_labels(graph)
    partners = _partners(len(graph.groups), weight)
    inner: dict[int, tuple[list[Box], int, int]] = {}
    for g, nodes in enumerate(members):
        inner[g] = _chip_layout(nodes, names) if compact else _cluster_layout(nodes, graph.edges, names)
    sizes: dict[int, tuple[int, int]] = {}
    labels: dict[int, str] = {}
    for g, (_, w, h) in inner.items():
        label = f"{graph.groups[g].name}（{len(members[g])}）"
        labels[g] = label
        if compact:
            label = cluster_summary(label, [(graph.groups[o].name, n) for o, n in partners[g]])
        cw = max(w, math.ceil(text_width(label, FONT_SIZE - 1))) + 2 * CLUSTER_PAD
        sizes[g] = (cw, h + 2 * CLUSTER_PAD + CLUSTER_HEAD)

    boxes: dict[str, Box] = {}

    def place(g: int, x: int, y: int) -> None:
        w, h = sizes[g]
        label = labels[g]
        if compact:
            label = cluster_summary(label, [(graph.groups[o].name, n) for o, n in partners[g]])
        drawing.clusters.append(Cluster(g, label, x, y, w, h))
        left = x + (w - inner[g][1]) // 2
        top = y + CLUSTER_PAD + CLUSTER_HEAD
        for box in inner[g][0]:
            boxes[box.node.id] = Box(box.node, left + box.x, top + box.y, box.w, box.h, box.label)

    if compact:
        strongest = {
            (min(g, o), max(g, o)) for g, mine in partners.items() for o, _ in mine[:MAP_PARTNERS]
        }
        order = _group_map(drawing, labels, {pair: n for pair, n in weight.items() if pair in strongest})
        # The groups' documents below the map, in the map's order, packed in rows.
        x, y, row_h = MARGIN, max(c.y + c.h for c in drawing.groups_map) + GAP_Y, 0
        limit = max(MAX_WIDTH, *(w for w, _ in sizes.values()))
        for g in order:
            w, h = sizes[g]
            if x > MARGIN and x + w > limit + MARGIN:
                x, y, row_h = MARGIN, y + row_h + CLUSTER_GAP, 0
            place(g, x, y)
            x += w + CLUSTER_GAP
            row_h = max(row_h, h)
    else:
        rows = _cluster_rows(graph, sizes)
        row_widths = [sum(sizes[g][0] for g in row) + CLUSTER_GAP * (len(row) - 1) for row in rows]
        full = max(row_widths)
        y = MARGIN
        for row, row_w in zip(rows, row_widths, strict=True):
            x = MARGIN + (full - row_w) // 2
            for g in row:
                place(g, x, y)
                x += sizes[g][0] + CLUSTER_GAP
            y += max(sizes[g][1] for g in row) + CLUSTER_GAP
        drawing.lines = edge_lines(boxes, graph.edges)
    drawing.boxes = [boxes[n.id] for n in graph.nodes]
    return fit(drawing)


def _partners(groups: int, weight: dict[tuple[int, int], int]) -> dict[int, list[tuple[int, int]]]:
    """Each group's related groups with their numbers of relations, the most first (then in group order)."""
    out: dict[int, list[tuple[int, int]]] = {g: [] for g in range(groups)}
    for (a, b), count in weight.items():
        out[a].append((b, count))
        out[b].append((a, count))
    for mine in out.values():
        mine.sort(key=lambda item: (-item[1], item[0]))
    return out


def cluster_summary(label: str, partners: list[tuple[str, int]]) -> str:
    """A compact cluster's heading: its name and size, and the groups it has the most relations with."""
    if not partners:
        return label
    named = "・".join(f"{name} {count}" for name, count in partners[:SUMMARY_PARTNERS])
    more = f" ほか {len(partners) - SUMMARY_PARTNERS} つ" if len(partners) > SUMMARY_PARTNERS else ""
    return f"{label}　関係: {named}{more}"


def _group_map(drawing: Drawing, labels: dict[int, str], weight: dict[tuple[int, int], int]) -> list[int]:
    """The compact overview's map: one box per group, one line per pair of groups with relations.

    Returns the groups in the map's reading order.
    """
    sizes = {g: (box_width(label), BOX_H) for g, label in labels.items()}
    rows = _cluster_rows(drawing.graph, sizes)
    widths = [sum(sizes[g][0] for g in row) + MAP_GAP_X * (len(row) - 1) for row in rows]
    full = max(widths)
    by_group: dict[int, Cluster] = {}
    for r, (row, row_w) in enumerate(zip(rows, widths, strict=True)):
        x = MARGIN + (full - row_w) // 2
        for g in row:
            by_group[g] = Cluster(g, labels[g], x, MARGIN + r * (BOX_H + MAP_GAP_Y), sizes[g][0], BOX_H)
            x += sizes[g][0] + MAP_GAP_X
    drawing.groups_map = [by_group[g] for row in rows for g in row]
    for (a, b), count in sorted(weight.items()):
        curve = curve_between(rect(by_group[a]), rect(by_group[b]), 0, 1)
        if curve is not None:
            drawing.lines.append(Line(*curve, count=count, between=(a, b)))
    drawing.lines = _place_counts(drawing.lines, [rect(c) for c in drawing.groups_map])
    return [g for row in rows for g in row]


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


#: Where along a line its count may go (the middle first), and how far beside the line.
_ALONG = (0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82)
_BESIDE = (0.0, 9.0, -9.0, 18.0, -18.0)


def _place_counts(lines: list[Line], taken: list[tuple[float, float, float, float]]) -> list[Line]:
    """Each count where it covers no box and no other count: the biggest counts choose first."""
    placed = list(taken)
    spots: dict[int, tuple[float, float]] = {}
    for i in sorted(range(len(lines)), key=lambda i: (-lines[i].count, i)):
        line = lines[i]
        (x0, y0), (cx, cy), (x1, y1) = line.start, line.control, line.end
        best: tuple[float, float] | None = None
        for t in _ALONG:
            u = 1 - t
            px, py = u * u * x0 + 2 * u * t * cx + t * t * x1, u * u * y0 + 2 * u * t * cy + t * t * y1
            dx, dy = 2 * u * (cx - x0) + 2 * t * (x1 - cx), 2 * u * (cy - y0) + 2 * t * (y1 - cy)
            norm = math.hypot(dx, dy) or 1.0
            for off in _BESIDE:
                at = (px - dy / norm * off, py + dx / norm * off)
                if not any(_overlaps(count_box(line.count, at), r) for r in placed):
                    best = at
                    break
            if best is not None:
                break
        if best is None:
            # Nowhere along the line is free: beside the picture's lines, above everything placed.
            top = min(r[1] for r in placed) if placed else 0.0
            best = ((x0 + x1) / 2, top - FONT_SIZE)
        placed.append(count_box(line.count, best))
        spots[i] = best
    return [replace(line, label_at=spots[i]) for i, line in enumerate(lines)]
