"""Doctree → :class:`~mdmark.core.facts.DocFacts`: headings, anchors, links, images, plain text, term uses.

Runs on the doctree as MyST and sphinx-design leave it after reading, before post-transforms (which
would drop references to documents not read yet). Exact lines come from :mod:`mdmark.pipeline.lines`,
the kind of each reference from :mod:`mdmark.pipeline.link_kinds`.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

from docutils import nodes

from mdmark.core.facts import Heading, Image, Label, Link, Target, TextRun, TocEntry, Toctree
from mdmark.pipeline.elements import given
from mdmark.pipeline.lines import LineCounter
from mdmark.pipeline.link_kinds import SCHEME, classify, is_reference, reference_line, resolve_path, source_paths

#: ``<img src=…>`` in raw HTML (without MyST's ``html_image`` it stays raw, yet it is an image of the page).
_RAW_IMG_SRC = re.compile(r"""<img\b[^>]*?\ssrc\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)

#: An HTML comment: a browser shows nothing inside one (templates in comments are not images).
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)

#: Nodes whose text is not prose: an occurrence of a title inside them does not count.
_NOT_PROSE: tuple[type[nodes.Node], ...] = (
    nodes.literal,
    nodes.literal_block,
    nodes.reference,
    nodes.math,
    nodes.math_block,
    nodes.raw,
    nodes.comment,
    nodes.substitution_definition,
    nodes.target,
    nodes.system_message,
    nodes.docinfo,
    nodes.field_list,
    nodes.footnote_reference,
    nodes.citation_reference,
    nodes.label,
)

def _is_prose_blocker(node: nodes.Node) -> bool:
    if isinstance(node, _NOT_PROSE):
        return True
    # pending_xref / download_reference come from sphinx.addnodes; match by name to stay cheap.
    return type(node).__name__ in {"pending_xref", "download_reference", "literal_emphasis", "literal_strong"}


def _links(
    doctree: nodes.document,
    docname: str,
    counter: LineCounter,
    slugs: dict[str, Any] | None = None,
    elements: list[nodes.Element] | None = None,
    source_of: Callable[[str], str] | None = None,
) -> Iterator[Link]:
    slug_of_id: dict[str, str] = {}
    for slug, value in (slugs or {}).items():
        if isinstance(value, list | tuple) and len(value) > 1:
            slug_of_id.setdefault(str(value[1]), slug)
    # Explicit labels (`(name)=`) whose id docutils rewrote (non-ASCII names become ``idN``).
    for name, ident in doctree.nameids.items():
        if ident and doctree.nametypes.get(name):
            slug_of_id.setdefault(str(ident), str(name))
    for node in given(doctree, elements):
        if not is_reference(node):
            continue
        link = classify(node, docname, reference_line(node, counter), slug_of_id, source_of)
        if link is not None:
            yield link
    # myst-nb's references to a key another notebook glued: resolved like a reference (its key must be there).
    from mdmark.host.notebook_glue import pending_glue

    for ref in pending_glue(given(doctree, elements)):
        role = "glue:text" if ref.gtype == "text" else "glue"
        path = source_of(ref.doc) if source_of is not None else None
        yield Link(f"{path or ref.doc}::{ref.key}", path, ref.key, reference_line(ref.node, counter), "", role=role, doc=ref.doc)



def _included(doctree: nodes.document, node: nodes.Node) -> bool:
    """Whether ``node`` came from an ``{include}``d file (its source is not the document's)."""
    own = doctree.get("source")
    source = getattr(node, "source", None)
    return bool(own and source and source != own)



def _images(
    doctree: nodes.document, docname: str, counter: LineCounter, elements: list[nodes.Element] | None = None
) -> Iterator[Image]:
    docdir = posixpath.dirname(docname)
    found: list[tuple[int, int, Image]] = []
    for order, node in enumerate(given(doctree, elements)):
        if isinstance(node, nodes.image):
            uri = str(node.get("original_uri") or node.get("uri") or "")
            resolved = str(node.get("uri") or "")
            remote = bool(SCHEME.match(uri)) or uri.startswith("//")
            image = Image(
                uri, None if remote else posixpath.normpath(resolved), counter.line(node), remote, _included(doctree, node)
            )
            found.append((image.line, order, image))
        elif isinstance(node, nodes.raw) and "html" in str(node.get("format", "")).split():
            # Comments blanked, newlines kept, so lines still count.
            text = _HTML_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), node.astext())
            first = counter.line(node)
            for match in _RAW_IMG_SRC.finditer(text):
                uri = match.group(1).strip("\"'")
                if not uri:
                    continue
                remote = bool(SCHEME.match(uri)) or uri.startswith("//")
                path = None if remote else resolve_path(docdir, urllib.parse.unquote(uri.split("#", 1)[0].split("?", 1)[0]))
                line = first + text.count("\n", 0, match.start())
                found.append((line, order, Image(uri, path, line, remote, _included(doctree, node))))
    # Document order: a raw block's images sit among the others by line.
    for _line, _order, image in sorted(found, key=lambda item: (item[0], item[1])):
        yield image


