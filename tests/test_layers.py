"""The package's layers: every import points down or sideways, and no modules import each other in a circle.

Every import counts: at the top of a module, inside a function (an import inside a function hides
a circle from Python, not from a reader) and under ``if TYPE_CHECKING:`` (a type names a module as
surely as a call does: a lower layer that needs a higher one's type declares a small Protocol of its
own). ``ARCHITECTURE.md`` describes the layers; the table below is the same list, by folder.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Lowest first. A module belongs to the layer of the longest prefix that names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("mdmark", "mdmark.core", "mdmark.util", "mdmark.answers"),
    ("mdmark.declare",),
    ("mdmark.config",),
    ("mdmark.index",),
    ("mdmark.host",),
    ("mdmark.pipeline",),
    ("mdmark.workspace",),
    ("mdmark.project", "mdmark.references"),
    ("mdmark.check", "mdmark.html", "mdmark.graph", "mdmark.queries"),
    ("mdmark.builders", "mdmark.guide"),
    ("mdmark.tools",),
    ("mdmark.serving",),
    ("mdmark.server", "mdmark.cli", "mdmark.lsp", "mdmark.preview", "mdmark.sphinx_ext", "mdmark.__main__"),
)

#: The front-ends: nothing below them may import them.
FRONT_ENDS = ("mdmark.server", "mdmark.cli", "mdmark.lsp", "mdmark.preview", "mdmark.sphinx_ext")


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top, package in (("mdmark", "mdmark"), ("sphinx_ext", "mdmark.sphinx_ext")):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT / top).with_suffix("").parts
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The known modules ``name`` imports (the longest known prefix of each imported name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            # ``from package import module`` imports the module (the package's own imports are its
            # edges); ``from module import name`` imports the module.
            submodules = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in known]
            targets = submodules if len(submodules) == len(node.names) else [module, *submodules]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in known.items():
        edges[name].update(imported(name, path, known))
    return edges


def layer(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or (prefix != "mdmark" and module.startswith(prefix + "."))
            if matches and (best is None or len(prefix) > best[1]):
                best = (number, len(prefix))
    return best[0] if best is not None else None


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_has_a_layer() -> None:
    assert [m for m in modules() if layer(m) is None] == []


def test_no_import_circles() -> None:
    assert circles(graph()) == []


def test_imports_point_down() -> None:
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, targets in sorted(graph().items())
        for target in sorted(targets)
        if (layer(target) or 0) > (layer(source) or 0)
    ]
    assert upward == []


def test_the_library_never_imports_a_front_end() -> None:
    offenders = [
        f"{source} imports {target}"
        for source, targets in sorted(graph().items())
        if not source.startswith(FRONT_ENDS) and source != "mdmark.__main__"
        for target in sorted(targets)
        if target.startswith(FRONT_ENDS)
    ]
    assert offenders == []


def test_the_circle_finder_finds_circles() -> None:
    """The test above would pass on a finder that finds nothing: it must see a hidden circle."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_each_folder_is_one_row() -> None:
    """The table names folders only, each in one row, and every module of the package lives in one
    (besides the package's own ``__init__`` and ``__main__``)."""
    package = ROOT / "mdmark"
    loose = sorted(p.name for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == []
    named = [prefix for row in LAYERS for prefix in row if prefix not in ("mdmark", "mdmark.__main__")]
    assert len(named) == len(set(named))
    folders = {f"mdmark.{p.name}" for p in package.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert set(named) - {"mdmark.sphinx_ext"} == folders
