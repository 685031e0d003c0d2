"""Doctree → :class:`~mdmark.core.facts.DocFacts`: headings, anchors, links, images, plain text, term uses.

Runs on the doctree as MyST and sphinx-design leave it after reading, before post-transforms (which
would drop references to documents not read yet). Inline nodes carry their paragraph's line, so
exact lines come from counting the soft line breaks in the text before each node.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from docutils import nodes

from mdmark.core.facts import Heading, Image, Label, Link, Target, TextRun, TocEntry, Toctree, Warning

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

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


def _lined_block(node: nodes.Node) -> nodes.Node | None:
    """The nearest block-level node (itself or an ancestor) that carries a line number.

    Inline nodes (links, emphasis) carry their paragraph's line, so they never count as blocks.
    """
    probe: nodes.Node | None = node
    while probe is not None:
        if not _in_text(probe) and getattr(probe, "line", None):
            return probe
        probe = probe.parent
    return None


def _in_text(node: nodes.Node) -> bool:
    """Whether ``node`` flows inside a text block (and so carries that block's first line).

    An inline-class node standing on its own (an ``{image}`` directive in a grid item) is a block.
    """
    if isinstance(node, nodes.Text):
        return True
    return isinstance(node, nodes.Inline) and isinstance(node.parent, nodes.TextElement | nodes.Inline)


def _unlined_holder(node: nodes.Node, block: nodes.Node) -> nodes.Node | None:
    """The innermost non-inline element between ``node`` (inclusive) and its lined ``block``."""
    probe: nodes.Node | None = node
    while probe is not None and probe is not block:
        if not _in_text(probe):
            return probe
        probe = probe.parent
    return None


def _last_words_at(block: nodes.Node) -> tuple[str, int]:
    """The block's last words and how many soft line breaks precede them in the block."""
    newlines = 0
    found = ("", 0)
    for text in block.findall(nodes.Text):
        for i, part in enumerate(str(text).split("\n")):
            if part.strip():
                found = (part.strip()[-12:], newlines + i)
        newlines += str(text).count("\n")
    return found


def _first_words(block: nodes.Node) -> str:
    return _first_words_at(block)[0]


def _first_words_at(block: nodes.Node) -> tuple[str, int]:
    """The block's first words and how many soft line breaks precede them in the block (a
    paragraph may start with an image or a line break before its first words)."""
    newlines = 0
    for text in block.findall(nodes.Text):
        for i, part in enumerate(str(text).split("\n")):
            if part.strip():
                return part.strip()[:12], newlines + i
        newlines += str(text).count("\n")
    return "", 0


class LineCounter:
    """Exact source lines: the block's line, corrected against the source, + soft breaks before.

    MyST reports one line too many for content inside some nested sphinx-design items (a colon
    fence inside a colon fence: ``grid-item``, ``grid-item-card``, ``tab-item``). Rather than
    special-case the components, each block's line is checked against the source text: when its
    first words stand on the line above and not on the reported one, the block moves up one.
    """

    def __init__(self, source_lines: list[str]) -> None:
        self._source = source_lines
        self._offsets: dict[int, dict[int, int]] = {}
        self._base: dict[int, int] = {}

    def _block_offsets(self, block: nodes.Node) -> dict[int, int]:
        key = id(block)
        if key not in self._offsets:
            offsets: dict[int, int] = {}
            newlines = 0
            for node in block.findall(include_self=False):
                offsets[id(node)] = newlines
                if isinstance(node, nodes.Text):
                    newlines += str(node).count("\n")
            self._offsets[key] = offsets
        return self._offsets[key]

    def _has(self, line: int, words: str) -> bool:
        return 1 <= line <= len(self._source) and words in self._source[line - 1]

    def _block_line(self, block: nodes.Node) -> int:
        key = id(block)
        if key not in self._base:
            line = int(block.line or 1)
            words, skip = _first_words_at(block)
            last, last_skip = _last_words_at(block)

            def fits(base: int) -> bool:
                # Both ends of a multi-line block must stand where the base puts them: a first line
                # whose words recur on the next line cannot fool the check.
                return self._has(base + skip, words) and (not last or self._has(base + last_skip, last))

            if words and not fits(line):
                # One line up: the nested-fence off-by-one; a few down: a label (tab, card title)
                # whose own node has no line and borrows the enclosing component's.
                for candidate in (line - 1, line + 1, line + 2):
                    if fits(candidate):
                        line = candidate
                        break
            self._base[key] = line
        return self._base[key]

    def _holder_line(self, holder: nodes.Node, block: nodes.Node) -> int | None:
        """The line of an element that has no line of its own (a tab or dropdown label, a card's
        link), found by searching the source for its words from its lined ancestor onwards."""
        key = id(holder)
        if key not in self._base:
            words = _first_words(holder)
            start = max(1, int(block.line or 1) - 1)
            found = None
            if words:
                for candidate in range(start, len(self._source) + 1):
                    if self._has(candidate, words):
                        found = candidate
                        break
            self._base[key] = found if found is not None else -1
        value = self._base[key]
        return value if value > 0 else None

    def lines_of(self, entries: list[str], start: int) -> list[int]:
        """The lines of ``entries`` (a directive's content lines, in order) from line ``start`` on."""
        found: list[int] = []
        probe = max(1, start)
        for entry in entries:
            line = next((n for n in range(probe, len(self._source) + 1) if self._source[n - 1].strip() == entry), None)
            if line is None:
                found.append(start)
            else:
                found.append(line)
                probe = line + 1
        return found

    def line(self, node: nodes.Node) -> int:
        block = _lined_block(node)
        if block is None:
            return 1
        if block is node:
            return max(1, self._block_line(block))
        holder = _unlined_holder(node, block)
        if holder is not None:
            # The node sits in a structural element without a line (e.g. a tab label, whose
            # nearest lined ancestor is the whole tab-set): the ancestor's line is not its line.
            found = self._holder_line(holder, block)
            if found is not None:
                offset = 0 if holder is node else self._block_offsets(holder).get(id(node), 0)
                return found + offset
        offset = self._block_offsets(block).get(id(node), 0)
        return max(1, self._block_line(block) + offset)


def _split_target(target: str) -> tuple[str, str | None]:
    path, sep, anchor = target.partition("#")
    return path, (anchor if sep else None)


def _resolve(docdir: str, path: str) -> str:
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
            file_path = _resolve(docdir, file_part) if file_part else None
            return Link(target, file_path, anchor, line, text, role="myst", explicit=explicit, local_id=local)
        # std roles and {eq} (the math domain's) go by their name, other domains' as `py:class`.
        role = reftype if domain in (None, "", "std", "math") else f"{domain}:{reftype}"
        if domain == "math":
            role = "eq"  # {math:numref} is the math domain's, as {eq}: an equation's label, not {numref}'s
        if reftype == "doc" and domain == "std":
            # {doc} or a card with :link-type: doc — docnames without suffix, relative to the document.
            doc = _resolve(docdir, target)
            return Link(target, doc + ".md", None, line, text, role="doc", doc=doc, explicit=explicit)
        module, scope = _context(node, str(domain or ""))
        return Link(
            target, None, None, line, text, role=role, explicit=explicit,
            module=module, scope=scope, specific=bool(node.get("refspecific")),
        )  # fmt: skip
    if name == "download_reference":
        target = str(node.get("reftarget") or "")
        file_part, anchor = _split_target(target)
        return Link(target, _resolve(docdir, file_part), anchor, line, text, role="download", explicit=explicit)
    if isinstance(node, nodes.reference) and node.get("id_link") and node.get("refid"):
        # `[t](#name)` resolved by MyST to an id of this page: name it as written when it
        # was a heading slug (the id may be a generated one such as ``id2``).
        refid = str(node["refid"])
        anchor = (slug_of_id or {}).get(refid, refid)
        return Link(f"#{anchor}", None, anchor, line, text, role="local", local_id=refid)
    if isinstance(node, nodes.reference) and "refuri" in node and not node.get("internal"):
        uri = str(node["refuri"])
        if _SCHEME.match(uri) or uri.startswith("//") or "external" in node.get("classes", ()):
            # `{.external}` makes MyST treat any destination as a URL, unchecked.
            return Link(uri, None, None, line, text, external=True)
        if uri.startswith("#"):
            return Link(uri, None, uri[1:] or None, line, text, role="local")
        if uri:
            file_part, anchor = _split_target(uri)
            return Link(uri, _resolve(docdir, file_part), anchor, line, text)
    return None


def _context(node: nodes.Element, domain: str) -> tuple[str | None, str | None]:
    """The module and class (or namespace) a domain role stands in, as the domain's role recorded
    them on the node (``py:module``/``py:class``, ``js:module``/``js:object``, ``c:parent_key``…)."""
    if not domain:
        return None, None
    module = node.get("std:program") if domain == "std" else node.get(f"{domain}:module")
    scope = node.get(f"{domain}:class") or node.get(f"{domain}:object")
    return (str(module) if module else None), (str(scope) if scope else None)


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
    for node in _elements(doctree, elements):
        if not _is_reference(node):
            continue
        link = classify(node, docname, reference_line(node, counter), slug_of_id, source_of)
        if link is not None:
            yield link


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


def _is_reference(node: nodes.Element) -> bool:
    name = type(node).__name__
    return name in ("pending_xref", "download_reference") or isinstance(node, nodes.reference)


def _included(doctree: nodes.document, node: nodes.Node) -> bool:
    """Whether ``node`` came from an ``{include}``d file (its source is not the document's)."""
    own = doctree.get("source")
    source = getattr(node, "source", None)
    return bool(own and source and source != own)


#: What a build product may weigh to be embedded at reading (as the page embeds images).
MAX_PRODUCT_BYTES = 20 * 1024 * 1024


def embed_build_products(doctree: nodes.document, srcdir: Path, build_dir: Path, elements: list[nodes.Element] | None = None) -> None:
    """Images an extension wrote into the application's own build folder while reading (myst-nb's
    ``jupyter_execute/`` outputs of a notebook, glue) are build products, not the project's files:
    embedded here as ``data:`` URIs, while the file exists, instead of being refused as "outside the
    project root" later (the folder is a temporary one, gone once the worker ends)."""
    import base64

    from mdmark.util import door
    from mdmark.util.imagekind import image_mime

    try:
        root = build_dir.resolve()
    except OSError:
        return
    for node in _elements(doctree, elements):
        if not isinstance(node, nodes.image):
            continue
        uri = str(node.get("uri") or "")
        if not uri or _SCHEME.match(uri) or uri.startswith("//"):
            continue
        file = Path(os.path.normpath(srcdir / uri.lstrip("/")))
        try:
            file.resolve().relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        try:
            data = door.read(file, root, "画像", file.name, MAX_PRODUCT_BYTES)
        except door.Refused:
            continue
        mime = image_mime(data)
        if mime is None:
            continue
        node["uri"] = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        node["candidates"] = {"*": node["uri"]}
        node.attributes.pop("original_uri", None)


def _images(
    doctree: nodes.document, docname: str, counter: LineCounter, elements: list[nodes.Element] | None = None
) -> Iterator[Image]:
    docdir = posixpath.dirname(docname)
    found: list[tuple[int, int, Image]] = []
    for order, node in enumerate(_elements(doctree, elements)):
        if isinstance(node, nodes.image):
            uri = str(node.get("original_uri") or node.get("uri") or "")
            resolved = str(node.get("uri") or "")
            remote = bool(_SCHEME.match(uri)) or uri.startswith("//")
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
                remote = bool(_SCHEME.match(uri)) or uri.startswith("//")
                path = None if remote else _resolve(docdir, urllib.parse.unquote(uri.split("#", 1)[0].split("?", 1)[0]))
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
    for node in _elements(doctree, elements):
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
    every = _elements(doctree, elements)
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


def elements_of(doctree: nodes.document) -> list[nodes.Element]:
    """Every element of the tree (itself included), in document order, as ``findall`` gives them."""
    return list(doctree.findall(nodes.Element))


def _elements(doctree: nodes.document, elements: list[nodes.Element] | None) -> list[nodes.Element]:
    return elements if elements is not None else elements_of(doctree)


def highlight_warnings(doctree: nodes.document, source: str, elements: list[nodes.Element] | None = None) -> list[Warning]:
    """Sphinx's ``misc.highlighting_failure`` for code blocks whose language Pygments does not know
    (``sphinx.highlighting.PygmentsBridge.get_lexer``, which warns while writing the page — inside
    ``sphinx-build`` Sphinx says it itself; mdmark's pipeline, which writes no page, asks here)."""
    from sphinx.highlighting import lexer_classes

    found: list[Warning] = []
    for node in _elements(doctree, elements):
        if isinstance(node, nodes.literal):
            # Inline code with a language (``{l=…}`` of attrs_inline, the {code} role): Sphinx's
            # HTML writer highlights it when the node has the "code" class, and warns the same way.
            if "code" not in node.get("classes", ()):
                continue
        elif not isinstance(node, nodes.literal_block):
            continue
        lang = node.get("language")
        if not lang or lang == "default":
            continue
        lang = str(lang)
        if lang not in _SPHINX_LEXERS and lang not in lexer_classes and not _pygments_knows(lang):
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)  # Sphinx's location
            found.append(Warning(line, "misc.highlighting_failure", f"Pygments lexer name {lang!r} is not known"))
            continue
        # Sphinx lexes strictly first and warns when the code does not lex as its language
        # (``PygmentsBridge.highlight_block``): `!jupyter -h` in a Python cell, say.
        code = node.astext()
        error = None if node.get("force") else _lexing_error(code, lang)
        if error is not None:
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)
            found.append(
                Warning(
                    line,
                    "misc.highlighting_failure",
                    f'Lexing literal_block {code!r} as "{lang}" resulted in an error at token: {error!r}. Retrying in relaxed mode.',
                )
            )
    return found