def _text(doctree: nodes.document, counter: LineCounter) -> list[TextRun]:
    runs: list[TextRun] = []

    def visit(node: nodes.Node) -> None:
        if _is_prose_blocker(node):
            return
        if isinstance(node, nodes.Text):
            first = counter.line(node)
            for i, part in enumerate(str(node).split("\n")):
                if part.strip():
                    runs.append(TextRun(first + i, part))
            return
        for child in node.children:
            visit(child)

    visit(doctree)
    return runs


def _headings(doctree: nodes.document, slugs: dict[str, Any], counter: LineCounter) -> list[Heading]:
    by_line = {int(v[0]): k for k, v in slugs.items()}
    found: list[Heading] = []

    def walk(node: nodes.Node, level: int) -> None:
        for child in node.children:
            if isinstance(child, nodes.section):
                title = child.next_node(nodes.title)
                line = counter.line(title) if title is not None else int(child.line or 1)
                found.append(
                    Heading(
                        level + 1,
                        title.astext() if title is not None else "",
                        line,
                        child.get("slug") or by_line.get(line),
                        tuple(child.get("ids", ())),
                        _included(doctree, title if title is not None else child),
                    )
                )
                walk(child, level + 1)
            elif isinstance(child, nodes.Element):
                walk(child, level)

    walk(doctree, 0)
    return found


def _json_value(value: Any) -> Any:
    """Front matter as JSON-compatible data (facts are cached as JSON); anything else as text."""
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return str(value)


_URL = re.compile(r"(?P<schema>.+)://.*")
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)
_GLOB = re.compile(r".*[*?\[].*")


def _docname_join(base: str, name: str) -> str:
    """Sphinx's ``docname_join``: a docname written in ``base``, relative to the source folder."""
    if name.startswith("/"):
        return posixpath.normpath(name.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), name))


def _toctrees(
    doctree: nodes.document,
    docname: str,
    counter: LineCounter,
    suffixes: tuple[str, ...],
    elements: list[nodes.Element] | None = None,
) -> list[Toctree]:
    """Every toctree with its entries as written (``mdmark_entries``, recorded by
    :class:`mdmark.host.toctree.RecordingTocTree`; else the entries Sphinx kept)."""
    found: list[Toctree] = []
    for node in given(doctree, elements):
        if type(node).__name__ != "toctree":
            continue
        line = counter.line(node)
        recorded = node.get("mdmark_entries")
        if recorded is None:
            recorded = [ref if title is None else f"{title} <{ref}>" for title, ref in node.get("entries", ())]
        written = list(zip(counter.lines_of(recorded, line), recorded, strict=True))
        entries: list[TocEntry] = []
        for entry_line, text in written:
            explicit = _EXPLICIT_TITLE.match(text)
            is_url = _URL.match(text) is not None
            if node.get("glob") and _GLOB.match(text) and not explicit and not is_url:
                entries.append(TocEntry(entry_line, text, "glob", _docname_join(docname, text)))
                continue
            title, ref = (explicit.group(1), explicit.group(2)) if explicit else (None, text)
            if is_url or ref == "self":
                entries.append(TocEntry(entry_line, text, "url" if is_url else "self", ref, title))
                continue
            target = ref
            for suffix in suffixes:
                if target.endswith(suffix):
                    target = target.removesuffix(suffix)
                    break
            entries.append(TocEntry(entry_line, text, "doc", _docname_join(docname, target), title))
        wrapper = node.parent
        names = wrapper.get("names", []) if wrapper is not None else []
        found.append(
            Toctree(
                line=line,
                entries=tuple(entries),
                caption=node.get("caption"),
                maxdepth=int(node.get("maxdepth", -1)),
                hidden=bool(node.get("hidden")),
                numbered=int(node.get("numbered") or 0),
                titlesonly=bool(node.get("titlesonly")),
                reversed=bool(node.get("mdmark_reversed")),
                name=node.get("mdmark_name") or (str(names[0]) if names else None),
            )
        )
    return found


