"""The front-end functions: ``mdmark graph``, the build page's graph sections, the exported page's aside.

Each opens the project's index and its :class:`~mdmark.workspace.relations.RelationGraph` the way
``find_docs`` does, so the pictures show exactly the relations the tools report.
"""

from __future__ import annotations

import html
import json
import os
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from mdmark.core.errors import MdmarkError
from mdmark.util.files import display
from mdmark.graph.dot import to_dot
from mdmark.graph.model import DocGraph, doc_graph, facts_graph
from mdmark.graph.neighbourhood import neighbourhood
from mdmark.graph.overview import overview
from mdmark.graph.svg import to_svg
from mdmark.html.page import NavEntry
from mdmark.index.model import Index
from mdmark.project.main import Project
from mdmark.workspace.relations import build_graph
from mdmark.util.sentences import close_choice, close_note, output_not_file, unknown_doc_id
from mdmark.util.text import quote_list

FORMATS: tuple[str, ...] = ("svg", "dot", "json")
SUFFIXES: dict[str, tuple[str, ...]] = {"svg": (".svg",), "dot": (".dot", ".gv"), "json": (".json",)}


def load(project: Project) -> tuple[Index, DocGraph]:
    index = project.index()
    # The documents' facts by their files' stats: after a save only the saved document is asked
    # about (the pipeline would look up every document's content key).
    facts = project.workspace.stamped_facts(project.pipeline).facts_many
    relations = build_graph(index, project.root, facts, project.pipeline.parse_key, project.workspace)
    # The drawing's graph comes from the index model and the documents' body relations alone: a
    # save that changes no relation (the same index model, equal bodies, most sets the very same
    # objects) gives the last one again.
    key = ("doc-graph", str(index.path), str(project.root))
    kept = project.workspace.last_runs.get(key)
    if isinstance(kept, tuple) and kept[0] is index and kept[1] == relations.body:
        graph = cast(DocGraph, kept[2])
    else:
        graph = doc_graph(index, relations, project.root)
        project.workspace.last_runs.put(key, (index, relations.body, graph))
    return index, graph  # never changed once made: a neighbourhood is a new graph


def overview_title(graph: DocGraph) -> str:
    return f"文書の関係図（{len(graph.nodes)} 件）"


def neighbourhood_title(graph: DocGraph) -> str:
    centre = graph.node(graph.centre or "")
    return f"「{centre.title if centre else graph.centre}」の関係"


def _picture(graph: DocGraph, href: Callable[[str], str | None]) -> str:
    if graph.centre is not None:
        return to_svg(neighbourhood(graph), neighbourhood_title(graph), href)
    return to_svg(overview(graph), overview_title(graph), href)


def _link(path: Path, base: Path) -> str:
    return urllib.parse.quote(Path(os.path.relpath(path, base)).as_posix())


# -- mdmark graph ---------------------------------------------------------------------------------


def _format(fmt: Any, out: Path | None) -> str:
    if fmt is None:
        suffix = out.suffix.lower() if out is not None else ""
        return next((name for name, suffixes in SUFFIXES.items() if suffix in suffixes), "svg")
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise MdmarkError(f"形式 `{fmt}` は使えないので、{close_choice(str(fmt), FORMATS)}")
    return fmt


def _check_out(out: Path, shown: str, fmt: str) -> None:
    if out.suffix.lower() not in SUFFIXES[fmt]:
        raise MdmarkError(
            f"出力先 `{shown}` の拡張子が形式 {fmt} に合わないので、{quote_list(SUFFIXES[fmt])} で終わるパスを指定してください。"
        )
    if out.is_symlink() or (out.exists() and not out.is_file()):
        raise MdmarkError(output_not_file(shown))


def load_any(project: Project) -> tuple[DocGraph, dict[str, Path]]:
    """The project's graph and each document's file: the index's (:func:`load`), or without an
    index the documents and their links from the facts (:func:`~mdmark.graph.model.facts_graph`)."""
    if project.config.index is not None:
        index, graph = load(project)
        return graph, {d.id: index.doc_path(d) for d in index.docs}
    layout = project.model_layout([])
    model = project.model_from(layout, project.facts_for, {})
    return facts_graph(model, layout.files, project.root), dict(layout.files)


