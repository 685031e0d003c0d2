"""What a reference node of a doctree refers to, as a :class:`~mdmark.core.facts.Link`: the one place
that decides the kind of a reference (check through the facts, export and build through the HTML
writer), and the line it is reported at.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from typing import Any

from docutils import nodes

from mdmark.core.facts import Link
from mdmark.pipeline.lines import LineCounter

#: A URL's scheme (``https:``, ``mailto:``): a destination with one is not a file of the project.
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _split_target(target: str) -> tuple[str, str | None]:
    path, sep, anchor = target.partition("#")
    return path, (anchor if sep else None)


def resolve_path(docdir: str, path: str) -> str:
    """A path written in a document, relative to the source folder (POSIX)."""
    if path.startswith("/"):
        return posixpath.normpath(path.lstrip("/"))
    return posixpath.normpath(posixpath.join(docdir, path)) if docdir else posixpath.normpath(path)


def source_paths(env: Any) -> Callable[[str], str]:
    """A document's source file relative to the source folder, by docname, as Sphinx found it
    (``index.rst`` in a project of ``.rst`` and ``.md``); ``{docname}.md`` for one it did not find."""

    def source_of(target: str) -> str:
        if env is not None and target in env.found_docs:
            return str(env.doc2path(target, False)).replace(os.sep, "/")
        return f"{target}.md"

    return source_of


def classify(
    node: nodes.Element,
    docname: str,
    line: int,
    slug_of_id: dict[str, str] | None = None,
    source_of: Callable[[str], str] | None = None,
) -> Link | None:
    """What a reference node of a doctree (before post-transforms) refers to, as a :class:`Link`.

    The one place that decides the kind of a reference: check (through the facts), export and
    build (through :mod:`mdmark.html.render`) all see references through it. None for nodes that
    are not references (or in-page references already resolved to nothing to check).
    ``source_of``: :func:`source_paths` (a link to a document names its file with the file's own
    suffix, ``.rst`` or ``.md``).
    """
    docdir = posixpath.dirname(docname)
    name = type(node).__name__
    text = node.astext()
    explicit = bool(node.get("refexplicit", True))
    if name == "pending_xref":
        reftype = str(node.get("reftype") or "")
        domain = node.get("refdomain")
        target = str(node.get("reftarget") or "")
        if reftype == "myst":
            if domain == "doc":
                anchor = node.get("reftargetid") or None
                path = source_of(target) if source_of is not None else f"{target}.md"
                written = posixpath.relpath(path, docdir or ".") + (f"#{anchor}" if anchor else "")
                return Link(written, path, anchor, line, text, role="myst-doc", doc=target, explicit=explicit)
            local = node.get("reflocalid") or None
            if domain is None and node.line is None and node.source is None:
                # `[t](#name)` that MyST could not resolve in the page: its transform turns the
                # link into a pending_xref without a source position (a written link has one).
                return Link(f"#{target}", None, target or None, line, text, role="myst", explicit=explicit, local_id=local)
            file_part, anchor = _split_target(target)
            file_path = resolve_path(docdir, file_part) if file_part else None
            return Link(target, file_path, anchor, line, text, role="myst", explicit=explicit, local_id=local)
        # std roles and {eq} (the math domain's) go by their name, other domains' as `py:class`.
        role = reftype if domain in (None, "", "std", "math") else f"{domain}:{reftype}"
        if domain == "math":
            role = "eq"  # {math:numref} is the math domain's, as {eq}: an equation's label, not {numref}'s
        if reftype == "doc" and domain == "std":
            # {doc} or a card with :link-type: doc — docnames without suffix, relative to the document.
            doc = resolve_path(docdir, target)
            return Link(target, doc + ".md", None, line, text, role="doc", doc=doc, explicit=explicit)
        module, scope = _context(node, str(domain or ""))
        return Link(
            target, None, None, line, text, role=role, explicit=explicit,
            module=module, scope=scope, specific=bool(node.get("refspecific")),
        )  # fmt: skip
    if name == "download_reference":
        target = str(node.get("reftarget") or "")
        file_part, anchor = _split_target(target)
        return Link(target, resolve_path(docdir, file_part), anchor, line, text, role="download", explicit=explicit)
    if isinstance(node, nodes.reference) and node.get("id_link") and node.get("refid"):
        # `[t](#name)` resolved by MyST to an id of this page: name it as written when it
        # was a heading slug (the id may be a generated one such as ``id2``).
        refid = str(node["refid"])
        anchor = (slug_of_id or {}).get(refid, refid)
        return Link(f"#{anchor}", None, anchor, line, text, role="local", local_id=refid)
    if isinstance(node, nodes.reference) and "refuri" in node and not node.get("internal"):
        uri = str(node["refuri"])
        if SCHEME.match(uri) or uri.startswith("//") or "external" in node.get("classes", ()):
            # `{.external}` makes MyST treat any destination as a URL, unchecked.
            return Link(uri, None, None, line, text, external=True)
        if uri.startswith("#"):
            return Link(uri, None, uri[1:] or None, line, text, role="local")
        if uri:
            file_part, anchor = _split_target(uri)
            return Link(uri, resolve_path(docdir, file_part), anchor, line, text)
    return None


def _context(node: nodes.Element, domain: str) -> tuple[str | None, str | None]:
    """The module and class (or namespace) a domain role stands in, as the domain's role recorded
    them on the node (``py:module``/``py:class``, ``js:module``/``js:object``, ``c:parent_key``…)."""
    if not domain:
        return None, None
    module = node.get("std:program") if domain == "std" else node.get(f"{domain}:module")
    scope = node.get(f"{domain}:class") or node.get(f"{domain}:object")
    return (str(module) if module else None), (str(scope) if scope else None)

def reference_line(node: nodes.Element, counter: LineCounter) -> int:
    """The line a reference is reported at: where Sphinx reports it, so check, build and
    ``sphinx-build`` agree. MyST gives a role's reference and a Markdown link alike the line of
    their paragraph (``[](#x)`` on a paragraph's third line is reported at its first), and so does
    every drift of it; an editor still finds the link itself, searching the paragraph from there
    (:meth:`mdmark.queries.navigation.navigator.Navigator.reference_spans`)."""
    probe: nodes.Node | None = node
    while probe is not None:
        if getattr(probe, "line", None):
            return int(getattr(probe, "line"))
        probe = probe.parent
    return counter.line(node)


def is_reference(node: nodes.Element) -> bool:
    name = type(node).__name__
    return name in ("pending_xref", "download_reference") or isinstance(node, nodes.reference)
