"""A :class:`~mdmark.graph.geometry.Drawing` as SVG markup.

The SVG stands alone (a file of ``mdmark graph``) and inline in a page (``build``, ``export``):
presentation attributes only, no ``<style>``, no ids, no script, so any number of pictures share a
page and the page's Content-Security-Policy holds. Labels are ``<text>`` in the reader's own
fonts (the page's font stack, Japanese included); the full title of a document and the ``when``
of a relation are tooltips (``<title>``). Documents are links when ``href`` gives one.
"""

from __future__ import annotations

import functools
import html
import math
from collections.abc import Callable

from mdmark.graph.labels import text_width
from mdmark.graph.geometry import Box, Cluster, Drawing, Line
from mdmark.graph.style import BODY, EDGE_STYLES, FONT_FAMILY, FONT_SIZE, KINDS, colours

LEGEND_SAMPLE = 28
LEGEND_ROW = 20
LEGEND_GAP = 16
HEAD_LEN = 8.0
HEAD_HALF = 4.5
AGGREGATE_COLOUR = "#8c959f"


#: The id prefix of a compact overview's cluster frames (the map's boxes link to them).
GROUP_ANCHOR = "mdmark-graph-group-"


@functools.lru_cache(maxsize=65536)
def _n(value: float) -> str:
    text = f"{value:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


@functools.lru_cache(maxsize=16384)
def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _point(p: tuple[float, float]) -> str:
    return f"{_n(p[0])},{_n(p[1])}"