def graph_text(
    start: Path,
    *,
    format: Any = None,
    doc: Any = None,
    out: str | None = None,
    config: str | None = None,
    confined: bool = True,
) -> dict[str, Any]:
    """The relation graph of the index (or of ``doc``'s neighbourhood) as SVG, DOT or JSON; without
    an index, the documents and their links.

    Returns ``{"text", "out"}``; with ``out`` the text is written there (``out`` is then its
    absolute path), else ``out`` is None. ``confined``: ``out`` must lie in the starting or the
    config folder (a tool's call); the CLI passes False, since the user named the path.
    """
    project = Project.open(start, config)
    target = project.resolve_arg(out).absolute() if out is not None else None
    fmt = _format(format, target)
    if doc is not None and not isinstance(doc, str):
        raise MdmarkError("doc は文書の ID の文字列で渡してください。")
    if target is not None:
        shown = display(target, project.start)
        if confined:
            project.ensure_writable_target(target)
        _check_out(target, shown, fmt)
    graph, files = load_any(project)
    if doc is not None:
        if graph.node(doc) is None:
            ids = [n.id for n in graph.nodes]
            if project.config.index is None:
                near = close_note(doc, ids, "名前")
                raise MdmarkError(
                    f"--doc の `{doc}` は文書に無いので、文書の名前（拡張子を除いた source からのパス）{near or ' '}を渡してください。"
                )
            raise MdmarkError(unknown_doc_id("--doc", doc, ids))
        graph = graph.neighbourhood(doc)
    base = target.parent if target is not None else project.start

    if fmt == "json":
        text = json.dumps(graph.as_json(), ensure_ascii=False, indent=2) + "\n"
    elif fmt == "dot":
        text = to_dot(graph, neighbourhood_title(graph) if graph.centre else overview_title(graph))
    else:
        text = _picture(graph, lambda doc_id: _link(files[doc_id], base))
    if target is not None:
        from mdmark.html.page import write_page

        write_page(target, text, shown)
    return {"text": text, "out": str(target.resolve()) if target is not None else None}


# -- the built page and the exported page ------------------------------------------------------------

#: The id and heading of the overview section in the built page.
OVERVIEW_ID = "mdmark-graph"
OVERVIEW_TITLE = "文書の関係図"


def _local(graph: DocGraph, doc_id: str, href: Callable[[str], str | None], back: str | None) -> str:
    local = graph.neighbourhood(doc_id)
    link = f'（<a href="{back}">全体の関係図</a>）' if back else ""
    if len(local.nodes) == 1:
        return _alone(link)
    drawing = neighbourhood(local)
    hidden = f"。ほか {drawing.hidden} 件の文書は図に入りきらないので省きました" if drawing.hidden else ""
    svg = to_svg(drawing, neighbourhood_title(local), href)
    return (
        '<aside class="mdmark-graph-local" aria-label="この文書の関係">\n'
        f'<p class="mdmark-graph-caption">この文書の関係{link}{hidden}</p>\n'
        f'<figure class="mdmark-graph-figure">\n{svg}</figure>\n</aside>\n'
    )


def _alone(link: str) -> str:
    return (
        '<aside class="mdmark-graph-local" aria-label="この文書の関係">\n'
        f'<p class="mdmark-graph-caption">この文書と関係のある索引の文書はありません{link}。</p>\n</aside>\n'
    )


#: The id of the data block the built page's script draws the neighbourhoods from.
DATA_ID = "mdmark-graph-data"


@dataclass
class PageGraphs:
    """The build page's graph: the overview section, each document's neighbourhood aside, and the
    data block the page's script draws the neighbourhoods from (one drawing per document would be
    half the page at 300 documents; without the script each aside lists its documents as links)."""

    overview: str = ""
    local: dict[Path, str] = field(default_factory=dict)
    data: str = ""

    def after(self, path: Path) -> str:
        """The neighbourhood aside that closes the section of the document at ``path`` (resolved; '' if none)."""
        return self.local.get(path, "")

    def finish(self, body: list[str], nav: list[NavEntry]) -> None:
        """The overview section after the documents, and its entry at the end of the navigation."""
        if self.overview:
            body.append(self.overview)
            nav.append(NavEntry(OVERVIEW_TITLE, f"#{OVERVIEW_ID}"))


