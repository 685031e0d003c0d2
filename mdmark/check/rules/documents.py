"""Drift between the index's documents and the files: missing, unindexed, unreadable, retitled."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.util.files import shown_under
from mdmark.util.globs import match_files
from mdmark.check.rules.context import CheckContext
from mdmark.util.sentences import fix_to
from mdmark.index.model import Index
from mdmark.index.qualified_title import qualifier_of
from mdmark.util.text import close_file, normalize


def missing_docs(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    reuse = ctx.reusing()
    if reuse is None:
        yield from _missing_docs(ctx, index)
    else:
        yield from reuse.index_missing_docs(index, lambda: list(_missing_docs(ctx, index)))


def _missing_docs(ctx: CheckContext, index: Index) -> Iterator[Diagnostic]:
    indexed = {d.path for d in index.docs}
    candidates: list[str] | None = None  # walked for the first missing document only
    for doc in index.docs:
        path = ctx.doc_file(doc)
        if path.is_dir():
            yield ctx.in_index(
                f"{doc.where}.path",
                DriftKind.MISSING_DOC,
                f"文書 `{doc.path}` はファイルではなくフォルダなので、そのフォルダの中の Markdown のファイルを path に書いてください。",
            )
            continue
        if path.is_file():
            continue
        if candidates is None:
            # Every Markdown file under the config folder, relative to the index folder, not yet indexed.
            every = [Path(os.path.relpath(p, index.folder)).as_posix() for p in match_files(ctx.root, ("**/*.md",), ())]
            candidates = [p for p in every if p not in indexed]
        candidate = close_file(doc.path, candidates)
        fix = fix_to(candidate, "パスを直すか、", "パス")
        yield ctx.in_index(
            f"{doc.where}.path",
            DriftKind.MISSING_DOC,
            f"文書 `{doc.path}` が見つからないので、{fix}文書を戻すか、索引の `{doc.where}` を消してください。",
        )


def unindexed_docs(ctx: CheckContext) -> Iterator[Diagnostic]:
    for document in ctx.documents:
        if document.unindexed:
            file = document.file
            yield Diagnostic(
                file,
                "",
                DriftKind.UNINDEXED_DOC,
                f"`{file}` は設定の docs に当たるのに索引に無いので、索引の docs に足すか、設定の docs.exclude に足してください。",
            )


def title_mismatches(ctx: CheckContext) -> Iterator[Diagnostic]:
    """The index title is the first heading; or, when that heading is another document's name too
    (its heading, title or alias), the heading told apart (:mod:`mdmark.index.qualified_title`)."""
    index = ctx.index
    assert index is not None
    headings: dict[int, str | None] = {}
    differ: list[int] = []
    facts_of, doc_files = ctx.facts.get, ctx.doc_files
    for n, doc in enumerate(index.docs):
        facts = facts_of(doc_files[id(doc)])
        if facts is not None and facts.error is None:
            title = headings[n] = facts.title
            if title is None or title.strip() != doc.title.strip():
                differ.append(n)
    # Every document's names, normalized: needed only for a title that differs and may be qualified.
    owners: dict[str, set[int]] | None = None
    for n in differ:
        doc = index.docs[n]
        title = headings[n]
        if title is None:
            message = f"文書 `{doc.path}` に見出しが無いので、索引の title に合わせて先頭に `# {doc.title}` を書いてください。"
        elif qualifier_of(doc.title, title) is not None and _named_too(owners := owners or _owners(index, headings), title, n):
            continue  # told apart from another document of the same name
        else:
            message = f"索引の title `{doc.title}` と文書 `{doc.path}` の最初の見出し `{title}` が違うので、どちらかに合わせてください。"
        yield ctx.in_index(f"{doc.where}.title", DriftKind.TITLE_MISMATCH, message)


def _owners(index: Index, headings: dict[int, str | None]) -> dict[str, set[int]]:
    """Each normalized name (a document's first heading, title or alias) → the documents it names."""
    owners: dict[str, set[int]] = {}
    for n, doc in enumerate(index.docs):
        for name in (headings.get(n) or "", *doc.names):
            owners.setdefault(normalize(name), set()).add(n)
    return owners


def _named_too(owners: dict[str, set[int]], title: str, n: int) -> bool:
    """Whether ``title`` is also the name of a document other than the ``n``-th."""
    return bool(owners.get(normalize(title), set()) - {n})


def unreadable_documents(ctx: CheckContext) -> Iterator[Diagnostic]:
    """A document that cannot be read is this one syntax drift; the reference rules skip it.

    So is a Sphinx project's source of another suffix (``.rst``) that cannot be read (an extension
    its directives need fails, say): mdmark checks Markdown only, but it reads those sources for
    the labels and objects Markdown references, and without this drift every reference into the
    unread file would be reported broken with no word of why (sphinx-build stops there instead).
    """
    for document in ctx.documents:
        if document.facts.error is not None:
            line = document.facts.error_line
            yield Diagnostic(document.file, str(line or ""), DriftKind.SYNTAX, document.facts.error, line)
    # Sorted are only the few that failed (sorting every path was a tenth of a check after one edit).
    failed = [(path, facts.error) for path, facts in ctx.facts.items() if facts.error is not None and path.suffix != ".md"]
    if failed:
        checked = {document.path for document in ctx.documents}
        for path, error in sorted(failed):
            if path not in checked:
                yield Diagnostic(shown_under(path, ctx.root), "", DriftKind.SYNTAX, error)
