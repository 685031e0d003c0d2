"""The directives and roles of the extensions an untrusted conf.py names but mdmark does not load.

Until the user trusts a project (:mod:`mdmark.host.trust`) an extension off the allow-list is not
loaded: what it would add to the markup (notebook cells, ``mermaid``, ``graphviz``, a theme's demo
directive, conf.py's own ``setup()``) is unknown to docutils, and each of its blocks would be an
"unknown directive" drift and lose its body. This module finds those names without running
anything: it reads the extensions' source files (installed ones by the path the import system
would take, the project's own beside conf.py) and conf.py itself with Python's AST, and collects
the names given to ``add_directive``/``add_role`` (also ``*_to_domain``, ``add_autodocumenter``
and a domain class's ``directives``/``roles`` tables), following the plain loops and f-strings
extensions write them with.

:func:`install` then registers an opaque stand-in for each name not otherwise known: it logs a
warning of type :data:`UNCHECKED_WARNING` (the extension's name as message), which ``check``
counts into the one trust notice instead of a drift, and keeps the block: a directive that parses
its own body as markup (its class calls ``nested_parse``) has the body parsed, so drifts inside it
are still found; any other body is kept as a literal block, shown as written.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdmark.core.facts import UNCHECKED_WARNING

__all__ = ["CONF_SETUP", "UNCHECKED_WARNING", "HeldMarkup", "held_markup", "install", "install_catch_all", "theme_module"]
#: What the notice calls conf.py's own ``setup()``.
CONF_SETUP = "conf.py"

#: Files read of one extension package at most, and bytes of each.
_MAX_FILES = 400
_MAX_BYTES = 2 * 1024 * 1024
_SKIP = {"tests", "test", "__pycache__", "node_modules", "static", "theme", "templates", "locale"}
#: Calls that parse a directive's own body as markup.
_PARSES_BODY = ("nested_parse", "nested_render", "parse_content_to_nodes", "nested_parse_with_titles", "nested_parse_to_nodes")
#: docutils' and Sphinx's directive classes that parse their body (an extension's subclass does too).
_MARKUP_BASES = frozenset(
    {"Sidebar", "Topic", "BasePseudoSection", "BaseAdmonition", "Admonition", "SphinxAdmonition", "Container", "Compound"}
)


@dataclass(frozen=True)
class HeldMarkup:
    """Names the held extensions would register: name → the extension (as conf.py names it)."""

    directives: dict[str, str] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)
    #: Directives whose class parses its body as markup (the rest keep it literal).
    markup: frozenset[str] = frozenset()
    #: Of :attr:`markup`, those that parse text they make from the body (joined, split): parsed
    #: for its references and labels, its syntax not judged (the extension may reshape it).
    loose: frozenset[str] = frozenset()


def held_markup(conf: Path, held: Iterable[str], search: Iterable[Path]) -> HeldMarkup:
    """What the ``held`` extensions of ``conf`` and conf.py's own ``setup()`` register, read statically.

    ``search``: the project's folders a local extension is found in (conf.py's, its ``sys.path``
    additions), before the installed packages."""
    directives: dict[str, str] = {}
    roles: dict[str, str] = {}
    markup: set[str] = set()
    loose: set[str] = set()
    folders = list(search)
    sources: list[tuple[str, list[Path]]] = [(name, _module_files(name, folders)) for name in held]
    sources.append((CONF_SETUP, [conf]))
    for extension, files in sources:
        found = _Scan(files)
        for name, cls in found.directives.items():
            directives.setdefault(name, extension)
            how = found.parses_body(cls) if cls is not None else None
            if how is not None:
                markup.add(name)
            if how == "loose":
                loose.add(name)
        for name in found.roles:
            roles.setdefault(name, extension)
    return HeldMarkup(directives, roles, frozenset(markup), frozenset(loose))


def theme_module(theme: object) -> str | None:
    """The module an HTML theme named in conf.py's ``html_theme`` is set up from (its
    ``sphinx.html_themes`` entry point, read from the installed packages' metadata; nothing imported)."""
    if not isinstance(theme, str) or not theme:
        return None
    from importlib.metadata import entry_points

    for entry in entry_points(group="sphinx.html_themes"):
        if entry.name == theme:
            return entry.module
    return None


