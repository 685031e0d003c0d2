"""One document's doctree → an HTML fragment that does not depend on any other document.

The fragment is the body the Sphinx HTML translator writes for the document, after mdmark has
taken every reference out of Sphinx's hands (post-transforms lose targets that were not read and
``singlehtml`` lands anchors in the wrong document):

* each cross-reference (``pending_xref``, a local ``refuri``, a download link) becomes an
  ``<a href="mdmark:xref:N">`` placeholder described by :class:`Xref`; :mod:`mdmark.html.links`
  fills it in for export (the sibling ``.html``) or build (an in-page anchor), and says which
  ones are broken;
* images become ``data:`` URIs, remote images and FontAwesome icons become warnings, math
  becomes MathML, and raw HTML loses any attribute that would load something from the network.

Because nothing in the fragment depends on other documents, fragments are cached by the
document's content hash: a rebuild with one document changed renders one document.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import posixpath
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.contentcache import ContentCache
from mdmark.core.diagnostics import missing_image_message
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts, Link
from mdmark.util import door
from mdmark.pipeline.pipeline import Pipeline, docname_of
from mdmark.html.rawhtml import dropped_message, handler_message, sanitize
from mdmark.util.tex import ams_inside, tex_problem
from mdmark.host.session import SPHINX_LOCK
from mdmark.host.accessors import prepare_writing, reading_as
from mdmark.pipeline.limits import Failed, limit_message
from mdmark.pipeline.tasks import register
from mdmark.util.capture import project_output
from mdmark.util.files import Stamp, file_stamp, stamp_from_json

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

#: Bump when the fragment format changes so cached fragments are not reused.
RENDER_VERSION = "15"

#: Placeholder href of a cross-reference; the number indexes :attr:`Fragment.xrefs`.
XREF_PREFIX = "mdmark:xref:"
#: Where a toctree goes (its number follows): filled in when the page is assembled.
TOCTREE_MARK = "<!--mdmark:toctree:"
#: Placeholder text of a reference written without text (the target's title goes there).
TEXT_MARK_OPEN = "\ue000"
TEXT_MARK_CLOSE = "\ue001"

#: Images larger than this are left out (a warning) rather than bloating the page.
MAX_IMAGE_BYTES = 20 * 1024 * 1024

_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Note:
    """A warning found while rendering, without the file (added when shown)."""

    line: int | None
    message: str


@dataclass
class Fragment:
    docname: str
    html: str
    #: The references, in the order of their placeholders (see :func:`mdmark.pipeline.extract.classify`).
    xrefs: list[Link] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    #: Files inlined into the fragment (images): path relative to the source folder, size and
    #: mtime (-1, -1 when missing). A cached fragment is stale when one of them changed.
    deps: list[tuple[str, Stamp]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """As :func:`dataclasses.asdict` (faster: every fragment goes to the cache and back from a worker)."""
        return {
            "docname": self.docname,
            "html": self.html,
            "xrefs": [dict(vars(x)) for x in self.xrefs],
            "notes": [dict(vars(n)) for n in self.notes],
            "deps": list(self.deps),
        }

    def fresh(self, srcdir: Path) -> bool:
        return all(file_stamp(srcdir / rel) == stamp for rel, stamp in self.deps)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Fragment:
        return cls(
            docname=data["docname"],
            html=data["html"],
            xrefs=[Link(**x) for x in data["xrefs"]],
            notes=[Note(**n) for n in data["notes"]],
            deps=[(str(rel), stamp_from_json(stamp)) for rel, stamp in data.get("deps", [])],
        )



def label_language(lang: str) -> str:
    """What of a page language its fixed labels depend on (:func:`~mdmark.html.labels.catalog_language`)."""
    from mdmark.html.labels import catalog_language

    return catalog_language(lang)


# -- the translator ------------------------------------------------------------------------------

def _translator_class(app: Sphinx) -> type[Any]:
    """A subclass of the app's HTML translator that writes math as MathML (no MathJax, no network)."""
    base: Any = app.registry.get_translator_class(app.builder)
    return _translator_over(base)


