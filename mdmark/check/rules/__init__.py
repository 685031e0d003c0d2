"""The drift check's rules: one table, in the order of the guide page ``check`` (markdown-it-py's Ruler is the model).

Each rule is a function ``(ctx) -> Iterator[Diagnostic]`` over a :class:`CheckContext` built once
before any rule runs. A rule reports the kinds its row names; a rule whose kinds are all in
``check.disable`` does not run. Most rules report one kind; a rule that makes one decision with
several outcomes (a tag reference is unknown or retired; :func:`mdmark.references.problems.document_problems`
sorts a reference into broken_link, broken_anchor or syntax) names them all, and its disabled
kinds are dropped from what it yields.

Where a drift is reported is part of the row: the config file, the index file, or a document.
The output lists the config's drifts, then the index's, then each document's, each file's by line
(drifts on one line in table order).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.check.rules import aliases, change_together, config, documents, ids, links, relations, tags
from mdmark.check.rules.context import CheckContext, build_context

__all__ = ["RULES", "CheckContext", "Rule", "Scope", "active_rules", "build_context", "run"]


class Scope(enum.Enum):
    """The file a rule's drifts are in."""

    CONFIG = "config"
    INDEX = "index"  # runs only when the config's index file exists
    DOCUMENT = "document"


@dataclass(frozen=True)
class Rule:
    kinds: tuple[DriftKind, ...]
    scope: Scope
    check: Callable[[CheckContext], Iterator[Diagnostic]]
    #: Reads the index model and nothing else: its drifts hold while the index model does.
    index_only: bool = False


K = DriftKind
RULES: tuple[Rule, ...] = (
    Rule((K.CONFIG_KEY, K.CONFIG_VALUE), Scope.CONFIG, config.schema_problems),
    Rule((K.CONFIG_VALUE,), Scope.CONFIG, config.refused_css),
    Rule((K.CONFIG_VALUE,), Scope.CONFIG, config.missing_index_file),
    Rule((K.CONFIG_VALUE,), Scope.CONFIG, config.unloadable_extensions),
    Rule((K.INDEX_SCHEMA,), Scope.INDEX, ids.index_schema, index_only=True),
    Rule((K.DUPLICATE_ID,), Scope.INDEX, ids.duplicate_ids, index_only=True),
    Rule((K.MISSING_DOC,), Scope.INDEX, documents.missing_docs),
    Rule((K.UNINDEXED_DOC,), Scope.DOCUMENT, documents.unindexed_docs),
    Rule((K.TITLE_MISMATCH,), Scope.INDEX, documents.title_mismatches),
    Rule((K.UNKNOWN_DOC,), Scope.INDEX, relations.unknown_docs, index_only=True),
    Rule((K.ONE_SIDED_CHANGE_TOGETHER,), Scope.INDEX, relations.one_sided_change_together, index_only=True),
    Rule((K.DUPLICATE_RELATION,), Scope.INDEX, relations.duplicate_relations, index_only=True),
    Rule((K.UNKNOWN_TAG, K.DEPRECATED_TAG), Scope.INDEX, tags.tag_references, index_only=True),
    Rule((K.UNKNOWN_TAG,), Scope.INDEX, tags.unknown_replacements, index_only=True),
    Rule((K.ALIAS_CONFLICT,), Scope.INDEX, aliases.alias_conflicts, index_only=True),
    Rule(
        (K.BROKEN_LINK, K.BROKEN_ANCHOR, K.SYNTAX, K.TOCTREE_NO_TITLE, K.TOCTREE_CYCLE, K.NOT_IN_TOCTREE, K.CODE_LANGUAGE),
        Scope.DOCUMENT,
        links.reference_problems,
    ),
    Rule((K.MISSING_IMAGE,), Scope.DOCUMENT, links.missing_images),
    Rule((K.SYNTAX,), Scope.DOCUMENT, documents.unreadable_documents),
    Rule((K.MISSED_CHANGE_TOGETHER,), Scope.INDEX, change_together.missed_change_together),
)
del K


def active_rules(disabled: frozenset[str]) -> tuple[Rule, ...]:
    """The rules that run when ``disabled`` (``check.disable``) names these kinds."""
    return tuple(rule for rule in RULES if any(kind not in disabled for kind in rule.kinds))


def run(ctx: CheckContext, scopes: frozenset[Scope] | None = None) -> list[Diagnostic]:
    """Every enabled rule's drifts: the config's, the index's, then each document's, each by line
    (only the rules of ``scopes`` when given)."""
    disabled = ctx.config.disabled
    config_file: list[Diagnostic] = []
    index_file: list[Diagnostic] = []
    per_document: dict[str, list[Diagnostic]] = {}
    reuse = ctx.reusing()
    for rule in active_rules(disabled):
        if rule.scope is Scope.INDEX and ctx.index is None:
            continue
        if scopes is not None and rule.scope not in scopes:
            continue
        drifts = rule.check(ctx) if reuse is None or not rule.index_only else reuse.index_rule(rule.check, ctx)
        for diagnostic in drifts:
            if diagnostic.kind in disabled:
                continue
            if rule.scope is Scope.CONFIG:
                config_file.append(diagnostic)
            elif rule.scope is Scope.INDEX:
                index_file.append(diagnostic)
            else:
                # A drift of {include}d text stands in the included file: after the documents.
                per_document.setdefault(diagnostic.file, []).append(diagnostic)
    if reuse is not None and scopes is None:
        reuse.publish()
    result = _by_line(config_file) + _by_line(index_file)
    # The documents' drifts in the documents' order, then those of files they include.
    placed = 0
    for document in ctx.documents:
        found = per_document.get(document.file)
        if found is not None:
            result.extend(_by_line(found))
            placed += 1
    if placed < len(per_document):
        documents = {document.file for document in ctx.documents}
        for file, found in per_document.items():
            if file not in documents:
                # A file {include}d many times gives its warning once per inclusion: one drift each.
                result.extend(_by_line(list(dict.fromkeys(found))))
    return result


def _by_line(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    # Stable: drifts on one line keep the table's order.
    return sorted(diagnostics, key=lambda d: d.line or 0)
