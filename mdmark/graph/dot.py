"""The graph as Graphviz DOT, for readers who take it further with Graphviz's own tools.

Groups become clusters, relation types become edge styles (the same as in the SVG), and
``change_together`` is ``dir=none``. mdmark itself never runs Graphviz.
"""

from __future__ import annotations

from mdmark.graph.model import DocGraph
from mdmark.graph.style import EDGE_STYLES, colours

_HEADS = {"filled": "normal", "open": "vee", "diamond": "diamond", "none": "none"}


def _q(text: str) -> str:
    """A DOT quoted string (backslashes and quotes escaped, line breaks as ``\\n``)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n") + '"'


def to_dot(graph: DocGraph, title: str) -> str:
    lines = [
        "digraph mdmark {",
        f"  graph [label={_q(title)}, labelloc=t, rankdir=TB, fontname=\"sans-serif\"];",
        '  node [shape=box, style="rounded,filled", fontname="sans-serif"];',
        '  edge [fontname="sans-serif", fontsize=10];',
    ]
    for number, group in enumerate(graph.groups):
        fill, stroke = colours(number)
        lines.append(f"  subgraph {_q(f'cluster_{number}')} {{")
        lines.append(f"    label={_q(group.name)}; color={_q(stroke)};")
        for node in graph.nodes:
            if node.group != number:
                continue
            extra = ", penwidth=2.5" if node.id == graph.centre else ""
            lines.append(
                f"    {_q(node.id)} [label={_q(node.title)}, tooltip={_q(node.path)}, "
                f"fillcolor={_q(fill)}, color={_q(stroke)}{extra}];"
            )
        lines.append("  }")
    for edge in graph.edges:
        style = EDGE_STYLES[edge.kind]
        attrs = [
            f"color={_q(style.colour)}",
            f"penwidth={style.width}",
            f"arrowhead={_HEADS[style.head]}",
            f"style={'dashed' if style.dash and style.dash.startswith(('4', '6')) else 'dotted' if style.dash else 'solid'}",
            f"tooltip={_q(style.label + (f'（{edge.when}）' if edge.when else ''))}",
            f"class={_q(edge.kind)}",
        ]
        if not edge.directed:
            attrs.append("dir=none")
        lines.append(f"  {_q(edge.source)} -> {_q(edge.target)} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