@functools.cache
def _translator_over(base: Any) -> type[Any]:
    """mdmark's translator on top of ``base`` (one class per base class)."""
    from docutils import nodes

    class MdmarkTranslator(base):  # type: ignore[misc]
        #: The page's language (its fixed labels); set by :func:`_render`.
        mdmark_lang = ""

        def _mathml(self, node: nodes.Element, block: bool) -> None:
            from docutils.utils.math.latex2mathml import tex2mathml

            tex = node.astext()
            markup = None
            # A formula that cannot be drawn is shown as its TeX; the document's facts say why
            # (mdmark.pipeline.extract.math_warnings: check's drift, the same sentence here).
            if tex_problem(tex) is None:
                try:
                    markup = tex2mathml(ams_inside(tex) if block else tex, as_block=block)
                except Exception:  # latex2mathml raises SyntaxError and friends on TeX it does not know
                    markup = None
            if block:
                self.body.append(self.starttag(node, "div", CLASS="math mdmark-math"))
                if node.get("number"):
                    # The equation number that {eq} references show (links.EQUATION reads it back).
                    self.body.append(f'<span class="eqno">({node["number"]})</span>')
                self.body.append(markup if markup is not None else f"<pre>{self.encode(tex)}</pre>")
                self.body.append("</div>\n")
            else:
                self.body.append(
                    markup if markup is not None else f'<code class="mdmark-math">{self.encode(tex)}</code>'
                )
            raise nodes.SkipNode

        def visit_admonition(self, node: nodes.Element, name: str = "") -> None:
            from mdmark.html.labels import ADMONITIONS, translated

            message = ADMONITIONS.get(name)
            if message is None:
                super().visit_admonition(node, name)
                return
            # The application reads in its own language; the page's language names the admonitions.
            attributes = {}
            tag_name = "div"
            if collapsible := node.get("collapsible"):
                tag_name = "details"
                if collapsible == "open":
                    attributes["open"] = "open"
            self.body.append(self.starttag(node, tag_name, CLASS=f"admonition {name}", **attributes))
            self.context.append(f"</{tag_name}>\n")
            node.insert(0, nodes.title(name, translated(self.mdmark_lang, message)))

        def add_permalink_ref(self, node: nodes.Element, title: str) -> None:
            from mdmark.html.labels import permalink_title

            # ``title`` is the English message id when the application reads in English.
            super().add_permalink_ref(node, permalink_title(self.mdmark_lang, str(title)))

        def visit_math(self, node: nodes.Element, math_env: str = "") -> None:
            self._mathml(node, block=False)

        def visit_math_block(self, node: nodes.Element, math_env: str = "") -> None:
            self._mathml(node, block=True)

        def visit_displaymath(self, node: nodes.Element) -> None:
            self._mathml(node, block=True)

    return MdmarkTranslator


def _create_translator(app: Sphinx, tree: nodes.document) -> Any:
    """Like ``builder.create_translator``, keeping mdmark's own visitors over registered ones."""
    from types import MethodType

    cls = _translator_class(app)
    translator = cls(tree, app.builder)
    handlers = app.registry.translation_handlers.get(app.builder.name) or app.registry.translation_handlers.get(
        app.builder.format, {}
    )
    for name, (visit, depart) in handlers.items():
        if f"visit_{name}" in cls.__dict__:
            continue
        setattr(translator, f"visit_{name}", MethodType(visit, translator))
        if depart:
            setattr(translator, f"depart_{name}", MethodType(depart, translator))
    return translator


# -- the doctree pass ------------------------------------------------------------------------------


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