def page_data(graph: DocGraph, anchors: dict[str, str], wanted: list[str]) -> tuple[dict[str, Any], dict[str, int]]:
    """The data the page's script draws the neighbourhoods of ``wanted`` from: the layout's boxes
    (computed here, as for ``mdmark graph --doc``), the relations, and what the drawing needs of
    each document (title, label, width, link). Returns it and the number of documents each picture
    leaves out."""
    from mdmark.graph.labels import text_width
    from mdmark.graph.geometry import box_labels, box_width
    from mdmark.graph.style import EDGE_STYLES, FONT_FAMILY, FONT_SIZE, KINDS, PALETTE

    labels = box_labels(graph)
    number = {n.id: i for i, n in enumerate(graph.nodes)}
    kinds = {k: i for i, k in enumerate(KINDS)}
    pictures: dict[str, Any] = {}
    hidden: dict[str, int] = {}
    # A relation's "when" is written once and named by its number (many relations share one).
    whens: dict[str, int] = {}

    def when(text: str) -> int:
        return whens.setdefault(text, len(whens))

    for doc_id in wanted:
        local = graph.neighbourhood(doc_id)
        if len(local.nodes) == 1:
            continue
        drawing = neighbourhood(local, labels)
        hidden[doc_id] = drawing.hidden
        shown = {b.node.id for b in drawing.boxes}
        pictures[doc_id] = {
            "w": drawing.width,
            "h": drawing.height,
            "g": [graph.groups.index(g) for g in local.groups],
            "b": [[number[b.node.id], b.x, b.y] for b in drawing.boxes],
            "e": [
                [kinds[e.kind], number[e.source], number[e.target], *([when(e.when)] if e.when else [])]
                for e in local.edges
                if e.source in shown and e.target in shown
            ],
        }
    data = {
        "font": [FONT_FAMILY, FONT_SIZE],
        "palette": PALETTE,
        "kinds": [
            [kinds[k], s.label, s.colour, s.width, s.dash, s.head, k != "change_together"] for k, s in EDGE_STYLES.items()
        ],
        "order": list(KINDS),
        "groups": [g.name for g in graph.groups],
        # id, title, label (0: the title), link (0: none), box width, group.
        "nodes": [
            [
                n.id,
                n.title,
                0 if labels[n.id] == n.title else labels[n.id],
                anchors.get(n.id) or 0,
                box_width(labels[n.id]),
                n.group,
            ]
            for n in graph.nodes
        ],
        "pictures": pictures,
        "whens": list(whens),
        # The layout's own estimate of text widths, so the script writes the legend where the layout would.
        "widths": {"wide": text_width("あ", 1.0), "narrow": text_width("a", 1.0), "space": text_width(" ", 1.0)},
    }
    return data, hidden


def _listing(graph: DocGraph, doc_id: str, hidden: int, anchors: dict[str, str], link: str) -> str:
    """The aside of the built page: a caption, the related documents as links (what a reader without
    the script sees) and the place the script draws the picture in."""
    local = graph.neighbourhood(doc_id)
    more = f"。ほか {hidden} 件の文書は図に入りきらないので省きました" if hidden else ""
    items = []
    for node in local.nodes:
        if node.id == doc_id:
            continue
        title = html.escape(node.title)
        target = anchors.get(node.id)
        items.append(f'<a href="{html.escape(target)}">{title}</a>' if target else title)
    return (
        f'<aside class="mdmark-graph-local" aria-label="この文書の関係" data-doc="{html.escape(doc_id)}">\n'
        f'<p class="mdmark-graph-caption">この文書の関係{link}{more}</p>\n'
        # One line of links (a list's markup would be a tenth of the graphs' bytes at 300 documents).
        f'<p class="mdmark-graph-list">{"・".join(items)}</p>\n</aside>\n'
    )


