"""The pictures' shapes and the geometry they share: boxes, cluster frames and curved lines in
integer coordinates, box sizes and labels, and the fitting of a finished drawing into its frame.
The layouts that place them are :mod:`mdmark.graph.overview` and :mod:`mdmark.graph.neighbourhood`;
:mod:`mdmark.graph.svg` draws them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mdmark.graph.labels import distinct_labels, group_labels, text_width
from mdmark.graph.model import DocGraph, GraphEdge, Node
from mdmark.graph.style import FONT_SIZE

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


def curve_between(
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


def rect(box: Box | Cluster) -> tuple[float, float, float, float]:
    return (box.x, box.y, box.w, box.h)


def edge_lines(boxes: dict[str, Box], edges: list[GraphEdge]) -> list[Line]:
    lines: list[Line] = []
    lanes: dict[tuple[str, str], int] = {}
    for edge in edges:
        a, b = boxes.get(edge.source), boxes.get(edge.target)
        if a is None or b is None:
            continue
        lane = lanes.get((edge.source, edge.target), 0)
        lanes[(edge.source, edge.target)] = lane + 1
        curve = curve_between(rect(a), rect(b), lane, 2 if edge.directed else 1)
        if curve is not None:
            lines.append(Line(*curve, edge=edge))
    return lines


def fit(drawing: Drawing) -> Drawing:
    """Move everything so that curves bending outward stay inside the picture, and size it to fit."""
    rects = [rect(b) for b in drawing.boxes] + [rect(c) for c in [*drawing.clusters, *drawing.groups_map]]
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


def count_box(count: int, at: tuple[float, float]) -> tuple[float, float, float, float]:
    """The rectangle (x, y, w, h) a line's count covers when written centred at ``at`` (with its halo)."""
    w = text_width(str(count), FONT_SIZE - 1) + 6
    h = FONT_SIZE - 1 + 4
    return (at[0] - w / 2, at[1] - h / 2, w, h)


def box_labels(graph: DocGraph) -> dict[str, str]:
    """The labels of the document boxes (detailed overview, neighbourhoods): unique in ``graph``."""
    return distinct_labels(graph.nodes, MAX_LABEL)


def chip_labels(graph: DocGraph) -> dict[str, str]:
    """The labels of the compact overview's document chips: unique in each cluster, whose frame
    names the folder or tag (so the start its titles share is not repeated in every chip)."""
    return group_labels(graph.nodes, CHIP_W - 2 * PAD_X, FONT_SIZE - 1)