def _module_files(name: str, folders: list[Path]) -> list[Path]:
    """The source files of module ``name`` (a package: every ``.py`` under it), found without
    importing anything: in ``folders`` first, then where the import system finds its top package."""
    parts = name.split(".")
    if not all(p.isidentifier() for p in parts):
        return []
    bases: list[Path] = list(folders)
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: found, not imported
    except (ImportError, ValueError, AttributeError):
        spec = None
    if spec is not None:
        if spec.submodule_search_locations:
            bases += [Path(p).parent for p in spec.submodule_search_locations]
        elif spec.origin and spec.origin.endswith(".py"):
            bases.append(Path(spec.origin).parent)
    for base in bases:
        package = base.joinpath(*parts)
        if (package / "__init__.py").is_file():
            return _python_files(package)
        module = base.joinpath(*parts[:-1], f"{parts[-1]}.py")
        if module.is_file():
            return [module]
    return []


def _python_files(package: Path) -> list[Path]:
    found: list[Path] = []
    for current, subdirs, files in os.walk(package):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP and not d.startswith("."))
        found.extend(Path(current) / f for f in sorted(files) if f.endswith(".py"))
        if len(found) >= _MAX_FILES:
            break
    return found[:_MAX_FILES]


class _Scan:
    """The registrations of a set of source files."""

    def __init__(self, files: list[Path]) -> None:
        self.directives: dict[str, str | None] = {}
        self.roles: dict[str, None] = {}
        self.classes: dict[str, ast.ClassDef] = {}
        self.documenters: list[str] = []
        for file in files:
            try:
                info = file.stat()
                # A FIFO or device would block the read: only regular files of a bounded size.
                if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_BYTES:
                    continue
                tree = ast.parse(file.read_bytes(), filename=str(file))
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            self._module(tree)
        for cls in self.documenters:
            objtype = _class_string(self.classes.get(cls), "objtype")
            if objtype:
                self.directives.setdefault(f"auto{objtype}", None)

    def _module(self, tree: ast.Module) -> None:
        constants: dict[str, Any] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _literal(node.value, {})
                if value is not None:
                    constants[node.targets[0].id] = value
        for sub in ast.walk(tree):
            if isinstance(sub, ast.ClassDef):
                self.classes.setdefault(sub.name, sub)
                self._domain(sub)
        self._calls(tree.body, constants)

    def _domain(self, cls: ast.ClassDef) -> None:
        """A domain class: ``name = "x"`` and the tables ``directives``/``roles`` (``x:key``)."""
        domain = _class_string(cls, "name")
        if not domain or not any(_base_name(b).endswith("Domain") for b in cls.bases):
            return
        constants: dict[str, Any] = {}
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                table = stmt.targets[0].id
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
                table = stmt.target.id
            else:
                continue
            assert stmt.value is not None
            if table not in ("directives", "roles"):
                value = _literal(stmt.value, constants)
                if value is not None:
                    constants[table] = value  # a class constant a table is made from (bibtex's role names)
                continue
            for key, target in _table_entries(stmt.value, constants):
                full = f"{domain}:{key}" if key else domain
                if table == "directives":
                    self.directives.setdefault(full, target or None)
                else:
                    self.roles.setdefault(full, None)

    def _calls(self, body: list[ast.stmt], names: dict[str, Any]) -> None:
        for stmt in body:
            for scope in _with_loops(stmt, names):
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Call):
                        self._call(node, scope)

    def _call(self, call: ast.Call, names: dict[str, Any]) -> None:
        method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        args = call.args
        if method in ("add_directive", "add_role") and args:
            name = _literal(args[0], names)
            target = _base_name(args[1]) if len(args) > 1 else ""
        elif method in ("add_directive_to_domain", "add_role_to_domain") and len(args) >= 2:
            domain, role = _literal(args[0], names), _literal(args[1], names)
            name = f"{domain}:{role}" if isinstance(domain, str) and isinstance(role, str) else None
            target = _base_name(args[2]) if len(args) > 2 else ""
        elif method == "add_autodocumenter" and args:
            self.documenters.append(_base_name(args[0]))
            return
        else:
            return
        if not isinstance(name, str) or not name:
            return
        if method.startswith("add_directive"):
            self.directives.setdefault(name, target or None)
        else:
            self.roles.setdefault(name, None)

    def parses_body(self, cls: str, depth: int = 0) -> str | None:
        """How class ``cls`` (or a base of it among the files read) parses its body: "strict" (the
        body itself, ``nested_parse(self.content, …)``), "loose" (text it makes from the body:
        sphinx-examples joins it, a demo directive splits it), or None (it does not)."""
        if cls in _MARKUP_BASES:
            return "strict"
        node = self.classes.get(cls)
        if node is None or depth > 8:
            return None
        loose = False
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            name = sub.func.attr if isinstance(sub.func, ast.Attribute) else sub.func.id if isinstance(sub.func, ast.Name) else None
            if name not in _PARSES_BODY:
                continue
            if any(isinstance(a, ast.Attribute) and a.attr == "content" for a in sub.args):
                return "strict"
            loose = loose or _uses_content(node)
        if loose:
            return "loose"
        found = [self.parses_body(_base_name(b), depth + 1) for b in node.bases]
        return "strict" if "strict" in found else "loose" if "loose" in found else None


