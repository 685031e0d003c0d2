"""The private Sphinx attributes mdmark needs, each behind one small named function: a Sphinx
upgrade is checked here (a test fails on private access anywhere outside :mod:`mdmark.host`)."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mdmark.host.session import session

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment


def take_doctree(env: BuildEnvironment, docname: str) -> nodes.document:
    """The doctree ``read_doc`` just produced, leaving it in neither of the environment's caches
    (an object and a pickle on disk), so a long-running process does not grow per read."""
    doctree: nodes.document | None = env._write_doc_doctree_cache.pop(docname, None)
    if doctree is None:
        doctree = env.get_doctree(docname)
    env._pickled_doctree_cache.pop(docname, None)
    return doctree


def forget_document(env: BuildEnvironment, docname: str) -> None:
    """Drop what the environment holds of a document whose read failed part-way."""
    env.clear_doc(docname)
    env.all_docs.pop(docname, None)
    env._write_doc_doctree_cache.pop(docname, None)
    env._pickled_doctree_cache.pop(docname, None)


@contextlib.contextmanager
def reading_as(env: BuildEnvironment, docname: str) -> Iterator[None]:
    """The environment's current document is ``docname`` inside the block (post-transforms applied
    outside a read ask it), and what it was afterwards — as ``apply_post_transforms`` does."""
    from copy import deepcopy

    backup = env.current_document
    new = deepcopy(backup)
    new.docname = docname
    try:
        env.current_document = new
        yield
    finally:
        env.current_document = backup


#: Applications whose builder has run ``prepare_writing`` (weak: an application that goes, goes).
_PREPARED: weakref.WeakSet[Sphinx] = weakref.WeakSet()


def prepare_writing(app: Sphinx) -> None:
    """``prepare_writing`` once per application (it builds the docutils settings the translator needs)."""
    if app not in _PREPARED:
        builder: Any = app.builder
        builder.prepare_writing(set())
        _PREPARED.add(app)


def is_epub(builder: Builder) -> bool:
    """Whether ``builder`` writes EPUB (its base class lives in a private module)."""
    from sphinx.builders._epub_base import EpubBuilder

    return isinstance(builder, EpubBuilder)


def std_terms(env: BuildEnvironment) -> dict[str, tuple[str, str]]:
    """The standard domain's glossary terms (``{term}`` looks them up; no public accessor)."""
    std: Any = env.domains.standard_domain
    terms: dict[str, tuple[str, str]] = std.data.setdefault("terms", {})
    return terms


def directive_options(app: Sphinx) -> dict[str, tuple[str, ...]]:
    """Every directive a document of ``app`` can use, with its options: docutils' and those the
    extensions registered (MyST, sphinx-design, conf.py's), and the domains' (``py:function``; the
    standard and default domains' also without their prefix) — what completion offers."""
    import importlib

    from docutils.parsers.rst import directives as registry

    found: dict[str, Any] = {}
    with session(app):
        for name, (module, cls) in getattr(registry, "_directive_registry", {}).items():
            try:
                found[name] = getattr(importlib.import_module(f"docutils.parsers.rst.directives.{module}"), cls)
            except (ImportError, AttributeError):
                continue
        found.update(getattr(registry, "_directives", {}))
        default = app.config.primary_domain
        for domain in app.env.domains.sorted() if hasattr(app.env.domains, "sorted") else app.env.domains.values():
            for name, cls in domain.directives.items():
                found[f"{domain.name}:{name}"] = cls
                if domain.name in ("std", default):
                    found.setdefault(name, cls)
    out: dict[str, tuple[str, ...]] = {}
    for name, cls in found.items():
        spec = getattr(cls, "option_spec", None) or {}
        out[name] = tuple(sorted(spec))
    return dict(sorted(out.items()))
