"""Where every box and line goes: a small deterministic layered layout in integer coordinates.

Three pictures, all computed here and drawn by :mod:`mdmark.graph.svg`:

* :func:`overview` up to :data:`DETAIL_MAX_NODES` documents: one cluster per group, each laid out
  in layers (Sugiyama-style: cycles broken by a depth-first search in index order, layers by
  longest path with a width bound, a few barycenter sweeps against crossings), clusters packed in
  rows with connected clusters side by side, and every relation drawn between its documents;
* :func:`overview` past that size: a map of the groups (one box per group, one line per pair of
  groups with the number of relations, laid out in layers like documents), then each group's
  documents as a grid of links (the documents' own relations are in their neighbourhood pictures);
* :func:`neighbourhood`: one document in the middle, the documents that point to it above, those
  it points to below, and the two-way ones (``change_together`` or both directions) beside it.

Nothing depends on hash order or the clock: every collection is ordered by the index, so the same
graph gives the same coordinates, and the SVG is byte-identical.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field, replace

from mdmark.graph.labels import distinct_labels, group_labels, text_width
from mdmark.graph.model import DocGraph, GraphEdge, Node
from mdmark.graph.style import FONT_SIZE

#: Past this many documents (or edges) the overview shows clusters as grids (readable at 300).
DETAIL_MAX_NODES = 40
DETAIL_MAX_EDGES = 120
#: A neighbourhood picture shows at most this many other documents; the rest are counted.
MAX_NEIGHBOURS = 24

BOX_H = 28
PAD_X = 10
MAX_LABEL = 168
MIN_BOX_W = 56
GAP_X = 24
GAP_Y = 40
#: Between two rows of one band of a neighbourhood picture (bands are GAP_Y apart).
ROW_GAP = 24
CLUSTER_PAD = 12
CLUSTER_HEAD = 22
CLUSTER_GAP = 28
MAX_WIDTH = 760
CHIP_W = 150
CHIP_H = 24
CHIP_GAP = 6
MARGIN = 8
#: The group map of the compact overview spreads out: its lines carry numbers.
MAP_GAP_X = 72
MAP_GAP_Y = 64
#: The compact map draws each group's strongest relations only (all pairs at 9 groups pile up in
#: the middle); every cluster's frame names its strongest partners with their counts.
MAP_PARTNERS = 2
SUMMARY_PARTNERS = 3


@dataclass(frozen=True)
class Box:
    node: Node
    x: int
    y: int
    w: int
    h: int
    label: str
    centre: bool = False

    @property
    def mid(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class Cluster:
    group: int
    label: str
    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True)
class Line:
    """A quadratic curve ``start`` → ``control`` → ``end``; ``edge`` None for a cluster-to-cluster line."""

    start: tuple[float, float]
    control: tuple[float, float]
    end: tuple[float, float]
    edge: GraphEdge | None = None
    count: int = 0
    between: tuple[int, int] = (0, 0)
    #: Where the count of a cluster-to-cluster line is written (clear of every other text).
    label_at: tuple[float, float] | None = None


@dataclass
class Drawing:
    graph: DocGraph
    width: int = 0
    height: int = 0
    boxes: list[Box] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    compact: bool = False
    #: The compact overview's map: one box per group.
    groups_map: list[Cluster] = field(default_factory=list)
    #: Neighbours left out of a neighbourhood picture.
    hidden: int = 0


# -- shared geometry ---------------------------------------------------------------------------------


def box_width(label: str) -> int:
    """The width of a document box labelled ``label``."""
    return max(MIN_BOX_W, math.ceil(text_width(label) + 2 * PAD_X))


def _clip(box: tuple[float, float, float, float], toward: tuple[float, float], margin: float) -> tuple[float, float]:
    """Where the ray from the middle of ``box`` (x, y, w, h) toward ``toward`` leaves it."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == 0 and dy == 0:
        return (cx, cy)
    hw, hh = w / 2 + margin, h / 2 + margin
    t = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf)
    return (cx + dx * t, cy + dy * t)