def _head(line: Line, shape: str, colour: str) -> str:
    ex, ey = line.end
    dx, dy = ex - line.control[0], ey - line.control[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    px, py = -uy, ux
    base = (ex - ux * HEAD_LEN, ey - uy * HEAD_LEN)
    left = (base[0] + px * HEAD_HALF, base[1] + py * HEAD_HALF)
    right = (base[0] - px * HEAD_HALF, base[1] - py * HEAD_HALF)
    if shape == "filled":
        return f'<path d="M{_point(line.end)} L{_point(left)} L{_point(right)} Z" fill="{colour}"/>'
    if shape == "open":
        return f'<path d="M{_point(left)} L{_point(line.end)} L{_point(right)}" fill="none" stroke="{colour}" stroke-width="1.3"/>'
    if shape == "diamond":
        back = (ex - ux * HEAD_LEN * 2, ey - uy * HEAD_LEN * 2)
        return f'<path d="M{_point(line.end)} L{_point(left)} L{_point(back)} L{_point(right)} Z" fill="{colour}"/>'
    return ""


def _edge(line: Line, titles: dict[str, str]) -> str:
    assert line.edge is not None
    edge = line.edge
    style = EDGE_STYLES[edge.kind]
    arrow = "—" if not edge.directed else "→"
    tip = f"{titles[edge.source]} {arrow} {titles[edge.target]}: {style.label}"
    if edge.when:
        tip += f"（{edge.when}）"
    dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
    path = (
        f'<path d="M{_point(line.start)} Q{_point(line.control)} {_point(line.end)}" fill="none" '
        f'stroke="{style.colour}" stroke-width="{_n(style.width)}"{dash}/>'
    )
    return f"<g><title>{_esc(tip)}</title>{path}{_head(line, style.head, style.colour)}</g>"


def _aggregate(line: Line, names: list[str]) -> str:
    width = min(6.0, 1.0 + math.log2(line.count + 1))
    mid = line.label_at or (
        0.25 * line.start[0] + 0.5 * line.control[0] + 0.25 * line.end[0],
        0.25 * line.start[1] + 0.5 * line.control[1] + 0.25 * line.end[1],
    )
    a, b = line.between
    tip = f"{names[a]} — {names[b]}: 関係 {line.count} 件"
    return (
        f"<g><title>{_esc(tip)}</title>"
        f'<path d="M{_point(line.start)} Q{_point(line.control)} {_point(line.end)}" fill="none" '
        f'stroke="{AGGREGATE_COLOUR}" stroke-width="{_n(width)}" stroke-opacity="0.6"/>'
        f'<text x="{_n(mid[0])}" y="{_n(mid[1])}" text-anchor="middle" dominant-baseline="central" '
        f'font-size="{FONT_SIZE - 1}" fill="#24292f" stroke="#ffffff" stroke-width="3" paint-order="stroke">'
        f"{line.count}</text></g>"
    )


#: The attributes every document box's label shares, written once on the group of the boxes.
NODE_TEXT = 'text-anchor="middle" dominant-baseline="central" fill="#1f2328" stroke-width="1"'


def _node(box: Box, group: int, href: str | None) -> str:
    fill, stroke = colours(group)
    node = box.node
    width = ' stroke-width="2.5"' if box.centre else ""
    dash = ' stroke-dasharray="3 2"' if href is None and not box.centre else ""
    weight = ' font-weight="700"' if box.centre else ""
    inner = (
        f"<title>{_esc(node.title)}（{_esc(node.id)}）</title>"
        f'<rect x="{box.x}" y="{box.y}" width="{box.w}" height="{box.h}" rx="6" fill="{fill}" '
        f'stroke="{stroke}"{width}{dash}/>'
        f'<text x="{_n(box.x + box.w / 2)}" y="{_n(box.y + box.h / 2)}"{weight}>{_esc(box.label)}</text>'
    )
    data = f' class="mdmark-graph-node" data-doc="{_esc(node.id)}"'
    if href is None:
        return f"<g{data}>{inner}</g>"
    return f'<a href="{_esc(href)}"{data}>{inner}</a>'


def _legend(drawing: Drawing, top: int, limit: int) -> tuple[list[str], int, int]:
    """Legend items in rows under the picture; returns the markup, its bottom and its width."""
    items: list[tuple[float, str]] = []
    if drawing.compact:
        sample = (
            f'<path d="M0,0 L{LEGEND_SAMPLE},0" stroke="{AGGREGATE_COLOUR}" stroke-width="3" stroke-opacity="0.7"/>'
        )
        label = "まとまりの間の主な関係（数字は件数。押すとそのまとまりへ）"
        items.append((LEGEND_SAMPLE + 6 + text_width(label, FONT_SIZE - 1), sample + _legend_text(label)))
    else:
        used = {line.edge.kind for line in drawing.lines if line.edge is not None}
        for kind in KINDS:
            if kind not in used:
                continue
            style = EDGE_STYLES[kind]
            dash = f' stroke-dasharray="{style.dash}"' if style.dash else ""
            fake = Line((0, 0), (LEGEND_SAMPLE / 2, 0), (LEGEND_SAMPLE, 0))
            sample = (
                f'<path d="M0,0 L{LEGEND_SAMPLE},0" stroke="{style.colour}" stroke-width="{_n(style.width)}"{dash}/>'
                + _head(fake, style.head, style.colour)
            )
            items.append((LEGEND_SAMPLE + 6 + text_width(style.label, FONT_SIZE - 1), sample + _legend_text(style.label)))
    if drawing.graph.centre is not None:
        for number, group in enumerate(drawing.graph.groups):
            fill, stroke = colours(number)
            swatch = f'<rect x="0" y="-6" width="{LEGEND_SAMPLE}" height="12" rx="3" fill="{fill}" stroke="{stroke}"/>'
            items.append((LEGEND_SAMPLE + 6 + text_width(group.name, FONT_SIZE - 1), swatch + _legend_text(group.name)))
    out: list[str] = []
    x, y = 8.0, top + LEGEND_ROW / 2
    widest = 0.0
    for width, markup in items:
        if x > 8 and x + width > limit:
            x, y = 8.0, y + LEGEND_ROW
        out.append(f'<g transform="translate({_n(x)},{_n(y)})">{markup}</g>')
        x += width + LEGEND_GAP
        widest = max(widest, x)
    bottom = int(y + LEGEND_ROW / 2) if items else top
    return out, bottom, math.ceil(widest)


def _legend_text(label: str) -> str:
    return (
        f'<text x="{LEGEND_SAMPLE + 6}" y="0" dominant-baseline="central" font-size="{FONT_SIZE - 1}" '
        f'fill="#59636e">{_esc(label)}</text>'
    )


def _frame(box: Cluster, rx: int, paint: str, label_at: tuple[int, int] | None, font: str) -> str:
    """A labelled rectangle: a cluster (label at ``label_at`` inside its corner) or a map box (centred)."""
    if label_at is None:
        where = (
            f'x="{_n(box.x + box.w / 2)}" y="{_n(box.y + box.h / 2)}" text-anchor="middle" dominant-baseline="central"'
        )
    else:
        where = f'x="{box.x + label_at[0]}" y="{box.y + label_at[1]}"'
    return (
        f'<g><rect x="{box.x}" y="{box.y}" width="{box.w}" height="{box.h}" rx="{rx}" {paint}/>'
        f"<text {where} {font}>{_esc(box.label)}</text></g>"
    )


def to_svg(drawing: Drawing, title: str, href: Callable[[str], str | None]) -> str:
    """The SVG of ``drawing``; ``href(doc_id)`` is a document's link, or None for no link."""
    graph = drawing.graph
    titles = {n.id: n.title for n in graph.nodes}
    names = [g.name for g in graph.groups]
    parts: list[str] = []
    for cluster in drawing.clusters:
        fill, stroke = colours(cluster.group)
        paint = f'fill="{fill}" fill-opacity="0.35" stroke="{stroke}" stroke-opacity="0.5"'
        font = f'font-size="{FONT_SIZE - 1}" font-weight="600" fill="{stroke}"'
        frame = _frame(cluster, 8, paint, (12, 22), font)
        # The compact map's boxes open their cluster (a link to its frame).
        parts.append(frame.replace("<g>", f'<g id="{GROUP_ANCHOR}{cluster.group}">', 1) if drawing.compact else frame)
    # Light body edges first, so the index relations are drawn over them.
    lines = sorted(drawing.lines, key=lambda line: 0 if line.edge is None or line.edge.kind == BODY else 1)
    for line in lines:
        parts.append(_edge(line, titles) if line.edge is not None else _aggregate(line, names))
    for entry in drawing.groups_map:
        fill, stroke = colours(entry.group)
        box = _frame(entry, 6, f'fill="{fill}" stroke="{stroke}"', None, 'font-weight="600" fill="#1f2328"')
        parts.append(f'<a href="#{GROUP_ANCHOR}{entry.group}" class="mdmark-graph-group">{box}</a>')
    if drawing.boxes:
        size = FONT_SIZE - 1 if drawing.compact else FONT_SIZE
        parts.append(f'<g {NODE_TEXT} font-size="{size}">')
        parts += [_node(box, box.node.group, href(box.node.id)) for box in drawing.boxes]
        parts.append("</g>")
    legend, bottom, legend_w = _legend(drawing, drawing.height + 4, max(drawing.width, 360))
    width = max(drawing.width, legend_w)
    height = bottom + 8
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="mdmark-graph" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}" font-size="{FONT_SIZE}" '
        f'aria-label="{_esc(title)}">'
    )
    body = "\n".join([f"<title>{_esc(title)}</title>", *parts, *legend])
    return f"{head}\n{body}\n</svg>\n"