def _table_entries(node: ast.expr, names: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, class) of a domain's ``directives``/``roles`` table: a dict literal, or a dict
    comprehension over literal names (``{name: CiteRole() for name in _role_names}``)."""
    if isinstance(node, ast.Dict):
        return [
            (key.value, _base_name(value))
            for key, value in zip(node.keys, node.values, strict=True)
            if isinstance(key, ast.Constant) and isinstance(key.value, str)
        ]
    if isinstance(node, ast.DictComp) and len(node.generators) == 1:
        generator = node.generators[0]
        items = _literal(generator.iter, names)
        if isinstance(generator.target, ast.Name) and isinstance(node.key, ast.Name) and node.key.id == generator.target.id:
            if isinstance(items, tuple) and all(isinstance(i, str) for i in items):
                return [(str(i), _base_name(node.value)) for i in items]
    return []


def _uses_content(cls: ast.ClassDef) -> bool:
    """Whether the class reads its body (``self.content``) at all: parsing only text it makes
    itself (autodoc's generated lines) is not parsing the body."""
    return any(isinstance(sub, ast.Attribute) and sub.attr in ("content", "block_text") for sub in ast.walk(cls))


def _base_name(node: ast.expr) -> str:
    """``Mermaid`` for ``Mermaid`` and ``mod.Mermaid``, also for a call ``Role()`` (a role object)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _class_string(cls: ast.ClassDef | None, attr: str) -> str | None:
    for stmt in cls.body if cls is not None else ():
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else getattr(stmt, "target", None)
        value = getattr(stmt, "value", None)
        if isinstance(target, ast.Name) and target.id == attr and isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


def _literal(node: ast.expr, names: dict[str, Any]) -> Any:
    """A string, tuple or list of literals (names of ``names`` and f-strings of them followed); None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue) and value.format_spec is None:
                inner = _literal(value.value, names)
                if not isinstance(inner, str):
                    return None
                parts.append(inner)
            else:
                return None
        return "".join(parts)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_literal(e, names) for e in node.elts]
        return tuple(items) if all(i is not None for i in items) else None
    if isinstance(node, ast.Dict):
        keys = [_literal(k, names) if k is not None else None for k in node.keys]
        return tuple(keys) if all(isinstance(k, str) for k in keys) else None
    return None


