"""State between calls lives in the workspace (issue 13): no module keeps a mutable cache of its own.

Read from the source, not from a run: a module-level name bound to an empty container (``{}``,
``[]``, ``set()``, ``dict()``, a ``WeakKeyDictionary``…) is a cache or registry filled at run
time, and a ``global`` statement rebinds module state. Each one outside :mod:`mdmark.workspace`
must be listed below with the reason it is not a project's cache. Memoised pure functions
(``functools.cache``) compute the same value for the same arguments in every project and are
not state in this sense.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mdmark", "sphinx_ext")

#: (module path, name) → why it is not a project cache that belongs in the workspace.
ALLOWED: dict[tuple[str, str], str] = {
    ("mdmark/server/limits.py", "_RUNNING"): "the tool calls running now (to stop them), not a cache",
    ("mdmark/index/edit.py", "_THREAD_LOCKS"): "one lock per index file, shared by every project that edits it",
    ("mdmark/pipeline/cachestore.py", "_KEYS"): "this user's secret cache key, the same for every project",
    ("mdmark/host/confine.py", "_CONFINED"): "the project root of each live Sphinx environment (weak keys)",
    ("sphinx_ext/state.py", "_BY_ENV"): "the extension's state per Sphinx build environment (weak keys)",
    ("mdmark/pipeline/workers.py", "_WORKER"): "a worker process's own pipeline, set once by its initializer",
    ("mdmark/host/app.py", "_PREPARED"): "which live Sphinx applications have prepared their writer (weak)",
    ("mdmark/host/app.py", "_COLLECTOR"): "the one logging handler on Sphinx's process-wide logger",
}

_CONTAINER_CALLS = {"dict", "set", "list", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet", "OrderedDict", "defaultdict"}
#: mdmark's own caches: made anywhere at module level, they are module state whatever their arguments.
_CACHE_CLASSES = {"Memo", "ContentCache"}
#: The one module that may keep state between calls.
WORKSPACE = "mdmark/workspace.py"


def _is_empty_container(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Dict):
        return not node.keys
    if isinstance(node, (ast.List, ast.Set)):
        return not node.elts
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return (name in _CONTAINER_CALLS and not node.args) or name in _CACHE_CLASSES
    return False


def _module_state(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and _is_empty_container(statement.value):
            found += [(t.id, statement.lineno) for t in statement.targets if isinstance(t, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and _is_empty_container(statement.value):
            if isinstance(statement.target, ast.Name):
                found.append((statement.target.id, statement.lineno))
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found += [(name, node.lineno) for name in node.names]
    return found


def test_no_module_keeps_state_outside_the_workspace() -> None:
    offenders = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == WORKSPACE:
                continue
            for name, line in _module_state(path):
                if (rel, name) not in ALLOWED:
                    offenders.append(f"{rel}:{line}: {name}")
    assert offenders == [], "module-level state outside mdmark.workspace (move it there, or list it with a reason)"


def test_every_allowed_name_still_exists() -> None:
    """The list shrinks with the code: a name that is gone is taken off."""
    present = {
        (path.relative_to(ROOT).as_posix(), name)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        for name, _ in _module_state(path)
    }
    assert sorted(set(ALLOWED) - present) == []
