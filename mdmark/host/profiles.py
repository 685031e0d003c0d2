"""Read profiles: which of Sphinx's own transforms and listeners each consumer of a read skips.

A document is read once, and its doctree (cached) serves two consumers:

* ``facts`` — check and the queries: the facts :mod:`mdmark.pipeline.extract` takes from the tree;
* ``fragments`` — export and build: the HTML fragment :mod:`mdmark.html.render` writes from it.

Sphinx's own read runs transforms and listeners for builders mdmark never runs (LaTeX, doctest,
gettext's versioning) and for Sphinx's own HTML pages (its sidebars' page tables of contents), and
a few that only the HTML needs. :data:`SKIPS` is the one table of them: a row skipped by both
consumers is taken out of the application when it is made (:func:`prune`); a row only the facts
skip is taken out of the read too, and runs on the tree when it is rendered, before the
post-transforms (:func:`apply_at_render`) — so a read serves both and the parse cache has one key
per document. Only Sphinx's own are listed: an extension's transforms and listeners always run.
A test reads and renders documents with and without the table and compares facts and fragments.

Not in the table, and why (measured with Sphinx 9.0.4 on the 1,200-document corpus, cProfile of a
cold worker, ``bench/profile_warm.py --only cold``: ``read_doc`` is 70 % of a document, MyST's parse
and render 48 %, every transform together 18 %, nothing else above 2.5 %):

* i18n's ``Locale`` (with ``PreserveTranslatableMessages`` and ``ExtraTranslatableNodes``), in an
  application that reads message catalogs (a trusted conf.py's ``locale_dirs``): in a translated
  project the facts are the translation's (the title, the headings, the text:
  ``tests/test_profiles.py``), so the facts' read needs it. Elsewhere it finds no catalog and
  returns (0.6 % of a document, the three 1.3 %); mdmark's own application and an untrusted
  conf.py's read no catalog (``locale_dirs`` empty) and skip the three. What a translated read
  reads is an input of its parse (:mod:`mdmark.host.catalogs`).
* Sphinx's read wrapper: Sphinx 9 has none left (``Builder.read_doc`` parses the string itself).
* viewcode's ``doctree-read`` listener (a conf.py's ``sphinx.ext.viewcode``): it adds the
  ``[source]`` links the fragments show; not measured on a project that loads it (the corpora
  here run without it), so it stays.
* ``DoctreeReadEvent``'s other listeners (images and downloads, titles, the domains' labels, the
  index entries' warnings, the dependencies) and the remaining transforms make what the facts hold
  or the warnings check reports; the largest, ``SphinxDanglingReferences`` (unknown targets'
  warnings) and ``ApplySourceWorkaround`` (the nodes' lines), are 1.9 and 1.8 %.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

FACTS = "facts"
FRAGMENTS = "fragments"
BOTH = frozenset({FACTS, FRAGMENTS})


@dataclass(frozen=True)
class Skip:
    """One of Sphinx's own transforms (by class) or listeners (by event and handler) that a
    consumer does not need. ``own_app_only``: skipped only in mdmark's own application (no conf.py),
    whose extensions are known — a conf.py's extension may read what it leaves."""

    kind: Literal["transform", "listener"]
    #: The class (a transform) or the handler (a listener), as ``module.qualname``.
    name: str
    skipped_by: frozenset[str]
    why: str
    #: The event of a listener.
    event: str = ""
    own_app_only: bool = False
    #: Skipped only by an application that reads no message catalog (``locale_dirs`` empty: mdmark's
    #: own, and an untrusted conf.py's): a translated project's facts are the translation's.
    untranslated_only: bool = False


