"""Diagnostics: ``mdmark check``'s drifts of the project, with the client's unsaved buffers, on
open, change (debounced) and save; every file whose drifts changed is published again, so a
change in one document updates the documents whose references it breaks or repairs.

Checks run one at a time per server. A change while a check runs makes that check's result stale:
it is dropped, not published, and the newest text is checked once the running check ends — never
a queue of checks.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.errors import MdmarkError

if TYPE_CHECKING:
    from mdmark.diagnostics import Diagnostic
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigate import Navigator, Span

log = logging.getLogger(__name__)
SOURCE = "mdmark"


@dataclass
class Checked:
    """One check run's result: the navigator and each file's drifts with the span shown."""

    navigator: Navigator | None
    drifts: dict[Path, list[tuple[Diagnostic, Span | None]]]
    #: A config or index that cannot be read as YAML: the file and the error (no drifts then).
    error: MdmarkError | None = None


@dataclass
class ProjectState:
    root: Path
    generation: int = 0
    running: bool = False
    rerun: bool = False
    navigator: Navigator | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    drifts: dict[Path, list[tuple[Diagnostic, Span | None]]] = field(default_factory=dict)
    #: Files published with a non-empty list (to be cleared when their drifts go).
    shown: set[Path] = field(default_factory=set)
    directives: dict[str, tuple[str, ...]] | None = None
    #: The generation the last published whole-project check saw.
    published: int = 0


def run_check(root: Path, texts: dict[Path, str]) -> Checked:
    """The drifts of the project at ``root`` with ``texts`` as the content of those files, each
    with the span the editor shows it at (the reference it is about, the index key's value)."""
    from mdmark.check.collect import check_texts
    from mdmark.queries.navigate import Navigator

    try:
        ctx, found = check_texts(root, texts)
    except MdmarkError as exc:
        return Checked(None, {}, exc)
    navigator = Navigator(ctx, texts)
    drifts: dict[Path, list[tuple[Diagnostic, Span | None]]] = {}
    for drift in found:
        path = (root / drift.file).resolve()
        drifts.setdefault(path, []).append((drift, _span_of(navigator, path, drift)))
    return Checked(navigator, drifts)


def run_document(navigator: Navigator, path: Path, texts: dict[Path, str]) -> list[tuple[Diagnostic, Span | None]] | None:
    """The drifts of one edited document against the last whole check (see
    :func:`mdmark.check.collect.check_document`), each with its span; None when that check did not
    cover the document."""
    from mdmark.check.collect import check_document
    from mdmark.queries.navigate import Navigator

    found = check_document(navigator.ctx, path, texts)
    if found is None:
        return None
    one = Navigator(found[0], texts)
    return [(drift, _span_of(one, path, drift)) for drift in found[1]]


def _span_of(navigator: Navigator, path: Path, drift: Diagnostic) -> Span | None:
    import re

    from mdmark.queries.navigate import Span

    if drift.line is None:
        return None
    if navigator.is_index(path):
        return navigator.index_span(drift.where) if drift.where else Span(path, drift.line)
    quoted = re.findall(r"`([^`]+)`", drift.message)
    for hint in quoted[:2]:
        span = navigator.reference_span(path, drift.line, hint)
        if span is not None:
            return span
    lines = navigator.lines(path)
    text = lines[drift.line - 1] if 0 < drift.line <= len(lines) else ""
    return Span(path, drift.line, len(text) - len(text.lstrip()), len(text))


def to_lsp(server: MdmarkServer, drift: Diagnostic, span: Span | None, navigator: Navigator | None) -> types.Diagnostic:
    from mdmark.queries.navigate import Span

    where = span if span is not None else Span(Path("/"), 1)
    return types.Diagnostic(
        range=server.to_range(where, navigator) if span is not None else types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=drift.message,
        severity=types.DiagnosticSeverity.Warning,
        code=str(drift.kind),
        source=SOURCE,
        data={"kind": str(drift.kind), "where": drift.where, "file": drift.file},
    )


def _error_diagnostic(server: MdmarkServer, error: MdmarkError) -> types.Diagnostic:
    line = max((error.line or 1) - 1, 0)
    column = max((error.column or 1) - 1, 0)
    return types.Diagnostic(
        range=types.Range(types.Position(line, column), types.Position(line, column + 1)),
        message=error.message,
        severity=types.DiagnosticSeverity.Error,
        code="yaml",
        source=SOURCE,
    )


def publish(server: MdmarkServer, state: ProjectState, checked: Checked) -> None:
    if checked.error is not None:
        error = checked.error
        if error.file is not None:
            path = Path(error.file).resolve()
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=server.uri_of(path), diagnostics=[_error_diagnostic(server, error)])
            )
            state.shown.add(path)
        else:
            server.say(error.message)
        state.ready.set()
        return
    state.navigator = checked.navigator
    state.drifts = checked.drifts
    # Open documents are always answered (an empty list says "checked, nothing found").
    opened = set(server.open_texts(state.root))
    for path in sorted(set(checked.drifts) | state.shown | opened):
        now = checked.drifts.get(path, [])
        items = [to_lsp(server, drift, span, checked.navigator) for drift, span in now]
        if not items and path not in state.shown and path not in opened:
            continue
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=server.uri_of(path), diagnostics=items))
        if items:
            state.shown.add(path)
        else:
            state.shown.discard(path)
    state.ready.set()


