"""The doctree pass before a document is written: one ``visit_<node>`` method per node type mdmark
takes out of Sphinx's hands (MyST's ``render_<type>`` pattern), run before Sphinx's HTML
post-transforms and translator (:mod:`mdmark.html.render`):

* each cross-reference (``pending_xref``, a local ``refuri``, a download link) becomes a
  placeholder reference described by a :class:`~mdmark.core.facts.Link`, which the translator
  writes as :mod:`mdmark.html.placeholders` tokens; a reference written without text gets a
  text placeholder (the target's title goes there);
* a toctree becomes a toctree placeholder (its entries are resolved when the page is assembled);
* images become ``data:`` URIs; remote images and FontAwesome icons become warnings;
* raw HTML is cleaned (:mod:`mdmark.html.rawhtml`), version-change labels speak the page's
  language, and mermaid diagrams go to the bundled mermaid.
"""

from __future__ import annotations

import base64
import posixpath
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.core.diagnostics import missing_image_message
from mdmark.core.facts import Link
from mdmark.html import placeholders
from mdmark.html.rawhtml import dropped_message, handler_message, sanitize
from mdmark.util import door
from mdmark.util.files import Stamp, file_stamp

if TYPE_CHECKING:
    from docutils import nodes

#: Images larger than this are left out (a warning) rather than bloating the page.
MAX_IMAGE_BYTES = 20 * 1024 * 1024

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Note:
    """A warning found while rendering, without the file (added when shown)."""

    line: int | None
    message: str


class NotAnImage(Exception):
    """The file's content is not a PNG, JPEG, GIF, WebP or SVG image (see :mod:`mdmark.util.imagekind`)."""


def _data_uri(path: Path, data: bytes) -> str:
    """An image's bytes (read through the door) as a ``data:`` URI typed by its content;
    :class:`NotAnImage` when they are none."""
    from mdmark.util.imagekind import image_mime

    mime = image_mime(data)
    if mime is None:
        raise NotAnImage(str(path))
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def _image_size(data: bytes) -> tuple[int, int] | None:
    """An image's size from its header (the bytes were read through the door)."""
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as picture:
            width, height = picture.size
    except Exception:  # not an image Pillow knows, or a header it refuses: no size, as Sphinx gives none
        return None
    return int(width), int(height)


def _in_table_cell(node: nodes.Node) -> bool:
    from docutils import nodes

    probe = node.parent
    while probe is not None:
        if isinstance(probe, nodes.entry):
            return True
        probe = probe.parent
    return False