def _lexing_error(code: str, lang: str) -> str | None:
    """The first token Pygments cannot lex ``code`` as ``lang`` with (as Sphinx's ``get_lexer``
    chooses the lexer), or None. A language an extension gave its own lexer is not asked."""
    from pygments.token import Error
    from pygments.util import ClassNotFound
    from sphinx.highlighting import lexer_classes, lexers

    if lang in ("py", "python", "py3", "python3"):
        lang = "pycon" if code.startswith(">>>") else "python"
    if lang == "pycon3":
        lang = "pycon"
    if lang in lexers or lang in ("none", "guess"):
        return None
    try:
        if lang in lexer_classes:
            lexer = lexer_classes[lang]()
        else:
            from pygments.lexers import get_lexer_by_name

            lexer = get_lexer_by_name(lang)
    except ClassNotFound:
        return None
    for token, value in lexer.get_tokens(code):
        if token is Error:
            return str(value)
    return None


#: The warning type of a formula that cannot be drawn (its message is check's sentence).
MATH_WARNING = "mdmark.math"


def math_warnings(doctree: nodes.document, source: str, elements: list[nodes.Element] | None = None) -> list[Warning]:
    """A warning for each formula (``$…$``, ``$$…$$``, ``{math}``) that the page cannot draw as
    written (:func:`mdmark.util.tex.math_problem`): said at reading, so check reports what export
    and build would show as TeX."""
    from mdmark.util.tex import math_message, math_problem

    found: list[Warning] = []
    for node in _elements(doctree, elements):
        if not isinstance(node, (nodes.math, nodes.math_block)):
            continue
        tex = node.astext()
        problem = math_problem(tex, isinstance(node, nodes.math_block))
        if problem is not None:
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)
            found.append(Warning(line, MATH_WARNING, math_message(tex, problem)))
    return found


@functools.cache
def _pygments_knows(lang: str) -> bool:
    """Whether Pygments has a lexer of that name (``get_lexer_by_name`` would make one). Its class is
    looked up, not made: making the first lexer of a class compiles all its rules, which a check
    never uses (by cProfile 0.3 s per worker process for the corpus's few languages, each worker
    again). Asked once per name and process (each question scans Pygments' table of every lexer);
    Sphinx too keeps the lexers it found for the life of its process."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        find_lexer_class_by_name(lang)
    except ClassNotFound:
        return False
    return True


#: Languages ``PygmentsBridge.get_lexer`` handles before asking Pygments.
_SPHINX_LEXERS = frozenset({"py", "python", "py3", "python3", "default", "pycon", "pycon3", "guess", "none"})


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
    every = _elements(doctree, elements)
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