async def quick(server: MdmarkServer, state: ProjectState, path: Path, generation: int) -> None:
    """The edited document's own drifts at once, against the last whole check (beside a whole
    check that may be running); dropped when a newer change or a newer whole check came first."""
    navigator = state.navigator
    if navigator is None:
        return
    loop = asyncio.get_running_loop()
    try:
        found = await loop.run_in_executor(server.quick, run_document, navigator, path, server.open_texts(state.root))
    except Exception:  # the whole check still answers
        log.exception("mdmark lsp: the quick check failed")
        return
    if found is None or generation != state.generation or state.published >= generation:
        return
    items = [to_lsp(server, drift, span, navigator) for drift, span in found]
    state.drifts[path] = found  # what the quick fixes are made from until the whole check lands
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=server.uri_of(path), diagnostics=items))
    if items:
        state.shown.add(path)


async def schedule(server: MdmarkServer, state: ProjectState, delay: float, edited: Path | None = None) -> None:
    """Check the project after ``delay`` seconds unless a newer change comes first; stale results
    (a change arrived while checking) are dropped and the newest text checked once more. An edited
    Markdown document gets its own drifts first (:func:`quick`)."""
    state.generation += 1
    generation = state.generation
    if delay:
        await asyncio.sleep(delay)
    if generation != state.generation:
        return  # a newer change is waiting its own turn
    if edited is not None and edited.suffix == ".md" and state.navigator is not None:
        asyncio.ensure_future(quick(server, state, edited, generation))
    if state.running:
        state.rerun = True
        return
    state.running = True
    loop = asyncio.get_running_loop()
    try:
        while True:
            state.rerun = False
            generation = state.generation
            texts = server.open_texts(state.root)
            try:
                checked = await loop.run_in_executor(server.checks, run_check, state.root, texts)
            except Exception:  # a bug must not stop the server: logged, the last results stay
                log.exception("mdmark lsp: the check failed")
                state.ready.set()
                return
            if generation == state.generation:
                state.published = generation
                publish(server, state, checked)
                if not state.rerun:
                    return
            elif not state.rerun:
                return  # dropped: the newer change's own schedule checks it
    finally:
        state.running = False


def register(server: MdmarkServer) -> None:
    def start(uri: str, delay: float, edited: bool = False) -> None:
        state = server.state_for(uri)
        if state is not None:
            asyncio.ensure_future(schedule(server, state, delay, server.path_of(uri) if edited else None))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MdmarkServer, params: types.DidOpenTextDocumentParams) -> None:
        start(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MdmarkServer, params: types.DidChangeTextDocumentParams) -> None:
        start(params.text_document.uri, ls.debounce, edited=True)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MdmarkServer, params: types.DidSaveTextDocumentParams) -> None:
        start(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MdmarkServer, params: types.DidCloseTextDocumentParams) -> None:
        # The file on disk is what counts again.
        start(params.text_document.uri, ls.debounce)