def build_graphs(project: Project, sections: dict[Path, str], doc_files: list[Path] | None = None) -> PageGraphs:
    """``sections``: resolved path of each document in the page → the id of its section;
    ``doc_files``: the index's :meth:`~mdmark.index.model.Index.doc_files` when the caller has them."""
    if project.config.index is None:
        return PageGraphs()
    index, graph = load(project)
    if not graph.nodes:
        return PageGraphs()
    # The anchors of the same index model, index files and sections (the very objects the build
    # keeps while no document came or went) are the last ones.
    anchors_key = ("anchors", str(index.path))
    found = project.workspace.page_graphs.get(anchors_key)
    if isinstance(found, tuple) and found[0] is index and found[1] is doc_files and found[2] is sections:
        anchors, paths = cast(tuple[dict[str, str], dict[str, Path]], found[3:])
    else:
        anchors = {}
        paths = {}
        for doc, path in zip(index.docs, doc_files if doc_files is not None else index.doc_files(), strict=True):
            if path in sections and doc.id not in anchors:
                anchors[doc.id] = f"#{sections[path]}"
                paths[doc.id] = path
        if doc_files is not None:
            project.workspace.page_graphs.put(anchors_key, (index, doc_files, sections, anchors, paths))

    # The graph is kept as long as the index model and the documents' relations are the same
    # (:func:`load`): the very same graph with the same anchors is the last drawing, without the
    # key of every node and edge hashed again.
    last_key = ("last", str(index.path))
    last = project.workspace.page_graphs.get(last_key)
    if isinstance(last, tuple) and last[0] is graph and (last[1] is anchors or (last[1] == anchors and last[2] == paths)):
        made = cast(PageGraphs, last[3])
        return replace(made, local=dict(made.local))
    key = (
        tuple(graph.nodes),
        tuple(graph.groups),
        tuple(graph.edges),
        tuple((doc_id, anchor, str(paths[doc_id])) for doc_id, anchor in anchors.items()),
    )
    kept = project.workspace.page_graphs.get(key)
    made = kept if isinstance(kept, PageGraphs) else _page_graphs(graph, anchors, paths)
    project.workspace.page_graphs.put(key, made)
    project.workspace.page_graphs.put(last_key, (graph, anchors, paths, made))
    return replace(made, local=dict(made.local))


def _page_graphs(graph: DocGraph, anchors: dict[str, str], paths: dict[str, Path]) -> PageGraphs:
    def href(doc_id: str) -> str | None:
        return anchors.get(doc_id)

    drawing = overview(graph)
    if drawing.compact:
        note = (
            "文書が多いので、主題のタグ（無ければフォルダ）のまとまりごとに文書を並べ、まとまりの間の関係の数を線で示します。"
            "文書ごとの関係は、各文書の末尾の図にあります。箱を押すとその文書へ飛びます。"
        )
    else:
        note = "箱は索引の文書（色は主題のタグ、無ければフォルダ）、線は関係です。箱を押すとその文書へ飛びます。"
    section = (
        f'<section class="mdmark-graph-overview" id="{OVERVIEW_ID}">\n<h1>{OVERVIEW_TITLE}</h1>\n'
        f'<p class="mdmark-graph-caption">{html.escape(note)}</p>\n'
        f'<figure class="mdmark-graph-figure">\n{to_svg(drawing, overview_title(graph), href)}</figure>\n</section>\n'
    )
    data, hidden = page_data(graph, anchors, list(anchors))
    back = f'（<a href="#{OVERVIEW_ID}">全体の関係図</a>）'
    local = {
        paths[doc_id]: _listing(graph, doc_id, hidden[doc_id], anchors, back) if doc_id in hidden else _alone(back)
        for doc_id in anchors
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    block = f'<script type="application/json" id="{DATA_ID}">{text}</script>\n'
    return PageGraphs(section, local, block)


def export_aside(project: Project, source: Path, target: Path) -> str:
    """The exported document's neighbourhood, linking to the other documents' sibling ``.html``.

    '' when the config has no index, the index cannot be read (``check`` says why) or the
    document is not in it.
    """
    if project.config.index is None:
        return ""
    try:
        index, graph = load(project)
    except MdmarkError:
        return ""
    wanted = source.resolve()
    own = next((d for d in index.docs if index.doc_file(d) == wanted), None)
    if own is None:
        return ""
    files = {d.id: index.doc_path(d) for d in index.docs}

    def href(doc_id: str) -> str | None:
        if doc_id == own.id:
            return "#"
        path = files[doc_id]
        return _link(path.with_suffix(".html"), target.parent) if path.is_file() else None

    return _local(graph, own.id, href, None)