def _curve(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float], lane: int, head_margin: float
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]] | None:
    """A gentle curve between two rectangles; ``lane`` separates parallel edges of one pair."""
    ax, ay = a[0] + a[2] / 2, a[1] + a[3] / 2
    bx, by = b[0] + b[2] / 2, b[1] + b[3] / 2
    dx, dy = bx - ax, by - ay
    dist = math.hypot(dx, dy)
    if dist < 1:
        return None
    # Same row: bend more, so the line passes over the boxes between the two ends.
    same_row = abs(dy) < max(a[3], b[3])
    bend = min(0.3 * dist, 70.0) if same_row else min(0.08 * dist, 24.0)
    bend += 12 * lane
    nx, ny = -dy / dist, dx / dist
    control = (ax + dx / 2 + nx * bend, ay + dy / 2 + ny * bend)
    return (_clip(a, control, 1), control, _clip(b, control, head_margin))


def _rect(box: Box | Cluster) -> tuple[float, float, float, float]:
    return (box.x, box.y, box.w, box.h)


def _edge_lines(boxes: dict[str, Box], edges: list[GraphEdge]) -> list[Line]:
    lines: list[Line] = []
    lanes: dict[tuple[str, str], int] = {}
    for edge in edges:
        a, b = boxes.get(edge.source), boxes.get(edge.target)
        if a is None or b is None:
            continue
        lane = lanes.get((edge.source, edge.target), 0)
        lanes[(edge.source, edge.target)] = lane + 1
        curve = _curve(_rect(a), _rect(b), lane, 2 if edge.directed else 1)
        if curve is not None:
            lines.append(Line(*curve, edge=edge))
    return lines


def _fit(drawing: Drawing) -> Drawing:
    """Move everything so that curves bending outward stay inside the picture, and size it to fit."""
    rects = [_rect(b) for b in drawing.boxes] + [_rect(c) for c in [*drawing.clusters, *drawing.groups_map]]
    rects += [count_box(ln.count, ln.label_at) for ln in drawing.lines if ln.label_at is not None]
    xs = [r[0] for r in rects]
    ys = [r[1] for r in rects]
    right = [r[0] + r[2] for r in rects]
    bottom = [r[1] + r[3] for r in rects]
    for line in drawing.lines:
        # The curve's farthest point from its chord is at t = 1/2.
        peak = (
            0.25 * line.start[0] + 0.5 * line.control[0] + 0.25 * line.end[0],
            0.25 * line.start[1] + 0.5 * line.control[1] + 0.25 * line.end[1],
        )
        xs.append(peak[0] - 4)
        ys.append(peak[1] - 4)
        right.append(peak[0] + 4)
        bottom.append(peak[1] + 4)
    if not xs:
        return drawing
    dx = MARGIN - math.floor(min(xs))
    dy = MARGIN - math.floor(min(ys))

    def move(p: tuple[float, float]) -> tuple[float, float]:
        return (p[0] + dx, p[1] + dy)

    drawing.boxes = [Box(b.node, b.x + dx, b.y + dy, b.w, b.h, b.label, b.centre) for b in drawing.boxes]
    drawing.clusters = [Cluster(c.group, c.label, c.x + dx, c.y + dy, c.w, c.h) for c in drawing.clusters]
    drawing.groups_map = [Cluster(c.group, c.label, c.x + dx, c.y + dy, c.w, c.h) for c in drawing.groups_map]
    drawing.lines = [
        Line(
            move(ln.start),
            move(ln.control),
            move(ln.end),
            ln.edge,
            ln.count,
            ln.between,
            move(ln.label_at) if ln.label_at is not None else None,
        )
        for ln in drawing.lines
    ]
    drawing.width = math.ceil(max(right)) + dx + MARGIN
    drawing.height = math.ceil(max(bottom)) + dy + MARGIN
    return drawing


# -- layered layout of one cluster --------------------------------------------------------------------