class DoctreePass:
    """Takes references, images, icons and raw HTML out of Sphinx's hands (see the module docstring)."""

    def __init__(
        self, tree: nodes.document, docname: str, srcdir: Path, source: str, root: Path, env: Any = None, lang: str = ""
    ) -> None:
        from mdmark.pipeline.lines import LineCounter
        from mdmark.pipeline.link_kinds import source_paths

        self.tree = tree
        self.docname = docname
        self.docdir = posixpath.dirname(docname)
        self.srcdir = srcdir
        self.root = root
        self.lines = LineCounter(source.splitlines())
        self.xrefs: list[Link] = []
        self.toctrees = 0
        self.notes: list[Note] = []
        self.deps: dict[str, Stamp] = {}
        self.source_of = source_paths(env)
        self.lang = lang
        #: The key of the fragment's placeholders (:func:`mdmark.html.placeholders.key_of`).
        self.key = placeholders.key_of(source)

    def line(self, node: nodes.Node) -> int:
        own = getattr(node, "line", None)
        if own and _in_table_cell(node):
            # MyST gives a cell's paragraph the line of another row, its inline nodes their own
            # row's: each row's image or link is said at its own line, not the table's first.
            return int(own)
        return int(self.lines.line(node))

    def note(self, node: nodes.Node | None, message: str) -> None:
        self.notes.append(Note(self.line(node) if node is not None else None, message))

    def _resolve(self, path: str) -> str:
        if path.startswith("/"):
            return posixpath.normpath(path.lstrip("/"))
        return posixpath.normpath(posixpath.join(self.docdir, path)) if self.docdir else posixpath.normpath(path)

    def _placeholder(self, node: nodes.Element, xref: Link, keep_text: bool) -> nodes.reference:
        from docutils import nodes

        number = len(self.xrefs)
        self.xrefs.append(xref)
        ref = nodes.reference("", "", internal=True, refuri=f"{placeholders.XREF_PREFIX}{number}")
        ref[placeholders.XREF_ATTRIBUTE] = number  # a link a document wrote with that href is no placeholder
        ref["classes"] = [c for c in node.get("classes", []) if not c.startswith("sd-button-ref-content-")]
        ref.source, ref.line = node.source, node.line
        if keep_text:
            # Move (not copy) the content: the pass still has to visit it (an image in a link).
            children = list(node.children)
            node.children = []
            ref.extend(children)
        else:
            mark = placeholders.token(placeholders.TEXT, number, self.key)
            inner = node.children[0] if len(node.children) == 1 and isinstance(node.children[0], nodes.Element) else None
            if inner is not None and not isinstance(inner, nodes.Text):
                copy = inner.copy()  # keeps the styling element (e.g. <span class="std std-ref">)
                copy.append(nodes.Text(mark))
                ref.append(copy)
            else:
                ref.append(nodes.Text(mark))
        return ref

    def paste_glue(self, glued: dict[str, dict[str, dict[str, str]]], config: Any) -> None:
        """myst-nb's references to another notebook's glued output replaced by it, as its
        post-transform does (:mod:`mdmark.host.notebook_glue`), from ``glued`` (by docname); one
        that finds nothing stays visible as written (its sentence is the reference's problem)."""
        from docutils import nodes

        from mdmark.host.notebook_glue import PendingGlue, mime_priority, pending_glue, replace_pending

        elements = list(self.tree.findall(nodes.Element))
        if next(pending_glue(elements), None) is None:
            return

        def unpasted(ref: PendingGlue) -> nodes.Element:
            written = f"{self.source_of(ref.doc)}::{ref.key}"
            marker = nodes.inline(written, written, classes=["mdmark-unresolved"])
            return marker if ref.inline else nodes.paragraph("", "", marker)

        replace_pending(elements, glued.get, mime_priority(config), unpasted)

    def run(self) -> None:
        """Each element (of the tree as it was when the pass began) to the ``visit_<type>`` method
        of its class, or of its nearest base class that has one; other elements stay as they are."""
        from docutils import nodes

        for node in list(self.tree.findall(nodes.Element)):
            for cls in type(node).__mro__:
                visit = getattr(self, f"visit_{cls.__name__}", None)
                if visit is not None:
                    visit(node)
                    break

    def visit_pending_xref(self, node: nodes.Element) -> None:
        self._xref(node)

    def visit_download_reference(self, node: nodes.Element) -> None:
        self._xref(node)

    def visit_toctree(self, node: nodes.Element) -> None:
        """Its entries are resolved when the page is assembled (:mod:`mdmark.html.links`)."""
        from docutils import nodes

        marker = nodes.raw("", placeholders.token(placeholders.TOCTREE, self.toctrees, self.key), format="html")
        self.toctrees += 1
        wrapper = node.parent
        if isinstance(wrapper, nodes.compound) and len(wrapper.children) == 1:
            wrapper.replace_self(marker)
        else:
            node.replace_self(marker)

    def visit_fontawesome(self, node: nodes.Element) -> None:
        icon = " ".join(node.get("classes", [])) or str(node.get("icon", ""))
        self.note(
            node,
            f"FontAwesome のアイコン `{icon}` は外のフォントを読み込まないと出せないので、"
            "`{octicon}` のアイコンに置き換えてください。",
        )
        node.parent.remove(node)

    def visit_mermaid(self, node: nodes.Element) -> None:
        """sphinxcontrib-mermaid's diagram: its source, drawn in the page by the bundled mermaid
        (:func:`mdmark.html.page.mermaid_scripts`), never by a script from the network."""
        import html as htmllib

        from docutils import nodes

        from mdmark.html.page import MERMAID_MARK

        if "code" in node:
            markup = f"{MERMAID_MARK}{htmllib.escape(str(node['code']))}</pre>\n"
            node.replace_self(nodes.raw("", markup, format="html"))

    def visit_versionmodified(self, node: nodes.Element) -> None:
        """The label of ``versionadded`` and friends in the page's language (Sphinx wrote it in the
        language the application reads in)."""
        from docutils import nodes

        from mdmark.html.labels import VERSION_CHANGES, translated

        message = VERSION_CHANGES.get(str(node.get("type", "")))
        label = next((n for n in node.findall(nodes.inline) if "versionmodified" in n.get("classes", ())), None)
        if message is None or label is None or len(label.children) != 1 or not isinstance(label[0], nodes.Text):
            return
        ending = ": " if label.astext().endswith(": ") else "."
        try:
            text = translated(self.lang, message) % node.get("version", "")
        except (TypeError, ValueError):  # a catalog entry without its %s: Sphinx's own words stay
            return
        label.children = []
        label.append(nodes.Text(text + ending))

    def visit_raw(self, node: nodes.Element) -> None:
        from docutils import nodes

        if "html" not in str(node.get("format", "")).split():
            return

        def image(value: str) -> str | None:
            if _SCHEME.match(value) or value.startswith("//"):
                self.note(node, f"HTML の中の `{value}` は外へ読みに行くため外したので、ファイルを保存して文書からの相対パスで指してください。")
                return None
            path = value.split("#", 1)[0].split("?", 1)[0]
            rel = self._resolve(urllib.parse.unquote(path))
            file = self.srcdir / rel
            self.deps[rel] = file_stamp(file)
            try:
                return _data_uri(file, door.read(file, self.root, "HTML の中の", value, MAX_IMAGE_BYTES))
            except door.Refused as refused:
                # A missing image: the sentence check gives too (with a close name as the fix).
                self.note(node, missing_image_message(value, file) if refused.reason == "missing" else refused.message)
                return None
            except NotAnImage:
                from mdmark.util.imagekind import not_an_image_message

                self.note(node, not_an_image_message("HTML の中の", value))
                return None

        text = node.astext()
        cleaned, dropped, handlers = sanitize(text, image)
        for tag in dropped:
            self.note(node, dropped_message(tag))
        for attribute in handlers:
            self.note(node, handler_message(attribute))
        if cleaned != text:
            node.children = [nodes.Text(cleaned)]

    def _xref(self, node: nodes.Element) -> None:
        from docutils import nodes

        from mdmark.pipeline.link_kinds import classify, reference_line

        link = classify(node, self.docname, reference_line(node, self.lines), source_of=self.source_of)
        if link is None:
            return
        if link.role == "eq":
            # {eq}`label` shows the equation's number, filled in when assembling.
            node.children = [nodes.Text("")]
        # A card's stretched link keeps its (hidden) text; other references without text of their
        # own get the target's title (a {numref} its number, even with a format of its own).
        keep = (link.explicit and link.role not in ("numref", "eq")) or link.role == "term"
        keep = keep or "sd-stretched-link" in node.get("classes", [])
        # A domain role's content is already what Sphinx shows (``~pkg.Thing`` → ``Thing``).
        keep = keep or ":" in link.role
        node.replace_self(self._placeholder(node, link, keep_text=keep))

    def visit_reference(self, node: nodes.Element) -> None:
        if "refuri" not in node or node.parent is None:
            return
        uri = str(node["refuri"])
        if not uri or placeholders.XREF_ATTRIBUTE in node or _SCHEME.match(uri) or uri.startswith("//"):
            return
        if "external" in node.get("classes", ()) and not uri.startswith("#"):
            return
        # An in-page ``#name`` too (rST's `` `text <#name>`__ ``): the resolver says whether the
        # name is there, so a link to nothing is text, never a dead href.
        self._xref(node)

    def visit_image(self, node: nodes.Element) -> None:
        uri = str(node.get("uri") or "")
        written = str(node.get("original_uri") or uri)
        alt = str(node.get("alt") or "")
        if uri.startswith("data:"):
            return
        if _SCHEME.match(uri) or uri.startswith("//"):
            self.note(
                node,
                f"外の画像 `{written}` は読み込まないので、画像を保存して文書からの相対パスで指してください。",
            )
            self._drop_image(node, alt or written)
            return
        file = self.srcdir / uri
        self.deps[uri] = file_stamp(file)
        try:
            data = door.read(file, self.root, "画像", written, MAX_IMAGE_BYTES)
        except door.Refused as refused:
            if refused.reason == "missing":
                message = missing_image_message(written, file)
            else:
                message = refused.message
            self.note(node, message)
            self._drop_image(node, alt or written)
            return
        if "scale" in node and not ("width" in node and "height" in node):
            dims = _image_size(data)
            if dims is not None:
                node.setdefault("width", str(dims[0]))
                node.setdefault("height", str(dims[1]))
        try:
            data_uri = _data_uri(file, data)
        except NotAnImage:
            from mdmark.util.imagekind import not_an_image_message

            self.note(node, not_an_image_message("画像", written))
            self._drop_image(node, alt or written)
            return
        # The translator falls back to the uri for a missing alt text: not a data: URI.
        node.setdefault("alt", alt or written)
        node["uri"] = data_uri
        node["candidates"] = {"*": data_uri}
        del_keys = [k for k in ("original_uri",) if k in node]
        for key in del_keys:
            del node[key]

    def _drop_image(self, node: nodes.Element, text: str) -> None:
        from docutils import nodes

        stand_in = nodes.inline("", text, classes=["mdmark-missing-image"])
        parent = node.parent
        # A link around the image (a badge, a launch button, an avatar) keeps its <a>, as Sphinx
        # shows it: only the picture is left out.
        if isinstance(parent, nodes.TextElement) or isinstance(parent, nodes.Inline):
            node.replace_self(stand_in)
        else:
            node.replace_self(nodes.paragraph("", "", stand_in))