def _with_loops(stmt: ast.stmt, names: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The name bindings under which ``stmt``'s calls are read: one per item of each ``for`` over a
    literal (``for t in ("class", "module"):``, ``for name, cls in [...]``, ``.items()`` of a dict)."""
    loops = [n for n in ast.walk(stmt) if isinstance(n, ast.For)]
    yield names
    for loop in loops:
        source = loop.iter
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in ("items", "keys"):
            source = source.func.value
        items = _literal(source, names)
        if not isinstance(items, tuple) or len(items) > 200:
            continue
        for item in items:
            bound = dict(names)
            if isinstance(loop.target, ast.Name):
                bound[loop.target.id] = item[0] if isinstance(item, tuple) and item else item
            elif isinstance(loop.target, ast.Tuple) and loop.target.elts and isinstance(loop.target.elts[0], ast.Name):
                bound[loop.target.elts[0].id] = item[0] if isinstance(item, tuple) and item else item
            yield bound


# -- the stand-ins ------------------------------------------------------------------------------------


def install(app: Any, held: HeldMarkup) -> None:
    """Register a stand-in for every name of ``held`` that ``app`` does not already know."""
    from docutils.parsers.rst import directives as rst_directives
    from docutils.parsers.rst import roles as rst_roles

    domains = app.env.domains
    # A held extension an allowed one loads itself (napoleon sets up autodoc) is held all the same:
    # its directives would run the project's code (autodoc imports the modules documents name).
    pulled = {name for name in set(held.directives.values()) | set(held.roles.values()) if name in app.extensions}
    for name, extension in held.directives.items():
        domain, _, local = name.rpartition(":")
        if extension in pulled:
            known = False
        elif domain:
            known = domain in domains and local in domains[domain].directives
        else:
            known = name in rst_directives._directives or name in _docutils_directives()
        if not known:
            how = ("loose" if name in held.loose else "strict") if name in held.markup else None
            app.add_directive(name, _directive(extension, how), override=True)
    for name, extension in held.roles.items():
        domain, _, local = name.rpartition(":")
        known = (domain in domains and local in domains[domain].roles) if domain else name in rst_roles._roles
        if not known or extension in pulled:
            app.add_role(name, _role(extension), override=True)


#: ``id`` of the domain containers of applications whose conf.py does not list its extensions as
#: literals: there any directive or role no one knows may be an extension's (see :func:`install_catch_all`).
_CATCH_ALL: set[int] = set()


def install_catch_all(app: Any) -> None:
    """For a conf.py whose ``extensions`` the static reading cannot tell (computed, read from
    another file): every unknown directive or role is a stand-in attributed to conf.py, since any
    extension may add it. Sphinx's dispatch is shared by the process; only ``app``'s reads change."""
    import weakref

    _patch_dispatch()
    key = id(app.env.domains)
    _CATCH_ALL.add(key)
    weakref.finalize(app.env, _CATCH_ALL.discard, key)


def _patch_dispatch() -> None:
    from sphinx.util.docutils import sphinx_domains

    if getattr(sphinx_domains, "_mdmark_catch_all", False):
        return
    directive, role = sphinx_domains.directive, sphinx_domains.role

    def catch_directive(self: Any, name: str, language_module: Any, document: Any) -> Any:
        found, messages = directive(self, name, language_module, document)
        if found is None and id(self.domains) in _CATCH_ALL:
            return _directive(CONF_SETUP, None), []
        return found, messages

    def catch_role(self: Any, name: str, language_module: Any, lineno: int, reporter: Any) -> Any:
        found, messages = role(self, name, language_module, lineno, reporter)
        if found is None and id(self.domains) in _CATCH_ALL:
            return _role(CONF_SETUP), []
        return found, messages

    sphinx_domains.directive = catch_directive  # type: ignore[method-assign,assignment]
    sphinx_domains.role = catch_role  # type: ignore[method-assign,assignment]
    sphinx_domains._mdmark_catch_all = True  # type: ignore[attr-defined]


def _docutils_directives() -> frozenset[str]:
    from docutils.parsers.rst.directives import _directive_registry

    return frozenset(_directive_registry)


class _AnyOption(dict[str, Any]):
    """An ``option_spec`` that takes every option as text (the real one is the extension's)."""

    def __missing__(self, key: str) -> Any:
        from docutils.parsers.rst import directives

        return directives.unchanged

    def __bool__(self) -> bool:
        return True


def _directive(extension: str, markup: str | None) -> type[Any]:
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class Unchecked(Directive):  # type: ignore[misc]
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOption()

        def run(self) -> list[Any]:
            _note(self.state, self.lineno, extension)
            if markup:
                box = nodes.container(classes=["mdmark-unchecked"])
                reporter = self.state.document.reporter
                quiet = markup == "loose"
                level = reporter.report_level
                if quiet:  # the extension reshapes the text first: docutils' complaints are not the document's
                    reporter.report_level = reporter.SEVERE_LEVEL + 1
                try:
                    self.state.nested_parse(self.content, self.content_offset, box)
                finally:
                    reporter.report_level = level
                if quiet:  # and what docutils would judge later (a transition inside a block)
                    for leftover in [*box.findall(nodes.system_message), *box.findall(nodes.transition)]:
                        leftover.parent.remove(leftover)
                return [box]
            text = "\n".join(self.content)
            block = nodes.literal_block(text, text, classes=["mdmark-unchecked"])
            block["language"] = "text"  # shown as written, not coloured as some language
            block.line = self.lineno
            return [block]

    Unchecked.__name__ = "UncheckedDirective"
    return Unchecked


def _role(extension: str) -> Any:
    from docutils import nodes

    def unchecked(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None) -> tuple[list[Any], list[Any]]:
        _note(inliner, lineno, extension)
        return [nodes.literal(rawtext, text, classes=["mdmark-unchecked"])], []

    return unchecked


def _note(state: Any, line: int, extension: str) -> None:
    from sphinx.util import logging as sphinx_logging

    document = getattr(state, "document", None)
    env = getattr(getattr(document, "settings", None), "env", None)
    if env is None:
        return
    kind, _, subtype = UNCHECKED_WARNING.partition(".")
    sphinx_logging.getLogger("mdmark").warning(extension, location=(env.docname, line), type=kind, subtype=subtype)
