"""Drift inside documents: references that land nowhere, Sphinx's warnings, missing images."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.util.files import display
from mdmark.core.diagnostics import Diagnostic, DriftKind, missing_image_message
from mdmark.check.rules.context import CheckContext
from mdmark.core.facts import DocFacts

if TYPE_CHECKING:
    from mdmark.check.rules.reuse import DocumentRule, Reuse


def reference_problems(ctx: CheckContext) -> Iterator[Diagnostic]:
    """broken_link, broken_anchor and syntax: what :func:`mdmark.references.problems.document_problems` finds, the
    same sentences export and build print."""
    yield from _each_document(ctx, _document_problems, lambda reuse: reuse.document_problems)


def _each_document(
    ctx: CheckContext,
    rule: DocumentRule[CheckContext],
    kept: Callable[[Reuse], Callable[[str, DocFacts, DocumentRule[CheckContext], CheckContext], Iterable[Diagnostic]]],
) -> Iterator[Diagnostic]:
    """``rule`` over every readable document Sphinx reads; after an edit, a document whose answer
    still holds is answered from ``kept(reuse)`` (:mod:`mdmark.check.rules.reuse`) instead of
    running it again."""
    reuse = ctx.reusing()
    keep = kept(reuse) if reuse is not None else None
    model = ctx.model
    sphinx_docs = model.sphinx_docs if model.info.sphinx else None
    for document in ctx.documents:
        facts = document.facts
        if facts.error is not None:
            continue
        if sphinx_docs is not None and facts.path[: -len(".md")] not in sphinx_docs:
            # docs.include checks it, but conf.py's exclude_patterns leave it out: sphinx-build
            # never reads it (a draft, a snippet for {include}), so it says nothing of it either.
            continue
        if keep is None:
            yield from rule(ctx, document.file, facts)
        else:
            yield from keep(document.file, facts, rule, ctx)


def _document_problems(ctx: CheckContext, shown: str, facts: DocFacts) -> Iterator[Diagnostic]:
    from mdmark.references.lookup import UNPLACED
    from mdmark.references.problems import document_problems

    docname = facts.path[: -len(".md")]
    for line, problem in document_problems(facts, ctx.model, docname):
        if problem.file == UNPLACED:  # Sphinx's "<unknown>": at the config file, as unplaced as Sphinx shows it
            yield Diagnostic(ctx.config.shown, "", DriftKind.of(problem.kind), problem.message, None)
            continue
        # A warning of {include}d text stands at the included file's line, as Sphinx says it.
        file = display(Path(problem.file), ctx.root) if problem.file is not None else shown
        yield Diagnostic(file, str(line) if line else "", DriftKind.of(problem.kind), problem.message, line)


def missing_images(ctx: CheckContext) -> Iterator[Diagnostic]:
    yield from _each_document(ctx, _missing_images, lambda reuse: reuse.missing_images)


def _missing_images(ctx: CheckContext, shown: str, facts: DocFacts) -> Iterator[Diagnostic]:
    from mdmark.host.confine import inside, project_root
    from mdmark.util.sentences import outside_root

    srcdir = ctx.project.source_dir
    root = project_root(ctx.project.root)
    for image in facts.images:
        if image.remote or image.path is None:
            continue
        image_file = Path(os.path.normpath(srcdir / image.path))
        if image_file.is_file() and not inside(image_file, root):
            # Not embedded by export/build (the guide page ``untrusted``): the same sentence they print.
            message = outside_root(image.uri, "画像")
            yield Diagnostic(shown, str(image.line) if image.line else "", DriftKind.MISSING_IMAGE, message, image.line)
            continue
        if image_file.is_file():
            continue
        yield Diagnostic(
            shown,
            str(image.line) if image.line else "",
            DriftKind.MISSING_IMAGE,
            missing_image_message(image.uri, image_file),
            image.line,
        )