def _acyclic(ids: list[str], edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The edges minus the back edges of a depth-first search in ``ids`` order (no cycles remain)."""
    succ: dict[str, list[str]] = {i: [] for i in ids}
    for u, v in edges:
        if u != v and v not in succ[u]:
            succ[u].append(v)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    keep: list[tuple[str, str]] = []
    for root in ids:
        if root in state:
            continue
        state[root] = 1
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, i = stack[-1]
            if i < len(succ[node]):
                stack[-1] = (node, i + 1)
                nxt = succ[node][i]
                if state.get(nxt) == 1:
                    continue  # a back edge: dropped for layering
                keep.append((node, nxt))
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                stack.pop()
    return keep


def layers(ids: list[str], edges: list[tuple[str, str]], max_width: int) -> list[list[str]]:
    """Layers top to bottom: an edge's target below its source, at most ``max_width`` per layer."""
    order = {n: i for i, n in enumerate(ids)}
    dag = _acyclic(ids, edges)
    preds: dict[str, list[str]] = {i: [] for i in ids}
    indegree = {i: 0 for i in ids}
    succ: dict[str, list[str]] = {i: [] for i in ids}
    for u, v in dag:
        preds[v].append(u)
        succ[u].append(v)
        indegree[v] += 1
    ready = [(order[n], n) for n in ids if indegree[n] == 0]
    heapq.heapify(ready)
    level: dict[str, int] = {}
    filled: list[int] = []
    while ready:
        _, node = heapq.heappop(ready)
        at = max((level[p] + 1 for p in preds[node]), default=0)
        while at < len(filled) and filled[at] >= max_width:
            at += 1
        while len(filled) <= at:
            filled.append(0)
        filled[at] += 1
        level[node] = at
        for nxt in succ[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, (order[nxt], nxt))
    rows: list[list[str]] = [[] for _ in filled]
    for node in ids:
        rows[level[node]].append(node)
    return [row for row in rows if row]


def order_layers(rows: list[list[str]], edges: list[tuple[str, str]], sweeps: int = 4) -> list[list[str]]:
    """Barycenter sweeps down and up: each node moves toward its neighbours in the next layer."""
    near: dict[str, list[str]] = {n: [] for row in rows for n in row}
    for u, v in edges:
        if u != v and u in near and v in near:
            near[u].append(v)
            near[v].append(u)
    rows = [list(row) for row in rows]
    for _ in range(sweeps):
        for direction in (1, -1):
            span = range(1, len(rows)) if direction == 1 else range(len(rows) - 2, -1, -1)
            for i in span:
                fixed = {n: p for p, n in enumerate(rows[i - direction])}
                current = {n: p for p, n in enumerate(rows[i])}

                def key(n: str, fixed: dict[str, int] = fixed, current: dict[str, int] = current) -> tuple[float, int]:
                    spots = [fixed[m] for m in near[n] if m in fixed]
                    return (sum(spots) / len(spots) if spots else float(current[n]), current[n])

                rows[i].sort(key=key)
    return rows


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
        drawing.lines = _edge_lines(boxes, graph.edges)
    drawing.boxes = [boxes[n.id] for n in graph.nodes]
    return _fit(drawing)


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
        curve = _curve(_rect(by_group[a]), _rect(by_group[b]), 0, 1)
        if curve is not None:
            drawing.lines.append(Line(*curve, count=count, between=(a, b)))
    drawing.lines = _place_counts(drawing.lines, [_rect(c) for c in drawing.groups_map])
    return [g for row in rows for g in row]


def count_box(count: int, at: tuple[float, float]) -> tuple[float, float, float, float]:
    """The rectangle (x, y, w, h) a line's count covers when written centred at ``at`` (with its halo)."""
    w = text_width(str(count), FONT_SIZE - 1) + 6
    h = FONT_SIZE - 1 + 4
    return (at[0] - w / 2, at[1] - h / 2, w, h)


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


# -- the neighbourhood of one document ----------------------------------------------------------------


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


def box_labels(graph: DocGraph) -> dict[str, str]:
    """The labels of the document boxes (detailed overview, neighbourhoods): unique in ``graph``."""
    return distinct_labels(graph.nodes, MAX_LABEL)


def chip_labels(graph: DocGraph) -> dict[str, str]:
    """The labels of the compact overview's document chips: unique in each cluster, whose frame
    names the folder or tag (so the start its titles share is not repeated in every chip)."""
    return group_labels(graph.nodes, CHIP_W - 2 * PAD_X, FONT_SIZE - 1)


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
    drawing.lines = _edge_lines(boxes, graph.edges)
    return _fit(drawing)