SKIPS: tuple[Skip, ...] = (
    Skip("transform", "sphinx.builders.latex.transforms.FootnoteDocnameUpdater", BOTH,
         "records each footnote's document for the LaTeX builder, which mdmark never runs"),
    Skip("transform", "sphinx.transforms.DoctestTransform", BOTH,
         "marks doctest blocks for sphinx.ext.doctest's builder, which mdmark never runs"),
    Skip("transform", "sphinx.versioning.UIDTransform", BOTH,
         "gives nodes ids for the gettext and versioning builders, which mdmark never runs"),
    Skip("listener", "sphinx.environment.collectors.toctree.TocTreeCollector.process_doc", BOTH,
         "each page's table of contents (env.tocs) for Sphinx's own sidebars: mdmark's navigation comes "
         "from the facts, and neither MyST nor sphinx-design reads it (about 3 % of a cold worker's samples)",
         event="doctree-read", own_app_only=True),
    Skip("transform", "sphinx.transforms.i18n.PreserveTranslatableMessages", BOTH,
         "keeps toctrees' and index entries' original text for Locale and the gettext builder",
         untranslated_only=True),
    Skip("transform", "sphinx.transforms.ExtraTranslatableNodes", BOTH,
         "marks gettext_additional_targets' nodes translatable for Locale", untranslated_only=True),
    Skip("transform", "sphinx.transforms.i18n.Locale", BOTH,
         "translates the document from its message catalog: with no locale_dirs it looks for none",
         untranslated_only=True),
    Skip("transform", "sphinx.transforms.compact_bullet_list.RefOnlyBulletListTransform", frozenset({FACTS}),
         "compacts lists of references for the HTML (html_compact_lists off): the facts read the same text"),
    Skip("transform", "sphinx.transforms.i18n.TranslationProgressTotaliser", frozenset({FACTS}),
         "counts translated paragraphs for the HTML's translation_progress_classes"),
    Skip("transform", "sphinx.transforms.i18n.AddTranslationClasses", frozenset({FACTS}),
         "the HTML classes of translation_progress_classes"),
    Skip("transform", "sphinx.transforms.i18n.RemoveTranslatableInline", frozenset({FACTS}),
         "unwraps the inline nodes of translatable roles for the writers: the facts read the same text"),
)


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def _read_skips(own: bool, translated: bool) -> list[Skip]:
    """The rows a read skips: every row the facts skip (what only the fragments need runs at render)."""
    return [
        row for row in SKIPS
        if FACTS in row.skipped_by and (own or not row.own_app_only) and not (translated and row.untranslated_only)
    ]


def prune(app: Sphinx, own: bool) -> None:
    """Take out of ``app``'s reads what :data:`SKIPS` says the facts skip (``own``: mdmark's own
    application, without conf.py). Called once, after every extension is set up."""
    rows = _read_skips(own, translated=bool(app.config.locale_dirs))
    transforms = {row.name for row in rows if row.kind == "transform"}
    registry: Any = app.registry
    registry.transforms[:] = [t for t in registry.transforms if _name(t) not in transforms]
    for row in rows:
        if row.kind != "listener":
            continue
        for listener in list(app.events.listeners.get(row.event, [])):
            if _name(listener.handler) == row.name:
                app.disconnect(listener.id)


def render_transforms() -> list[type[Any]]:
    """The transforms the read skipped that the fragments need, in the order a read runs them."""
    found: list[type[Any]] = []
    for row in SKIPS:
        if row.kind == "transform" and row.skipped_by == frozenset({FACTS}):
            module, _, name = row.name.rpartition(".")
            found.append(getattr(importlib.import_module(module), name))
    return sorted(found, key=lambda t: int(t.default_priority))


def apply_at_render(app: Sphinx, tree: nodes.document, docname: str) -> None:
    """Run on a read's ``tree`` the transforms the fragments need and the read skipped (before the
    post-transforms). Each acts on nodes no other read transform touches after it, so running it
    here gives the tree a full read would."""
    from sphinx.transforms import SphinxTransformer
    from sphinx.util.docutils import LoggingReporter

    from mdmark.host.accessors import reading_as

    env: Any = app.env
    with reading_as(env, docname):
        if tree.reporter is None:
            tree.reporter = LoggingReporter(docname)
        transformer = SphinxTransformer(tree)
        transformer.set_environment(env)
        transformer.add_transforms(render_transforms())
        transformer.apply_transforms()