def _targets(
    doctree: nodes.document, docname: str, env: Any, elements: list[nodes.Element] | None = None
) -> tuple[list[Label], list[Target], list[tuple[str, tuple[str, ...]]]]:
    """Labels, other targets and numbered things of the document, as Sphinx's domains recorded them
    while reading it (the std domain decides what a label's title is and what is numbered)."""
    std = env.get_domain("std")
    labels: list[Label] = []
    for name, explicit in doctree.nametypes.items():
        if not explicit:
            continue
        anon = std.anonlabels.get(name)
        if anon is None or anon[0] != docname:
            continue
        named = std.labels.get(name)
        title = str(named[2]) if named is not None and named[0] == docname else ""
        node = doctree.ids.get(str(anon[1]))
        figtype = std.get_enumerable_node_type(node) if node is not None else None
        labels.append(Label(str(name), str(anon[1]), title, figtype))
    targets: list[Target] = []
    every = given(doctree, elements)
    for node in every:
        if isinstance(node, nodes.term) and node.get("ids"):
            targets.append(Target("std", "term", node.astext(), str(node["ids"][0])))
    for node in every:
        if not isinstance(node, nodes.math_block):
            continue
        label = node.get("label")
        if label:
            number = node.get("number")
            # The id Sphinx gave the equation (``eqn:best`` → ``equation-eqn-best``): a link lands on it.
            ident = str(node["ids"][0]) if node.get("ids") else f"equation-{label}"
            targets.append(Target("math", "eq", str(label), ident, str(number) if number else None))
    # std objects other than labels, documents and terms (those are read above): envvar, confval,
    # program options, and what extensions add to the std domain.
    for (objtype, name), (owner, ident) in dict(getattr(std, "objects", {})).items():
        if owner == docname and objtype != "term":
            targets.append(Target("std", str(objtype), str(name), str(ident)))
    for (program, name), (owner, ident) in dict(getattr(std, "progoptions", {})).items():
        if owner == docname:
            targets.append(Target("std", "cmdoption", f"{program} {name}" if program else str(name), str(ident)))
    for domain in env.domains.values():
        if domain.name in ("std", "math", "citation", "changeset", "index"):
            continue
        for obj in domain.get_objects():
            if obj[3] == docname:
                targets.append(Target(domain.name, str(obj[2]), str(obj[0]), str(obj[4])))
    figures: list[tuple[str, tuple[str, ...]]] = []
    for node in every:
        if isinstance(node, nodes.section) or not node.get("ids"):
            continue
        if std.is_enumerable_node(node):
            figtype = std.get_enumerable_node_type(node)
            if figtype:
                figures.append((str(figtype), tuple(str(i) for i in node["ids"])))
    return labels, targets, figures



def extract(
    doctree: nodes.document,
    docname: str,
    metadata: dict[str, Any],
    source: str,
    env: Any = None,
    suffixes: tuple[str, ...] = (".md",),
    elements: list[nodes.Element] | None = None,
) -> dict[str, Any]:
    """The parsed parts of :class:`~mdmark.core.facts.DocFacts` (everything but path, sha, chars, warnings).

    ``env`` is the Sphinx environment that just read the document (for its labels and targets).
    ``elements``: the tree's elements in document order (:func:`elements_of`), when the caller has them.
    """
    # Walked once: each part used to walk the whole tree again (docutils' findall is a Python
    # generator per node), half of extraction's time.
    every = given(doctree, elements)
    counter = LineCounter(source.splitlines())
    slugs = dict(metadata.get("myst_slugs") or {})
    headings = _headings(doctree, slugs, counter)
    # A dict keeps the order and makes each lookup constant (a list made 32k headings take minutes).
    seen: dict[str, None] = dict.fromkeys(slugs)
    for node in every:
        for ident in (*node.get("ids", ()), *node.get("names", ())):
            seen.setdefault(ident, None)
    anchors = list(seen)
    clean_meta = {k: _json_value(v) for k, v in metadata.items() if k != "myst_slugs" and k != "wordcount"}
    first = headings[0] if headings else None
    labels, targets, figures = _targets(doctree, docname, env, every) if env is not None else ([], [], [])
    return {
        "labels": labels,
        "targets": targets,
        "figures": figures,
        "toctrees": _toctrees(doctree, docname, counter, suffixes, every),
        "title": first.title if first else None,
        "title_line": first.line if first else None,
        "headings": headings,
        "anchors": anchors,
        "links": list(_links(doctree, docname, counter, slugs, every, source_paths(env))),
        "images": list(_images(doctree, docname, counter, every)),
        "text": _text(doctree, counter),
        "metadata": clean_meta,
    }