class _Pass:
    """Takes references, images, icons and raw HTML out of Sphinx's hands (see the module docstring)."""

    def __init__(
        self, tree: nodes.document, docname: str, srcdir: Path, source: str, root: Path, env: Any = None, lang: str = ""
    ) -> None:
        from mdmark.pipeline.extract import LineCounter, source_paths

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
        ref = nodes.reference("", "", internal=True, refuri=f"{XREF_PREFIX}{number}")
        ref["classes"] = [c for c in node.get("classes", []) if not c.startswith("sd-button-ref-content-")]
        ref.source, ref.line = node.source, node.line
        if keep_text:
            # Move (not copy) the content: the pass still has to visit it (an image in a link).
            children = list(node.children)
            node.children = []
            ref.extend(children)
        else:
            mark = f"{TEXT_MARK_OPEN}{number}{TEXT_MARK_CLOSE}"
            inner = node.children[0] if len(node.children) == 1 and isinstance(node.children[0], nodes.Element) else None
            if inner is not None and not isinstance(inner, nodes.Text):
                copy = inner.copy()  # keeps the styling element (e.g. <span class="std std-ref">)
                copy.append(nodes.Text(mark))
                ref.append(copy)
            else:
                ref.append(nodes.Text(mark))
        return ref

    def run(self) -> None:
        from docutils import nodes

        for node in list(self.tree.findall(nodes.Element)):
            name = type(node).__name__
            if name == "pending_xref":
                self._xref(node)
            elif name == "download_reference":
                self._xref(node)
            elif name == "toctree":
                # Its entries are resolved when the page is assembled (mdmark.html.links).
                marker = nodes.raw("", f"{TOCTREE_MARK}{self.toctrees}-->", format="html")
                self.toctrees += 1
                wrapper = node.parent
                if isinstance(wrapper, nodes.compound) and len(wrapper.children) == 1:
                    wrapper.replace_self(marker)
                else:
                    node.replace_self(marker)
            elif isinstance(node, nodes.reference) and "refuri" in node and node.parent is not None:
                self._reference(node)
            elif isinstance(node, nodes.image):
                self._image(node)
            elif name == "fontawesome":
                icon = " ".join(node.get("classes", [])) or str(node.get("icon", ""))
                self.note(
                    node,
                    f"FontAwesome のアイコン `{icon}` は外のフォントを読み込まないと出せないので、"
                    "`{octicon}` のアイコンに置き換えてください。",
                )
                node.parent.remove(node)
            elif isinstance(node, nodes.raw) and "html" in str(node.get("format", "")).split():
                self._raw(node)
            elif name == "versionmodified":
                self._version_label(node)
            elif name == "mermaid" and "code" in node:
                # sphinxcontrib-mermaid's diagram: its source, drawn in the page by the bundled
                # mermaid (mdmark.html.page.mermaid_scripts), never by a script from the network.
                import html as htmllib

                from mdmark.html.page import MERMAID_MARK

                markup = f"{MERMAID_MARK}{htmllib.escape(str(node['code']))}</pre>\n"
                node.replace_self(nodes.raw("", markup, format="html"))

    def _version_label(self, node: nodes.Element) -> None:
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

    def _raw(self, node: nodes.Element) -> None:
        from docutils import nodes

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

        from mdmark.pipeline.extract import classify, reference_line

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

    def _reference(self, node: nodes.Element) -> None:
        uri = str(node["refuri"])
        if not uri or uri.startswith(XREF_PREFIX) or _SCHEME.match(uri) or uri.startswith("//"):
            return
        if "external" in node.get("classes", ()) and not uri.startswith("#"):
            return
        # An in-page ``#name`` too (rST's `` `text <#name>`__ ``): the resolver says whether the
        # name is there, so a link to nothing is text, never a dead href.
        self._xref(node)

    def _image(self, node: nodes.Element) -> None:
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


# -- rendering -------------------------------------------------------------------------------------


def render_key(sha: str, lang: str) -> str:
    return hashlib.sha256(f"{RENDER_VERSION}\0{label_language(lang)}\0{sha}".encode()).hexdigest()


def fragment_cache(pipeline: Pipeline) -> ContentCache[Fragment]:
    """The HTML fragments of the pipeline's documents, by :func:`render_key` (one per document in memory)."""
    return pipeline.content_cache("html", _fragments)


def _fragments(root: Path | None) -> ContentCache[Fragment]:
    # Authenticated like every entry: a fragment is pasted into pages as is.
    return ContentCache(root, ".html.json", _encode_fragment, _decode_fragment, sub="html", slot_of=lambda f: f.docname)


def _encode_fragment(fragment: Fragment) -> bytes:
    return json.dumps(fragment.to_json(), ensure_ascii=False).encode("utf-8")


def _decode_fragment(data: bytes) -> Fragment:
    return Fragment.from_json(json.loads(data.decode("utf-8")))


def render_document(pipeline: Pipeline, path: Path, facts: DocFacts, lang: str) -> Fragment:
    """The fragment of one document (``facts``: its facts), from the cache when it can be, else
    rendered by the worker task ``render`` (:func:`_render_task`), which caches it on disk too."""
    cache, _, hit = _cached(pipeline, facts, lang)
    if hit is not None:
        return hit
    outcome: tuple[DocFacts, Fragment | None] | Failed = pipeline.run("render", [(str(path), lang)])[0]
    if isinstance(outcome, Failed):
        raise MdmarkError(limit_message(pipeline.relpath(path), outcome))
    done, fragment_or_none = outcome
    if fragment_or_none is None:
        raise MdmarkError(done.error or limit_message(pipeline.relpath(path), Failed("error")))
    pipeline.adopt(done)
    cache.remember(render_key(done.sha, lang), fragment_or_none)
    return fragment_or_none


def _rendered(pipeline: Pipeline, path: Path, facts: DocFacts, lang: str) -> Fragment:
    """The worker's side of :func:`render_document`: the fragment from the cache, else rendered here and cached."""
    cache, key, hit = _cached(pipeline, facts, lang)
    if hit is not None:
        return hit
    fragment = _render(pipeline, path, lang)
    # The files the document pulled in make the fragment stale too.
    fragment.deps = sorted({*fragment.deps, *facts.deps})
    cache.put(key, fragment)
    return fragment


def _cached(pipeline: Pipeline, facts: DocFacts, lang: str) -> tuple[ContentCache[Fragment], str, Fragment | None]:
    """The fragment cache, the key of the document's fragment, and the fragment when it is cached and fresh."""
    cache = fragment_cache(pipeline)
    key = render_key(facts.sha, lang)
    hit = cache.get(key)
    return cache, key, hit if hit is not None and hit.fresh(pipeline.srcdir) else None


