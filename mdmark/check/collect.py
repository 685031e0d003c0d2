"""The drift check: every mismatch between the config, the index and the documents (the guide page ``check``).

:func:`collect` is the one implementation; ``mdmark check``, the MCP tool ``check`` and the Sphinx
extension all call it and show the same list. It reads, never writes (the parse cache aside).

Decisions the spec leaves open, also stated in ``mdmark check --help``:

* A config whose ``index`` names no file is a ``config_value`` drift on the ``index`` key (the
  documents of ``docs`` are still checked); an index file that cannot be read as YAML (or as
  UTF-8 text) stops the check with exit code 2, like an unreadable config.
* ``unindexed_doc`` looks at the Markdown (``.md``) files of the config's ``docs`` set only, and
  only when the config has an index.
* ``title_mismatch`` compares the index ``title`` with the document's first heading exactly
  (after trimming spaces); a document without any heading is a mismatch too. A heading another
  document has too (its heading, title or alias) may be told apart in the title:
  ``Heading (qualifier)`` (:mod:`mdmark.index.qualified_title`), as ``mdmark init`` writes it.
* A link target that does not exist and looks like a name (no ``/`` and no ``.``) is what MyST
  reads as a reference to a heading or label (``[x](#name)``, ``[x](name)``): it is a
  ``broken_anchor`` unless the document or another checked document has that anchor or label.
* ``duplicate_relation``: the same ``to`` twice in one document's ``related`` with the same type
  (or one of them untyped), or a relation written on both sides, i.e. A→B and B→A where one of
  the two is an untyped string entry (``change_together`` is meant to be on both sides and is
  left to ``one_sided_change_together``).
* With ``base``, see :mod:`mdmark.util.gitbase` for what counts as changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from mdmark.core.diagnostics import Diagnostic
from mdmark.project.main import Project

if TYPE_CHECKING:
    # The rules import what reading documents needs: a check answered from its stored result
    # (mdmark.check.stored) never imports them.
    from mdmark.check.rules.context import CheckContext, FactsFn

__all__ = ["check", "check_document", "check_texts", "collect"]


def collect(
    project: Project,
    *,
    base: str | None = None,
    facts: FactsFn | None = None,
    progress: Callable[[int, int], None] | None = None,
    texts: Mapping[Path, str] | None = None,
    reading: Callable[[], object] | None = None,
) -> list[Diagnostic]:
    """Every drift of ``project`` (the rules of :mod:`mdmark.check.rules`, in the order of the guide page ``check``),
    without the kinds ``check.disable`` names: their rules do not run.

    ``facts`` maps absolute document paths to their :class:`~mdmark.core.facts.DocFacts` (in order); the
    Sphinx extension passes the facts of doctrees Sphinx already read, everyone else gets the
    cached pipeline. ``base`` adds ``missed_change_together`` against that git ref; an unresolvable
    ref (or no git repository) raises :class:`MdmarkError` with exit code 2 before anything is checked.
    ``progress(done, total)`` follows the reading of the checked documents (the CLI's counter).
    ``texts`` gives some files' content (by resolved path) instead of the disk's: see :func:`check_texts`.
    ``reading()`` is called once the stored result does not answer, before anything is read (the
    CLI starts its worker pool's Sphinx application there, to be made while the rules are loaded),
    unless only the index or the config changed since the last stored check (nothing will be parsed).
    """
    from mdmark.check import stored

    # A plain check of a project with a config answers from the last one while no input changed;
    # the Sphinx extension (its own facts) and --base (git's state) always run the rules.
    reusable = base is None and facts is None
    reusable = reusable and not texts
    # A new process's workspace: it reads the last run's snapshot (a server's holds its state).
    fresh = project.workspace.pristine()
    changes: list[str] | None = None
    if reusable:
        looked = stored.lookup(project)
        if looked.answer is not None:
            return looked.answer
        begun = stored.begin(project)
        if reading is not None or fresh:
            changes = stored.changed(project, looked)  # listed once, for both decisions below
    if reading is not None:
        # Only the index or the config changed since the last check: nothing will be parsed.
        config = project.config
        files = {str(p) for p in (config.path, config.index_path) if p is not None}
        if not (changes is not None and all(path in files for path in changes)):
            reading()
    # What the last run knew (facts by stat, the layout, each document's drifts): after one edit,
    # only what that edit can change is read and worked out again.
    snapshot = facts is None and not texts
    # The edited documents go to a worker now, to be parsed while the snapshot is read.
    ahead = None
    if snapshot and fresh and changes:
        ahead = project.pipeline.parse_ahead(stored.edited_documents(changes))
    if snapshot:
        project.restore_snapshot()
    from mdmark.check.rules import build_context, run

    try:
        ctx = build_context(project, base, facts, progress, texts)
    finally:
        if ahead is not None:
            ahead.join()
    found = run(ctx)
    if reusable:
        stored.store(project, ctx, found, begun, later=not fresh)
    if snapshot:
        from mdmark.pipeline import resident

        # A one-shot command answers without waiting for the next run's snapshot (a child writes it).
        project.save_snapshot(detached=resident.enabled())
    return found


def check_texts(start: Path, texts: Mapping[Path, str]) -> tuple[CheckContext, list[Diagnostic]]:
    """The drifts of the project found from ``start`` with some files' content given as text (by
    resolved path: Markdown documents, the index, the config) instead of read from disk — what an
    editor's unsaved buffers would give once saved. Returns the run's context too (what the
    language server answers navigation from). ``change_together`` drift (``--base``) is not run.

    Raises :class:`MdmarkError` (exit code 2, with file, line and column when known) when the config
    or the index cannot be read as YAML, like :func:`check`.
    """
    from mdmark.check.rules import build_context, run

    project = Project.open(start, None, texts)
    ctx = build_context(project, None, None, None, texts)
    return ctx, run(ctx)


def check(start: Path, config: str | None = None, base: str | None = None) -> dict[str, list[dict[str, str]]]:
    """The MCP tool ``check`` and ``mdmark check --format json``: ``{"issues": [...]}``.

    Raises :class:`MdmarkError` (exit code 2) when the config is missing or unreadable, the index
    cannot be read, or ``base`` names nothing git can resolve.
    """
    project = Project.open(start, config)
    return {"issues": [d.as_dict() for d in collect(project, base=base)]}



def check_document(
    ctx: CheckContext, path: Path, texts: Mapping[Path, str]
) -> tuple[CheckContext, list[Diagnostic]] | None:
    """The drifts of one document of an earlier run ``ctx`` (by resolved path), its content given in
    ``texts`` (else its file): the document rules only, resolved against the other documents as
    that run read them — what an editor shows at once while the whole project is checked again.
    Returns ``ctx`` with that document's new facts in place of its old ones (the project as the
    editor now has it, for the next document's check and for navigation) and the drifts. None
    when the document was not one ``ctx`` checked (a full :func:`check_texts` is needed).

    Only the edited document is read (one parse, in a worker); the other documents' facts are
    shared with ``ctx``, not copied or read again."""
    import dataclasses

    from mdmark.check.rules import Scope, run

    at = next((i for i, d in enumerate(ctx.documents) if d.path == path), None)
    if at is None:
        return None
    document = ctx.documents[at]
    project = ctx.project
    facts = project.pipeline.facts_many([path], texts=texts)[0]
    docname = facts.path[: -len(".md")] if facts.error is None else None
    model = ctx.model.with_facts(docname, facts) if docname is not None else ctx.model
    known = dict(ctx.facts)
    known[path] = facts
    edited = dataclasses.replace(document, facts=facts)
    one = dataclasses.replace(ctx, documents=(edited,), facts=MappingProxyType(known), model=model)
    whole = dataclasses.replace(one, documents=(*ctx.documents[:at], edited, *ctx.documents[at + 1 :]))
    return whole, run(one, frozenset({Scope.DOCUMENT}))
