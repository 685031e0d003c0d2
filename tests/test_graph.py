"""The relation graph: golden SVG/DOT/JSON of a small index, determinism, the layout's promises,
``mdmark graph``'s refusals, the build page's sections, the export's neighbourhood, 300 documents."""

from __future__ import annotations

import json
import random
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, assert_golden, run_mdmark
from html_helpers import page_problems
from mdmark.builders.build import build_site
from mdmark.core.errors import MdmarkError
from mdmark.builders.export import export_html
from mdmark.graph.geometry import Box
from mdmark.graph.layering import layers
from mdmark.graph.neighbourhood import MAX_NEIGHBOURS, neighbourhood
from mdmark.graph.overview import DETAIL_MAX_NODES, overview
from mdmark.graph.model import DocGraph, GraphEdge, Group, Node
from mdmark.graph.style import KINDS
from mdmark.graph.svg import to_svg
from mdmark.graph.views import graph_text
from mdmark.html.links import doc_id
from mdmark.project.main import Project

GRAPH = FIXTURES / "graph"
EXPECTED = GRAPH / "expected"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("graph") / "project"
    shutil.copytree(GRAPH / "project", root)
    return root


# -- golden output and determinism -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["svg", "dot", "json"])
@pytest.mark.parametrize(("name", "args"), [("overview", []), ("api", ["--doc", "api"])])
def test_golden(project: Path, fmt: str, name: str, args: list[str]) -> None:
    done = run_mdmark("graph", "--format", fmt, *args, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert_golden(done.stdout, EXPECTED / f"{name}.{fmt}")


def test_two_runs_are_byte_identical(project: Path) -> None:
    """Different hash seeds (set and dict order of strings) and a fresh process each time."""
    for args in ([], ["--doc", "api"], ["--doc", "lonely"]):
        first = run_mdmark("graph", *args, cwd=project, env={"PYTHONHASHSEED": "1"})
        second = run_mdmark("graph", *args, cwd=project, env={"PYTHONHASHSEED": "2"})
        assert first.returncode == 0, first.stderr
        assert first.stdout == second.stdout


def test_build_pages_are_byte_identical(tmp_path: Path) -> None:
    pages = []
    for seed in ("3", "4"):
        root = tmp_path / seed
        shutil.copytree(GRAPH / "project", root)
        done = run_mdmark("build", cwd=root, env={"PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        pages.append((root / "dist" / "site.html").read_bytes())
    assert pages[0] == pages[1]


def test_json_has_the_relations_find_docs_reports(project: Path) -> None:
    data = json.loads(run_mdmark("graph", "--format", "json", cwd=project).stdout)
    edges = {(e["source"], e["target"], e["type"], e["origin"]) for e in data["edges"]}
    # change_together is written on both sides and drawn once, undirected
    assert [e["directed"] for e in data["edges"] if e["type"] == "change_together"] == [False]
    # the body link arch → api is covered by the index relation in that direction
    assert ("arch", "api", None, "body") not in edges
    assert ("auth", "arch", None, "body") in edges  # a body link
    assert ("api", "glossary", None, "body") in edges  # an occurrence of a title
    assert ("old-auth", "glossary", None, "index") in edges  # a relation written as a bare id
    assert ("new-auth", "old-auth", "replaces", "index") in edges
    assert not [e for e in data["edges"] if "lonely" in (e["source"], e["target"])]
    groups = {n["id"]: n["group"] for n in data["nodes"]}
    assert groups == {
        "arch": "設計",
        "api": "設計",
        "auth": "運用",
        "old-auth": "運用",
        "new-auth": "運用",
        "glossary": "docs/",  # no main tag: its folder
        "lonely": "docs/api/",
    }


def test_svg_says_its_text_as_text(project: Path) -> None:
    svg = run_mdmark("graph", cwd=project).stdout
    root = ET.fromstring(svg)
    nodes = [e for e in root.iter() if e.get("class") == "mdmark-graph-node"]
    assert [n.get("data-doc") for n in nodes] == ["arch", "api", "auth", "old-auth", "new-auth", "glossary", "lonely"]
    labels = ["".join(n.find(f"{SVG_NS}text").itertext()) for n in nodes]  # type: ignore[union-attr]
    assert "アーキテクチャ" in labels and "用語集" in labels
    titles = ["".join(n.find(f"{SVG_NS}title").itertext()) for n in nodes]  # type: ignore[union-attr]
    assert '認証 "OAuth" <と> & トークン（auth）' in titles
    # standalone: links to the Markdown files, relative to where the SVG is read from
    assert [n.get("href") for n in nodes][:3] == ["docs/arch.md", "docs/api/api.md", "docs/api/auth.md"]
    assert "<script" not in svg and " id=" not in svg and "<style" not in svg


# -- mdmark graph: files, formats, refusals ---------------------------------------------------------


def test_out_file_and_format_from_its_suffix(project: Path) -> None:
    out = project / "graphs" / "graph.dot"
    done = run_mdmark("graph", "-o", "graphs/graph.dot", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{out}\n", "")
    assert out.read_text(encoding="utf-8").startswith("digraph mdmark {")
    svg = project / "graphs" / "api.svg"
    assert run_mdmark("graph", "--doc", "api", "-o", str(svg), cwd=project).returncode == 0
    # links are relative to the file's own folder
    assert 'href="../docs/arch.md"' in svg.read_text(encoding="utf-8")
    shutil.rmtree(project / "graphs")


def test_cli_writes_where_the_user_says_and_the_library_stays_confined(project: Path, tmp_path: Path) -> None:
    """``-o`` on the command line is the user's own choice, even outside the project; a caller of
    the library (a tool) stays inside the starting and config folders."""
    elsewhere = tmp_path / "elsewhere" / "graph.svg"
    elsewhere.parent.mkdir()
    done = run_mdmark("graph", "-o", str(elsewhere), cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{elsewhere}\n", "")
    assert 'href="' in elsewhere.read_text(encoding="utf-8")
    confined = tmp_path / "confined.svg"
    with pytest.raises(MdmarkError, match="の外なので"):
        graph_text(project, out=str(confined))
    assert not confined.exists()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["--doc", "apj"],
            1,
            "--doc の `apj` は索引の文書の ID に無いので、索引の docs の id（近い ID: `api`）を渡してください。\n",
        ),
        (
            ["-o", "graph.txt"],
            1,
            "出力先 `graph.txt` の拡張子が形式 svg に合わないので、`.svg` で終わるパスを指定してください。\n",
        ),
        (
            ["--format", "dot", "-o", "graph.svg"],
            1,
            "出力先 `graph.svg` の拡張子が形式 dot に合わないので、`.dot`・`.gv` で終わるパスを指定してください。\n",
        ),
        (
            ["--format", "yaml"],
            2,
            "使い方: mdmark graph [-h] [--format {svg,dot,json}] [--doc ID] [-o OUT]\n"
            "                  [--config PATH]\n"
            "mdmark graph: エラー: `--format` に `yaml` は使えない（`svg`・`dot`・`json` のどれか）ので、`mdmark graph --help` で使い方を確かめてください。\n",
        ),
    ],
)
def test_refusals_say_one_sentence_and_write_nothing(
    project: Path, args: list[str], code: int, message: str
) -> None:
    before = sorted(p.name for p in project.iterdir())
    done = run_mdmark("graph", *args, cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (code, "", message)
    assert sorted(p.name for p in project.iterdir()) == before


def test_library_checks_its_arguments(project: Path) -> None:
    with pytest.raises(MdmarkError, match="形式 `yml` は使えないので"):
        graph_text(project, format="yml")
    with pytest.raises(MdmarkError, match="doc は文書の ID の文字列で"):
        graph_text(project, doc=3)


def test_a_project_without_index_gets_its_documents_and_links(tmp_path: Path) -> None:
    """A Sphinx project (conf.py, no index): the documents, titled by their headings and grouped by
    folder, and an edge wherever a link lands as check resolves it ({doc}, {ref}, Markdown links)."""
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (tmp_path / "mdmark.config.yaml").write_text("sphinx:\n  conf: docs/conf.py\n", encoding="utf-8")
    (docs / "conf.py").write_text('project = "x"\nextensions = ["myst_parser"]\n', encoding="utf-8")
    (docs / "index.md").write_text("# トップ\n\n```{toctree}\nguide/a\nguide/b\n```\n\n[A へ](guide/a.md)\n", encoding="utf-8")
    (docs / "guide" / "a.md").write_text("(la)=\n# 手順A\n\n{doc}`b` を見る。\n", encoding="utf-8")
    (docs / "guide" / "b.md").write_text("# 手順B\n\n{ref}`la` と [外](https://example.org) を見る。\n", encoding="utf-8")
    done = run_mdmark("graph", "--format", "json", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    data = json.loads(done.stdout)
    assert [(n["id"], n["title"], n["group"]) for n in data["nodes"]] == [
        ("guide/a", "手順A", "docs/guide/"), ("guide/b", "手順B", "docs/guide/"), ("index", "トップ", "docs/"),
    ]  # fmt: skip
    assert sorted((e["source"], e["target"], e["origin"]) for e in data["edges"]) == [
        ("guide/a", "guide/b", "body"), ("guide/b", "guide/a", "body"), ("index", "guide/a", "body"),
    ]  # fmt: skip
    svg = run_mdmark("graph", "--doc", "guide/a", cwd=tmp_path)
    assert svg.returncode == 0 and 'href="docs/guide/b.md"' in svg.stdout
    wrong = run_mdmark("graph", "--doc", "guide/c", cwd=tmp_path)
    assert (wrong.returncode, wrong.stdout) == (1, "")
    assert wrong.stderr.startswith("--doc の `guide/c` は文書に無いので") and wrong.stderr.count("\n") == 1


# -- the layout -------------------------------------------------------------------------------------


def synthetic(n: int, groups: int, seed: int = 7, per_node: int = 2) -> DocGraph:
    rng = random.Random(seed)
    nodes = [
        Node(f"d{i:03d}", f"文書 {i:03d}" + ("の長い長い題名がここまで続く" if i % 5 == 0 else ""), f"d{i}.md", rng.randrange(groups))
        for i in range(n)
    ]
    used = sorted({node.group for node in nodes})
    renumber = {g: i for i, g in enumerate(used)}
    nodes = [Node(x.id, x.title, x.path, renumber[x.group]) for x in nodes]
    edges = []
    for i in range(n):
        for _ in range(per_node):
            j = rng.randrange(n)
            if j != i:
                edges.append(GraphEdge(nodes[i].id, nodes[j].id, rng.choice(KINDS), None))
    return DocGraph(nodes, [Group(f"話題{g}", "tag") for g in used], edges)


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def _check_placement(graph: DocGraph, drawing_boxes: list[Box], width: int, height: int) -> None:
    assert sorted(b.node.id for b in drawing_boxes) == sorted(n.id for n in graph.nodes)
    for i, a in enumerate(drawing_boxes):
        assert 0 <= a.x and a.x + a.w <= width and 0 <= a.y and a.y + a.h <= height, a
        for b in drawing_boxes[i + 1 :]:
            assert not _overlap(a, b), (a.node.id, b.node.id)


@pytest.mark.parametrize(("n", "groups"), [(10, 3), (DETAIL_MAX_NODES, 5), (300, 9), (300, 1)])
def test_overview_places_every_document_once_without_overlap(n: int, groups: int) -> None:
    graph = synthetic(n, groups)
    drawing = overview(graph)
    assert drawing.compact == (n > DETAIL_MAX_NODES or len(graph.edges) > 120)
    _check_placement(graph, drawing.boxes, drawing.width, drawing.height)
    clusters = {c.group: c for c in drawing.clusters}
    for box in drawing.boxes:
        c = clusters[box.node.group]
        assert c.x <= box.x and box.x + box.w <= c.x + c.w and c.y <= box.y and box.y + box.h <= c.y + c.h
    if drawing.compact:
        # documents' own edges live in their neighbourhoods; the map carries counts between groups
        assert all(line.edge is None and line.count > 0 for line in drawing.lines)
        assert len(drawing.groups_map) == len(graph.groups)
    else:
        assert len(drawing.lines) == len([e for e in graph.edges if e.source != e.target])
    # readable at 300: the compact picture stays about a page wide (a page scales a wider one down)
    assert drawing.width <= (900 if drawing.compact else 1400)


def test_same_graph_same_svg() -> None:
    first = to_svg(overview(synthetic(300, 9)), "t", lambda i: f"#{i}")
    second = to_svg(overview(synthetic(300, 9)), "t", lambda i: f"#{i}")
    assert first == second


def test_layers_put_targets_below_and_respect_the_width() -> None:
    ids = [f"n{i}" for i in range(12)]
    edges = [("n0", "n1"), ("n1", "n2"), ("n2", "n0"), ("n3", "n4"), ("n0", "n4")]
    rows = layers(ids, edges, 3)
    level = {n: r for r, row in enumerate(rows) for n in row}
    assert sorted(level) == sorted(ids)
    assert all(len(row) <= 3 for row in rows)
    # the cycle n0 → n1 → n2 → n0 is broken at its back edge only
    assert level["n0"] < level["n1"] < level["n2"]
    assert level["n3"] < level["n4"] and level["n0"] < level["n4"]


def test_neighbourhood_bands_and_cap() -> None:
    nodes = [Node("c", "中心", "c.md", 0)] + [Node(f"o{i:02d}", f"相手 {i}", f"o{i}.md", i % 3) for i in range(40)]
    edges = [GraphEdge("o00", "c", "requires", None), GraphEdge("c", "o01", "references", None)]
    edges += [GraphEdge("c", "o02", "change_together", None)]
    edges += [GraphEdge(f"o{i:02d}", "c", "body", None) for i in range(3, 40)]
    graph = DocGraph(nodes, [Group("甲", "tag"), Group("乙", "tag"), Group("丙", "folder")], edges).neighbourhood("c")
    drawing = neighbourhood(graph)
    boxes = {b.node.id: b for b in drawing.boxes}
    assert len(boxes) == 1 + MAX_NEIGHBOURS and drawing.hidden == 40 - MAX_NEIGHBOURS
    # index relations are never the ones left out
    assert {"o00", "o01", "o02"} <= set(boxes)
    centre = boxes["c"]
    assert centre.centre and boxes["o00"].y < centre.y < boxes["o01"].y and boxes["o02"].y == centre.y
    _check_placement(DocGraph([b.node for b in drawing.boxes], graph.groups, []), drawing.boxes, drawing.width, drawing.height)


# -- build and export ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(project: Path) -> str:
    return Path(build_site(project)["out"]).read_text(encoding="utf-8")


def test_build_has_the_overview_and_every_neighbourhood(built: str) -> None:
    assert page_problems(built) == []
    nav = built[built.index('<nav id="mdmark-nav"') : built.index("</nav>")]
    assert '<a href="#mdmark-graph">文書の関係図</a>' in nav
    overview_html = built[built.index('<section class="mdmark-graph-overview"') :]
    overview_html = overview_html[: overview_html.index("</section>")]
    hrefs = dict(re.findall(r'<a href="([^"]*)" class="mdmark-graph-node" data-doc="([^"]*)"', overview_html))
    assert sorted(hrefs.values()) == sorted(["arch", "api", "auth", "old-auth", "new-auth", "glossary", "lonely"])
    sections = re.findall(r'<section class="mdmark-doc" id="([^"]*)" data-source="([^"]*)">', built)
    assert len(sections) == 7
    for href, doc in hrefs.items():
        assert href[1:] in {ident for ident, _ in sections}, doc
    assert hrefs[f"#{doc_id('docs/api/auth')}"] == "auth"
    # each document closes with its neighbourhood; the one nothing points to says so
    starts = [built.index(f'<section class="mdmark-doc" id="{ident}"') for ident, _ in sections]
    ends = [*starts[1:], built.index('<section class="mdmark-graph-overview"')]
    bodies = {ident: built[a:b] for (ident, _), a, b in zip(sections, starts, ends, strict=True)}
    for ident, body in bodies.items():
        assert body.count('<aside class="mdmark-graph-local"') == 1, ident
        assert body.rstrip().endswith("</aside>\n</section>"), ident
    assert "この文書と関係のある索引の文書はありません" in bodies[doc_id("docs/api/lonely")]


def test_build_draws_indexed_documents_outside_the_page_without_a_link(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(GRAPH / "project", root)
    config = root / "mdmark.config.yaml"
    text = config.read_text(encoding="utf-8").replace("  out:", "  exclude: [docs/api/old-auth.md]\n  out:")
    config.write_text(text, encoding="utf-8")
    page = Path(build_site(root)["out"]).read_text(encoding="utf-8")
    assert page_problems(page) == []
    # drawn (in the overview and in its neighbours' pictures) but never a link to a missing section
    assert page.count('<g class="mdmark-graph-node" data-doc="old-auth">') == 1
    assert not re.search(r'<a href="[^"]*" class="mdmark-graph-node" data-doc="old-auth"', page)
    data = _graph_data(page)
    old = next(n for n in data["nodes"] if n[0] == "old-auth")
    assert old[3] == 0  # no link in the neighbourhoods the script draws
    assert any(number == data["nodes"].index(old) for p in data["pictures"].values() for number, *_ in p["b"])
    # the list a reader without the script sees: its title as text, no link
    assert re.search(r'<p class="mdmark-graph-list">[^\n]*(?:・|>)旧い認証(?:・|</p>)', page)


def test_build_without_index_has_no_graph(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text(
        "build:\n  include: ['*.md']\n  out: out.html\n", encoding="utf-8"
    )
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    page = Path(build_site(tmp_path)["out"]).read_text(encoding="utf-8")
    assert "mdmark-graph" not in page.split("</style>")[1].split("<script>")[0]


def _graph_data(page: str) -> dict:
    from mdmark.graph.views import DATA_ID

    found = re.search(rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.DOTALL)
    assert found is not None
    return json.loads(found.group(1))


def test_export_has_the_documents_neighbourhood(project: Path) -> None:
    out = Path(export_html(project, "docs/api/api.md")["out"])
    page = out.read_text(encoding="utf-8")
    assert page_problems(page) == []
    aside = page[page.index('<aside class="mdmark-graph-local"') :]
    links = dict(re.findall(r'<a href="([^"]*)" class="mdmark-graph-node" data-doc="([^"]*)"', aside))
    assert links == {"../arch.html": "arch", "#": "api", "auth.html": "auth", "../glossary.html": "glossary"}
    assert page.index("</article>") < page.index('<aside class="mdmark-graph-local"')


def test_export_outside_an_index_has_no_neighbourhood(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    page = Path(export_html(tmp_path, "a.md")["out"]).read_text(encoding="utf-8")
    assert "mdmark-graph-local" not in page.split("</style>")[1]


def test_300_generated_documents_build_with_their_graph(built_300: Path) -> None:
    page = built_300.read_text(encoding="utf-8")
    assert page_problems(page) == []
    start = page.index('<section class="mdmark-graph-overview"')
    overview_html = page[start : page.index("</section>", start)]
    assert overview_html.count('class="mdmark-graph-node"') == 300
    assert page.count('<aside class="mdmark-graph-local"') == 300
    # every generated document links to two others: each has its neighbourhood in the data block
    assert page.count("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mdmark-graph\"") == 1
    assert len(_graph_data(page)["pictures"]) == 300


# -- readable at 300 documents: text boxes as the layout measures them ------------------------------


def _translate(value: str | None) -> tuple[float, float]:
    found = re.fullmatch(r"translate\(([-\d.]+),([-\d.]+)\)", value or "")
    return (float(found.group(1)), float(found.group(2))) if found else (0.0, 0.0)


def text_boxes(svg: str) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Every ``<text>`` of ``svg`` with the rectangle (x, y, w, h) it covers, computed the way the
    layout estimates text (:func:`mdmark.graph.labels.text_width`), attributes inherited as in SVG."""
    from mdmark.graph.labels import text_width

    out: list[tuple[str, tuple[float, float, float, float]]] = []

    def walk(element: ET.Element, inherited: dict[str, str], dx: float, dy: float) -> None:
        attrs = {**inherited, **{k: v for k, v in element.attrib.items() if k in ("font-size", "text-anchor", "dominant-baseline")}}
        ox, oy = _translate(element.get("transform"))
        dx, dy = dx + ox, dy + oy
        if element.tag == f"{SVG_NS}text":
            text = "".join(element.itertext())
            size = float(attrs.get("font-size", "13"))
            width = text_width(text, size)
            x, y = float(element.get("x", "0")) + dx, float(element.get("y", "0")) + dy
            left = {"middle": x - width / 2, "end": x - width}.get(attrs.get("text-anchor", "start"), x)
            top = y - size / 2 if attrs.get("dominant-baseline") == "central" else y - 0.8 * size
            out.append((text, (left, top, width, size)))
            return
        for child in element:
            walk(child, attrs, dx, dy)

    walk(ET.fromstring(svg), {}, 0.0, 0.0)
    return out


def overlapping_texts(svg: str) -> list[tuple[str, str]]:
    boxes = sorted(text_boxes(svg), key=lambda item: item[1][0])
    clashes = []
    for i, (a, (ax, ay, aw, ah)) in enumerate(boxes):
        for b, (bx, by, bw, bh) in boxes[i + 1 :]:
            if bx >= ax + aw - 0.5:
                break
            if by < ay + ah - 0.5 and ay < by + bh - 0.5:
                clashes.append((a, b))
    return clashes


def node_labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(n.find(f"{SVG_NS}text").itertext()) for n in root.iter() if n.get("class") == "mdmark-graph-node"]  # type: ignore[union-attr]


def test_text_never_overlaps_and_labels_are_unique_at_300(built_300: Path) -> None:
    """The overview and every neighbourhood of the 300-document page: no two texts cover each other
    and no two boxes read the same. The neighbourhoods are drawn as the page's script draws them:
    from the data block, whose boxes must be the layout's."""
    from mdmark.graph.geometry import box_labels, chip_labels
    from mdmark.graph.views import load

    page = built_300.read_text(encoding="utf-8")
    start = page.index("<svg", page.index('<section class="mdmark-graph-overview"'))
    overview_svg = page[start : page.index("</svg>", start) + len("</svg>")]
    assert overlapping_texts(overview_svg) == []
    labels = node_labels(overview_svg)
    _, graph = load(Project.open(built_300.parent.parent))
    # the chips are unique within their cluster, whose frame names the folder or tag
    assert sorted(labels) == sorted(chip_labels(graph).values())
    assert_unique_in_clusters(graph, chip_labels(graph))

    data = _graph_data(page)
    names = box_labels(graph)
    assert len(set(names.values())) == len(graph.nodes)
    assert [n[2] or n[1] for n in data["nodes"]] == [names[n.id] for n in graph.nodes]
    for doc, picture in data["pictures"].items():
        local = graph.neighbourhood(doc)
        drawing = neighbourhood(local, names)
        assert [[data["nodes"][n][0], x, y] for n, x, y in picture["b"]] == [[b.node.id, b.x, b.y] for b in drawing.boxes]
        svg = to_svg(drawing, doc, lambda i: f"#{i}")
        assert overlapping_texts(svg) == [], doc
        shown = node_labels(svg)
        assert len(set(shown)) == len(shown), doc


def assert_unique_in_clusters(graph: DocGraph, labels: dict[str, str]) -> None:
    by_group: dict[int, list[str]] = {}
    for node in graph.nodes:
        by_group.setdefault(node.group, []).append(labels[node.id])
    for group, shown in by_group.items():
        assert len(set(shown)) == len(shown), graph.groups[group]


#: What the titles of a real knowledge base share: a long start, the same in every folder.
SHARED = "のトークン管理と運用の方針に関する取り決め "


@pytest.fixture(scope="module")
def long_titles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``bench/corpus.py``'s 300 documents, each title made 「<分野>のトークン管理と運用の方針に関する
    取り決め <主題><種類>」: the start shared by every title of a folder (and past the folder's
    name, by every title of the knowledge base)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_corpus_long_titles", REPO / "bench" / "corpus.py")
    assert spec is not None and spec.loader is not None
    corpus = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = corpus  # its dataclasses look their module up
    spec.loader.exec_module(corpus)
    root = tmp_path_factory.mktemp("long-titles")
    corpus.generate(root, 300)
    topics = [topic for _, topic in corpus.FOLDERS]

    def longer(found: re.Match[str]) -> str:
        title = found.group(1)
        topic = next((t for t in topics if title.startswith(f"{t}の")), None)
        return f"    title: {topic}{SHARED}{title[len(topic) + 1:]}" if topic else found.group(0)

    index = root / "index.yaml"
    index.write_text(re.sub(r"^    title: (.*)$", longer, index.read_text(encoding="utf-8"), flags=re.M), encoding="utf-8")
    return root


def test_300_titles_with_a_long_shared_start_read_apart(long_titles: Path) -> None:
    """Each chip says what tells its title from its cluster's others (the folder is on the frame),
    never a counter; the map draws each cluster's strongest relations only, names the rest in each
    frame's heading, and each of its boxes opens its cluster."""
    from mdmark.graph.geometry import chip_labels
    from mdmark.graph.overview import MAP_PARTNERS
    from mdmark.graph.views import load

    done = run_mdmark("graph", cwd=long_titles)
    assert (done.returncode, done.stderr) == (0, "")
    svg = done.stdout
    _, graph = load(Project.open(long_titles))
    labels = chip_labels(graph)
    assert_unique_in_clusters(graph, labels)
    assert sorted(node_labels(svg)) == sorted(labels.values())
    for node in graph.nodes:
        label = labels[node.id]
        assert not re.search(r"（\d+）$", label), label
        if SHARED in node.title:
            # the part after the shared start, whole: 「…トークン更新設計」
            assert label == "…" + node.title.split(SHARED)[1], (label, node.title)
    assert overlapping_texts(svg) == []
    root = ET.fromstring(svg)
    lines = [g for g in root.iter(f"{SVG_NS}g") if (g.findtext(f"{SVG_NS}title") or "").find("関係") > 0]
    assert 0 < len(lines) <= MAP_PARTNERS * len(graph.groups)
    frames = {g.get("id") for g in root.iter(f"{SVG_NS}g") if (g.get("id") or "").startswith("mdmark-graph-group-")}
    opens = [a.get("href") for a in root.iter(f"{SVG_NS}a") if a.get("class") == "mdmark-graph-group"]
    assert len(frames) == len(graph.groups) and sorted(h.lstrip("#") for h in opens) == sorted(frames)  # type: ignore[union-attr]
    assert "関係: " in svg


def test_the_300_page_size_and_the_graphs_share(built_300: Path) -> None:
    """Under 3 MB, the relation graphs (overview, asides, data block) at most a fifth of it."""
    page = built_300.read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    graph = re.findall(r'<section class="mdmark-graph-overview".*?</section>|<aside class="mdmark-graph-local".*?</aside>'
                       r'|<script type="application/json" id="mdmark-graph-data">.*?</script>', page, re.DOTALL)
    share = sum(len(part.encode("utf-8")) for part in graph) / size
    assert size < 3_000_000, size
    assert share <= 0.20, share


def test_labels_tell_apart_titles_that_read_alike() -> None:
    from mdmark.graph.labels import distinct_labels, text_width
    from mdmark.graph.geometry import MAX_LABEL

    nodes = [
        Node("a", "アーキテクチャのトークン更新設計", "architecture/design-001.md", 0),
        Node("b", "アーキテクチャのトークン更新手順", "architecture/howto-001.md", 0),
        Node("c", "アーキテクチャのトークン更新設計 その2", "architecture/design-021.md", 0),
        Node("d", "手順", "auth/howto.md", 0),
        Node("e", "手順", "billing/howto.md", 0),
        Node("f", "短い", "f.md", 0),
    ]
    labels = distinct_labels(nodes, MAX_LABEL)
    assert len(set(labels.values())) == len(nodes)
    assert labels["a"].endswith("更新設計") and labels["b"].endswith("更新手順") and labels["c"].endswith("その2")
    assert labels["d"] == "手順（auth/howto）" and labels["e"] == "手順（billing/howto）"
    assert labels["f"] == "短い"
    assert all(text_width(label) <= MAX_LABEL for label in labels.values())