def _render(pipeline: Pipeline, path: Path, lang: str) -> Fragment:
    docname = docname_of(pipeline.relpath(path))
    # The tree first, outside the warnings the render collects: when it has to be parsed again, its
    # parse warnings are the document's own (its facts report them), not the render's.
    with SPHINX_LOCK:
        tree, source = pipeline.doctree_and_text(path)
        with pipeline.collect_warnings() as sphinx_warnings, project_output():
            app = pipeline.app
            prepare_writing(app)
            work = _Pass(tree, docname, pipeline.srcdir, source, pipeline.project_root, app.env, lang)
            work.run()
            _post_transforms(app, tree, docname)
            builder: Any = app.builder
            tree.settings = builder.docsettings
            builder.current_docname = docname
            builder.secnumbers = {}
            builder.fignumbers = {}
            builder.imgpath = "_images"
            builder.dlpath = "_downloads"
            translator = _create_translator(app, tree)
            translator.mdmark_notes = work.notes
            translator.mdmark_lang = lang
            tree.walkabout(translator)
            html = "".join(translator.fragment)
    from mdmark.host.warnings_ja import warning_sentence

    notes = work.notes + [
        Note(w.line, warning_sentence(w.message, w.type))
        for w in sphinx_warnings
        if w.type != "misc.highlighting_failure"  # the document's facts report it (check's sentence)
    ]
    notes.sort(key=lambda n: n.line or 0)
    deps = sorted(work.deps.items())
    return Fragment(docname, html, work.xrefs, notes, deps)


# -- parallel rendering (cold builds) ---------------------------------------------------------------

def _render_task(pipeline: Pipeline, job: tuple[str, str]) -> tuple[DocFacts, Fragment | None]:
    """Parse and render one document in a worker process (both land in the shared disk cache).

    The objects travel back pickled, which rebuilds them in C: from JSON they would cost the
    parent a Python call per record while the workers still need the cores."""
    path_text, lang = job
    path = Path(path_text)
    # The doctree goes straight to the renderer and the HTML is cached: caching the tree too would
    # cost a pickle and a file per document for a re-render that rarely comes (another language).
    facts = pipeline.facts_many([path], keep_trees=False)[0]
    if facts.error is not None:
        return facts, None
    return facts, _rendered(pipeline, path, facts, lang)


register("render", _render_task)


def render_parallel(
    pipeline: Pipeline,
    paths: list[Path],
    lang: str,
    done: Callable[[int], None] | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> None:
    """Parse and render many documents in worker processes (one per core), filling the parse and
    fragment caches, and keeping their facts and fragments in this process's memory. ``meanwhile``:
    see :meth:`mdmark.pipeline.pool.Pool.run`.

    Each worker reads and renders with its own Sphinx application, so a cold build uses every core
    for the whole of the work, not only for the parse.
    """
    cache = fragment_cache(pipeline)
    jobs = [(str(p), lang) for p in paths]

    def rendered(_n: int, outcome: tuple[DocFacts, Fragment | None] | Failed) -> None:
        # A document that failed is parsed again by the build's next step, which says why.
        if not isinstance(outcome, Failed) and outcome[1] is not None:
            pipeline.adopt(outcome[0])  # the build's reference model needs every document's facts next
            cache.remember(render_key(outcome[0].sha, lang), outcome[1])
        if done:
            done(1)

    pipeline.run("render", jobs, meanwhile, rendered)


def _post_transforms(app: Sphinx, tree: nodes.document, docname: str) -> None:
    """sphinx-design's HTML post-transforms (tabs, dropdowns…) and Sphinx's code ones.

    Reference resolvers have nothing left to do (every pending_xref is gone); image downloaders
    and converters are skipped so nothing is ever fetched.
    """
    from sphinx.transforms import SphinxTransformer
    from sphinx.util.docutils import LoggingReporter

    env: Any = app.env
    from sphinx.transforms.post_transforms import ReferencesResolver
    from sphinx.transforms.post_transforms.images import BaseImageConverter

    # Images are data: URIs already; converters and downloaders (any extension's) would fetch or
    # run programs.
    skip = (ReferencesResolver, BaseImageConverter)
    transforms = [t for t in app.registry.get_post_transforms() if not issubclass(t, skip)]
    with reading_as(env, docname):
        if tree.reporter is None:
            tree.reporter = LoggingReporter(docname)
        transformer = SphinxTransformer(tree)
        transformer.set_environment(env)
        transformer.add_transforms(transforms)
        transformer.apply_transforms()
