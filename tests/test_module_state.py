"""State between calls lives in the workspace (issue 13): no module keeps state of its own.

Read from the source, not from a run. Every module-level binding is scanned:

* a binding no code ever changes (no item assignment, no mutating method call, no ``global``
  rebinding) is a constant, whatever its type — a table, a schema, a tool declaration;
* anything else — a container that is filled or emptied, a lock, a weak map, a ``Memo`` or
  ``ContentCache`` — is state, and each one outside :mod:`mdmark.workspace.main` must be listed in
  :data:`ALLOWED` with the reason it is not a project's cache;
* every ``functools`` cache is listed in :data:`CACHES` with the reason its answer can never go
  stale (a pure function of its arguments, or of files shipped inside the package).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mdmark", "sphinx_ext")

#: (module path, name) → why it is not a project cache that belongs in the workspace.
ALLOWED: dict[tuple[str, str], str] = {
    ("mdmark/server/limits.py", "_RUNNING"): "the tool calls running now (to stop them), not a cache",
    ("mdmark/server/limits.py", "_RUNNING_LOCK"): "guards _RUNNING",
    ("mdmark/queries/edit_index.py", "_THREAD_LOCKS"): "one lock per index file, shared by every project that edits it",
    ("mdmark/queries/edit_index.py", "_THREAD_LOCKS_GUARD"): "guards _THREAD_LOCKS",
    ("mdmark/workspace/picklefn.py", "_FILLING"): "a lock held while a snapshot's deferred list is unpickled, not a cache",
    ("mdmark/pipeline/cachestore.py", "_KEYS"): "this user's secret cache key, the same for every project",
    ("mdmark/host/confine.py", "_CONFINED"): "the project root of each live Sphinx environment (weak keys)",
    ("sphinx_ext/state.py", "_BY_ENV"): "the extension's state per Sphinx build environment (weak keys)",
    ("mdmark/host/held_markup.py", "_CATCH_ALL"): "which live Sphinx environments stand in for every unknown name (keys dropped with the environment)",
    ("mdmark/util/landlock.py", "_APPLIED"): "the Landlock confinement of this process: set once, the kernel never undoes it",
    ("mdmark/pipeline/tasks.py", "TASKS"): "the worker tasks by name: the pipeline's own, and a higher layer's row added when its module is imported",
    ("mdmark/pipeline/pool.py", "_POOL"): "this process's worker processes (fresh_pool swaps in a pool of a run's own), not a cache",
    ("mdmark/pipeline/resident.py", "_allowed"): "whether this process is a one-shot command of the CLI (set once by its main), not a cache",
    ("mdmark/pipeline/resident.py", "_SPAWNED"): "the resident zygotes this process started (their Popen objects kept alive), not a cache",
    ("mdmark/host/accessors.py", "_PREPARED"): "which live Sphinx applications have prepared their writer (weak)",
    ("mdmark/host/patches.py", "_PARSERS"): "MyST parsers by configuration, made once per process: they keep no document",
    ("mdmark/host/session.py", "_COLLECTOR"): "the one logging handler on Sphinx's process-wide logger",
    ("mdmark/host/session.py", "SPHINX_LOCK"): "Sphinx's logging and docutils' settings are process-wide: one lock",
    ("mdmark/util/capture.py", "_LOCK"): "file descriptors 1 and 2 are process-wide: one redirect at a time",
    ("mdmark/util/capture.py", "_depth"): "how deep the one redirect of fds 1 and 2 is nested (process-wide, like the fds)",
}

#: (module path, function) → why the memoised answer never goes stale.
CACHES: dict[tuple[str, str], str] = {
    ("mdmark/answers/__init__.py", "_formats"): "the modules of a package: fixed for the process",
    ("mdmark/config/myst.py", "myst_extensions"): "what the installed MyST accepts: fixed for the process",
    ("mdmark/pipeline/reading_warnings.py", "_pygments_class"): "Pygments' installed lexers (and plugins) by name: fixed for the process",
    ("mdmark/util/environment.py", "package_digest"): "the digest of the code this process runs, taken once: the code a process runs does not change",
    ("mdmark/cli/argparse_ja.py", "japanese_formatter"): "a class made from a class: pure",
    ("mdmark/graph/labels.py", "text_width"): "a pure function of the text",
    ("mdmark/graph/labels.py", "fit_label"): "a pure function of the text and width",
    ("mdmark/html/page.py", "_mermaid"): "the bundled mermaid and its start: files shipped inside the package",
    ("mdmark/html/labels.py", "_catalog"): "Sphinx's message catalog of a language: files shipped with the installed Sphinx",
    ("mdmark/graph/svg.py", "_n"): "number formatting: pure",
    ("mdmark/graph/svg.py", "_esc"): "XML escaping: pure",
    ("mdmark/host/patches.py", "share_docutils_settings"): "installs a patch once per process: idempotent",
    ("mdmark/host/patches.py", "harden_parsing"): "installs the sandbox of docutils and MyST once per process: idempotent",
    ("mdmark/host/patches.py", "own_config_defaults"): "installs a patch once per process: idempotent",
    ("mdmark/host/sandbox.py", "sandbox"): "the sandboxed Jinja2 environment: holds no document's data",
    ("mdmark/host/patches.py", "parser_defaults"): "docutils defaults per set of component classes: pure",
    ("mdmark/host/confinfo.py", "builtin_role_objtypes"): "the object types of Sphinx's own domains' roles: fixed for the process",
    ("mdmark/host/confine.py", "_directive_classes"): "directive classes of installed packages: fixed for the process",
    ("mdmark/pipeline/reading_warnings.py", "_pygments_knows"): "the installed Pygments lexers: fixed for the process, as Sphinx keeps them",
    ("mdmark/html/page.py", "template"): "a file shipped in the package",
    ("mdmark/html/page.py", "_static_css"): "files shipped in the package",
    ("mdmark/html/page.py", "_pygments_css"): "Pygments' stylesheet for a style name: pure",
    ("mdmark/html/page.py", "page_script"): "a file shipped in the package",
    ("mdmark/html/translator.py", "_translator_over"): "a class made from a class: pure",
    ("mdmark/util/globs.py", "_compile"): "a regular expression from a glob: pure",
    ("mdmark/util/landlock.py", "_libc"): "the C library this process is linked with: fixed for the process",
}

_MUTATORS = {
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault", "add",
    "discard", "put", "get_or_make", "__setitem__", "acquire", "release",
}
#: Calls that make state whatever is done with it afterwards.
_STATEFUL_CALLS = {"Lock", "RLock", "Memo", "ContentCache", "WeakKeyDictionary", "WeakValueDictionary", "WeakSet", "local"}
#: The one module that may keep state between calls.
WORKSPACE = "mdmark/workspace/main.py"


def _call_name(node: ast.expr) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _mutated_names(tree: ast.Module) -> set[str]:
    """Module names something changes: items assigned or deleted, mutating methods, ``global`` rebinding."""
    changed: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            changed.update(node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, (ast.Subscript, ast.Attribute)) and isinstance(target.value, ast.Name):
                    changed.add(target.value.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            if node.func.attr in _MUTATORS:
                changed.add(node.func.value.id)
        elif isinstance(node, ast.With):
            for item in node.items:
                if isinstance(item.context_expr, ast.Name):
                    changed.add(item.context_expr.id)  # a lock taken with ``with``
    return changed


def _module_state(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    changed = _mutated_names(tree)
    found: list[tuple[str, int]] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign):
            targets, value = [statement.target], statement.value
        else:
            continue
        stateful = isinstance(value, ast.Call) and _call_name(value) in _STATEFUL_CALLS
        for target in targets:
            if isinstance(target, ast.Name) and (stateful or target.id in changed):
                found.append((target.id, statement.lineno))
    named = {name for name, _ in found}
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            for name in node.names:
                if name not in named:
                    named.add(name)
                    found.append((name, node.lineno))
    return sorted(found, key=lambda item: item[1])


def _caches(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if _call_name(decorator) in ("cache", "lru_cache"):
                    found.append((node.name, node.lineno))
    return found


def _files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_no_module_keeps_state_outside_the_workspace() -> None:
    offenders = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == WORKSPACE:
            continue
        for name, line in _module_state(path):
            if (rel, name) not in ALLOWED:
                offenders.append(f"{rel}:{line}: {name}")
    assert offenders == [], "module-level state outside mdmark.workspace.main (move it there, or list it with a reason)"


def test_every_functools_cache_is_listed_with_its_reason() -> None:
    unlisted = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {name}"
        for path in _files()
        for name, line in _caches(path)
        if (path.relative_to(ROOT).as_posix(), name) not in CACHES
    ]
    assert unlisted == [], "a functools cache that may go stale belongs in the workspace; a pure one is listed with its reason"


def test_every_listed_name_still_exists() -> None:
    """The lists shrink with the code: a name that is gone is taken off."""
    state = {(path.relative_to(ROOT).as_posix(), name) for path in _files() for name, _ in _module_state(path)}
    caches = {(path.relative_to(ROOT).as_posix(), name) for path in _files() for name, _ in _caches(path)}
    assert sorted(set(ALLOWED) - state) == []
    assert sorted(set(CACHES) - caches) == []


def test_the_scan_sees_state(tmp_path: Path) -> None:
    """A filled container, a lock and a global rebinding are state; an untouched table is not."""
    source = (
        "import threading\n"
        "TABLE = {'a': 1}\n"
        "SEEN = {}\n"
        "LOCK = threading.Lock()\n"
        "COUNT = 0\n"
        "def f(x):\n"
        "    global COUNT\n"
        "    SEEN[x] = TABLE['a']\n"
        "    COUNT += 1\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert [name for name, _ in _module_state(path)] == ["SEEN", "LOCK", "COUNT"]
