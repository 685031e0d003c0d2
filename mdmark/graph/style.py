"""How each kind of edge and each group looks, shared by the SVG, the DOT and the legend.

Index relations are drawn dark with one arrowhead per type; ``change_together`` has none (it is
undirected); body links and occurrences are light and dotted so the index relations stand out.
"""

from __future__ import annotations

from dataclasses import dataclass

from mdmark.index.model import RELATION_TYPES

#: An index relation written as a bare id (no type).
UNTYPED = "related"
#: A body link or a name occurrence (not written in the index).
BODY = "body"
KINDS: tuple[str, ...] = (*RELATION_TYPES, UNTYPED, BODY)


@dataclass(frozen=True)
class EdgeStyle:
    label: str
    colour: str
    width: float
    dash: str | None
    #: ``filled`` (triangle), ``open`` (chevron), ``diamond`` or ``none``.
    head: str


EDGE_STYLES: dict[str, EdgeStyle] = {
    "requires": EdgeStyle("必要とする", "#24292f", 1.6, None, "filled"),
    "references": EdgeStyle("参照する", "#0969da", 1.3, None, "open"),
    "replaces": EdgeStyle("置き換える", "#8250df", 1.4, "6 3", "filled"),
    "part_of": EdgeStyle("一部である", "#1a7f37", 1.4, None, "diamond"),
    "change_together": EdgeStyle("一緒に変える", "#bc4c00", 2.2, None, "none"),
    UNTYPED: EdgeStyle("関連（種類なし）", "#57606a", 1.2, "4 3", "open"),
    BODY: EdgeStyle("本文のリンク・言及", "#c4cbd3", 0.9, "2 3", "open"),
}

#: (fill, stroke) per group, in group order; more groups reuse the colours (their boxes are labelled).
PALETTE: tuple[tuple[str, str], ...] = (
    ("#ddf4ff", "#0969da"),
    ("#dafbe1", "#1a7f37"),
    ("#fff8c5", "#9a6700"),
    ("#fbefff", "#8250df"),
    ("#ffebe9", "#cf222e"),
    ("#fff1e5", "#bc4c00"),
    ("#e6fffa", "#0f766e"),
    ("#ffeff7", "#bf3989"),
    ("#eaeef2", "#57606a"),
    ("#f0f6e8", "#4d7c0f"),
)

FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', 'Hiragino Sans', 'Noto Sans CJK JP', 'Yu Gothic', sans-serif"
FONT_SIZE = 13


def colours(group_number: int) -> tuple[str, str]:
    return PALETTE[group_number % len(PALETTE)]
