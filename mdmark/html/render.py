"""One document's doctree → an HTML fragment that does not depend on any other document.

The fragment is the body the Sphinx HTML translator writes for the document, after mdmark has
taken every reference out of Sphinx's hands (post-transforms lose targets that were not read and
``singlehtml`` lands anchors in the wrong document). Two visitors, one method per node type, do it:

* :mod:`mdmark.html.doctree` changes the tree before Sphinx's post-transforms: references and
  toctrees become placeholders, images ``data:`` URIs, raw HTML is cleaned;
* :mod:`mdmark.html.translator` writes it: placeholders as :mod:`mdmark.html.placeholders`
  tokens, math as MathML, and each section title's markup kept for the navigation.

:mod:`mdmark.html.links` fills the placeholders in for export (the sibling ``.html``) or build (an
in-page anchor), and says which references are broken. Because nothing in the fragment depends on
other documents, fragments are cached by the document's content hash: a rebuild with one document
changed renders one document.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.pipeline.contentcache import ContentCache
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts, Link
from mdmark.html.doctree import MAX_IMAGE_BYTES as MAX_IMAGE_BYTES, DoctreePass, Note
from mdmark.references.resolve import GLUE_ROLES
from mdmark.pipeline.pipeline import Pipeline, docname_of
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
RENDER_VERSION = "18"


@dataclass
class Fragment:
    docname: str
    html: str
    #: The references, in the order of their placeholders (see :func:`mdmark.pipeline.link_kinds.classify`).
    xrefs: list[Link] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    #: Files inlined into the fragment (images): path relative to the source folder, size and
    #: mtime (-1, -1 when missing). A cached fragment is stale when one of them changed.
    deps: list[tuple[str, Stamp]] = field(default_factory=list)
    #: Each reference's link start tag around its href, by reference number: (the attributes
    #: before the href, those after), as the translator wrote them.
    tags: dict[int, tuple[str, str]] = field(default_factory=dict)
    #: Each section title's inner HTML as written (placeholders included), by the section's id:
    #: what the navigation and toctrees show of it (:func:`mdmark.html.nav.title_markup`).
    headings: dict[str, str] = field(default_factory=dict)
    #: The key of its placeholders (:func:`mdmark.html.placeholders.key_of`).
    key: str = ""

    def to_json(self) -> dict[str, Any]:
        """As :func:`dataclasses.asdict` (faster: every fragment goes to the cache and back from a worker)."""
        return {
            "docname": self.docname,
            "html": self.html,
            "xrefs": [dict(vars(x)) for x in self.xrefs],
            "notes": [dict(vars(n)) for n in self.notes],
            "deps": list(self.deps),
            "tags": [[n, *tag] for n, tag in self.tags.items()],
            "headings": self.headings,
            "key": self.key,
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
            tags={int(n): (str(before), str(after)) for n, before, after in data["tags"]},
            headings=dict(data["headings"]),
            key=str(data["key"]),
        )


def label_language(lang: str) -> str:
    """What of a page language its fixed labels depend on (:func:`~mdmark.html.labels.catalog_language`)."""
    from mdmark.html.labels import catalog_language

    return catalog_language(lang)


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
    glued, glue_deps = _glued(pipeline, facts)
    fragment = _render(pipeline, path, lang, glued)
    # The files the document pulled in (and the notebooks it pastes from) make the fragment stale too.
    fragment.deps = sorted({*fragment.deps, *facts.deps, *glue_deps})
    cache.put(key, fragment)
    return fragment


def _cached(pipeline: Pipeline, facts: DocFacts, lang: str) -> tuple[ContentCache[Fragment], str, Fragment | None]:
    """The fragment cache, the key of the document's fragment, and the fragment when it is cached and fresh."""
    cache = fragment_cache(pipeline)
    key = render_key(facts.sha, lang)
    hit = cache.get(key)
    return cache, key, hit if hit is not None and hit.fresh(pipeline.srcdir) else None


def _glued(pipeline: Pipeline, facts: DocFacts) -> tuple[dict[str, dict[str, dict[str, str]]], list[tuple[str, Stamp]]]:
    """What the notebooks the document pastes from (myst-nb's ``{glue}`doc::key```) glued, by
    docname, as their reading left it (their facts: read now if they were not), and their files."""
    wanted = {link.doc: link.path for link in facts.links if link.role in GLUE_ROLES and link.doc and link.path}
    glued: dict[str, dict[str, dict[str, str]]] = {}
    deps: list[tuple[str, Stamp]] = []
    for doc, rel in sorted(wanted.items()):
        source = pipeline.srcdir / rel
        other = pipeline.facts_many([source])[0] if source.is_file() else None
        if other is not None and other.error is None:
            glued[doc] = other.glue
        deps.append((rel, file_stamp(source)))
    return glued, deps


def _render(pipeline: Pipeline, path: Path, lang: str, glued: dict[str, dict[str, dict[str, str]]] | None = None) -> Fragment:
    from mdmark.html.translator import create_translator

    docname = docname_of(pipeline.relpath(path))
    # The tree first, outside the warnings the render collects: when it has to be parsed again, its
    # parse warnings are the document's own (its facts report them), not the render's.
    with SPHINX_LOCK:
        tree, source = pipeline.doctree_and_text(path)
        with pipeline.collect_warnings() as sphinx_warnings, project_output():
            app = pipeline.app
            prepare_writing(app)
            work = DoctreePass(tree, docname, pipeline.srcdir, source, pipeline.project_root, app.env, lang)
            work.paste_glue(glued or {}, app.config)
            work.run()
            _post_transforms(app, tree, docname)
            builder: Any = app.builder
            tree.settings = builder.docsettings
            builder.current_docname = docname
            builder.secnumbers = {}
            builder.fignumbers = {}
            builder.imgpath = "_images"
            builder.dlpath = "_downloads"
            translator = create_translator(app, tree, lang, work.key)
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
    return Fragment(docname, html, work.xrefs, notes, deps, translator.mdmark_tags, translator.mdmark_headings, work.key)


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
