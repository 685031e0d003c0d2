"""Diagnostics: ``mdmark check``'s drifts of the project, with the client's unsaved buffers, on
open, change (debounced) and save; every file whose drifts changed is published again, so a
change in one document updates the documents whose references it breaks or repairs.

Two lanes per project, each running one check at a time:

* the **document lane** (:func:`run_document`): an opened, edited or closed Markdown document is
  checked alone against the project as last checked — one parse, its own references — and its
  drifts published at once. The project the next questions are answered from is that one with
  the document's new facts in place.
* the **project lane** (:func:`run_check`): the whole project, for what the document lane cannot
  see — a change to the index or the config, a file changed on disk, a new document, and an edit
  that changed what other files can refer to (a heading, a label, a toctree, the title: see
  :func:`exports`). After such an edit it waits until the writer pauses (``settle``).

A change while a check runs makes that check's result stale: it is dropped, not published, and
the newest text is checked once the running check ends — never a queue of checks.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.core.errors import MdmarkError
from mdmark.lsp.state import Checked, Drifts, ProjectState, Quick

if TYPE_CHECKING:
    from mdmark.core.diagnostics import Diagnostic
    from mdmark.core.facts import DocFacts
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Navigator, Span

log = logging.getLogger(__name__)
SOURCE = "mdmark"


def exports(facts: DocFacts | None) -> tuple[object, ...] | None:
    """What other files' drifts can depend on in a document's facts: whether it could be read,
    its title, headings, anchors, labels, targets, toctrees, numbered things, the files it
    includes, the warnings it places in them and its metadata — everything but its own
    references, images, text and the lines things stand on (no other file's drift names a line
    of this one). Equal before and after an edit: no other file's drifts changed."""
    if facts is None:
        return None
    return (
        facts.error,
        facts.title,
        tuple((h.level, h.title, h.slug, h.ids, h.included) for h in facts.headings),
        tuple(facts.anchors),
        tuple(facts.labels),
        tuple(facts.targets),
        tuple(
            (t.caption, t.maxdepth, t.hidden, t.numbered, t.titlesonly, t.reversed, t.name, tuple((e.written, e.kind, e.target, e.title) for e in t.entries))
            for t in facts.toctrees
        ),
        tuple(facts.figures),
        tuple(rel for rel, _stamp in facts.deps),
        tuple((w.line, w.type, w.message, w.source) for w in facts.warnings if w.source is not None),
        repr(sorted(facts.metadata.items())),
    )


def run_check(root: Path, texts: dict[Path, str], previous: Navigator | None = None) -> Checked:
    """The drifts of the project at ``root`` with ``texts`` as the content of those files, each
    with the span the editor shows it at (the reference it is about, the index key's value).
    ``previous``: the last navigator, whose reading of unchanged documents is kept."""
    from mdmark.check.collect import check_texts
    from mdmark.queries.navigation.navigator import Navigator
    from mdmark.queries.navigation.places import drift_span

    try:
        ctx, found = check_texts(root, texts)
    except MdmarkError as exc:
        return Checked(None, {}, exc)
    navigator = Navigator(ctx, texts)
    if previous is not None:
        navigator.keep_from(previous)
    drifts: dict[Path, Drifts] = {}
    for drift in found:
        path = (root / drift.file).resolve()
        drifts.setdefault(path, []).append((drift, drift_span(navigator, path, drift)))
    return Checked(navigator, drifts)


def run_document(navigator: Navigator, path: Path, texts: dict[Path, str]) -> Quick | None:
    """One edited document checked against ``navigator``'s project (see
    :func:`mdmark.check.collect.check_document`), each drift with its span; None when that check
    did not cover the document or it is gone (the project lane must run)."""
    from mdmark.check.collect import check_document
    from mdmark.queries.navigation.navigator import Navigator
    from mdmark.queries.navigation.places import drift_span

    if path not in texts and not path.is_file():
        return None  # closed and gone from disk: the project check clears what it showed
    found = check_document(navigator.ctx, path, texts)
    if found is None:
        return None
    ctx, drifts = found
    same = exports(navigator.ctx.facts.get(path)) == exports(ctx.facts.get(path))
    # The other documents' lines, spans and (when nothing they can refer to changed) landings
    # are the previous navigator's: the next question reads the edited document only.
    updated = Navigator(ctx, texts).keep_from(navigator, path, landings=same)
    file = next(d.file for d in ctx.documents if d.path == path)
    own = [d for d in drifts if d.file == file]
    return Quick([(drift, drift_span(updated, path, drift)) for drift in own], updated, not same or len(own) != len(drifts))


def to_lsp(server: MdmarkServer, drift: Diagnostic, span: Span | None, navigator: Navigator | None) -> types.Diagnostic:
    from mdmark.queries.navigation.navigator import Span

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
        if not now and path not in state.shown and path not in opened:
            continue
        _publish_file(server, state, path, now, checked.navigator)
    state.ready.set()


def _publish_file(server: MdmarkServer, state: ProjectState, path: Path, drifts: Drifts, navigator: Navigator | None) -> None:
    items = [to_lsp(server, drift, span, navigator) for drift, span in drifts]
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=server.uri_of(path), diagnostics=items))
    if items:
        state.shown.add(path)
    else:
        state.shown.discard(path)


def changed(server: MdmarkServer, state: ProjectState, path: Path | None, delay: float) -> None:
    """A change the client told of: ``path`` a Markdown document opened, edited or closed (the
    document lane), None for anything else (the project lane). Checked after ``delay`` seconds
    unless a newer change comes first."""
    if path is not None and path.suffix == ".md":
        state.edited.pop(path, None)
        state.edited[path] = None
    else:
        state.whole_wanted = state.whole_urgent = True
    state.generation += 1
    asyncio.ensure_future(_after(server, state, state.generation, delay))


async def _after(server: MdmarkServer, state: ProjectState, generation: int, delay: float) -> None:
    if delay:
        await asyncio.sleep(delay)
    if generation != state.generation:
        return  # a newer change is waiting its own turn
    if state.navigator is None or state.whole_urgent:
        asyncio.ensure_future(project_lane(server, state))
    if state.edited and state.navigator is not None:
        await document_lane(server, state)


def owe_project_check(server: MdmarkServer, state: ProjectState) -> None:
    """Other files need a project check: once the writer has made no change for ``settle`` seconds."""
    state.whole_wanted = True
    asyncio.ensure_future(_settled(server, state, state.generation))


async def _settled(server: MdmarkServer, state: ProjectState, generation: int) -> None:
    await asyncio.sleep(server.settle)
    if generation == state.generation and state.whole_wanted:
        await project_lane(server, state)


async def document_lane(server: MdmarkServer, state: ProjectState) -> None:
    """Check the edited documents one by one, each against the project as last checked, and
    publish each one's drifts; a result whose document changed again meanwhile (or whose project
    a project check replaced) is dropped and the newest text checked instead."""
    if state.quick_running:
        return  # the running loop takes the newest edits
    state.quick_running = True
    loop = asyncio.get_running_loop()
    try:
        while state.edited and state.navigator is not None:
            path = next(iter(state.edited))
            del state.edited[path]
            navigator = state.navigator
            texts = server.open_texts(state.root)
            try:
                quick = await loop.run_in_executor(server.quick, run_document, navigator, path, texts)
            except Exception:  # a bug must not stop the server: logged, the project lane answers
                log.exception("mdmark lsp: the document check failed")
                quick = None
            if path in state.edited:
                continue  # stale: its newer text is next
            if state.navigator is not navigator:
                state.edited[path] = None  # a project check landed meanwhile: checked again against it
                continue
            if quick is None:
                # Not a document the last check read (a new file): only the project check knows it.
                state.whole_wanted = state.whole_urgent = True
                asyncio.ensure_future(project_lane(server, state))
                continue
            state.navigator = quick.navigator
            state.drifts[path] = quick.drifts  # what the quick fixes are made from
            _publish_file(server, state, path, quick.drifts, quick.navigator)
            if quick.others:
                owe_project_check(server, state)
    finally:
        state.quick_running = False


async def project_lane(server: MdmarkServer, state: ProjectState) -> None:
    """Check the whole project; a result that a change made stale meanwhile is dropped (the
    project check is owed again once the writer pauses), never queued."""
    if state.whole_running:
        return
    state.whole_running = True
    loop = asyncio.get_running_loop()
    try:
        while state.whole_wanted or state.navigator is None:
            generation = state.generation
            state.whole_wanted = state.whole_urgent = False
            texts = server.open_texts(state.root)
            try:
                checked = await loop.run_in_executor(server.checks, run_check, state.root, texts, state.navigator)
            except Exception:  # a bug must not stop the server: logged, the last results stay
                log.exception("mdmark lsp: the check failed")
                state.ready.set()
                return
            if generation == state.generation:
                # Every buffer was read as it is now: nothing is owed (a document check running
                # meanwhile finds its project replaced and checks against this one).
                state.edited.clear()
                state.whole_wanted = state.whole_urgent = False
                publish(server, state, checked)
                if checked.navigator is not None:
                    from mdmark.lsp.watch import watch_index

                    watch_index(server, checked.navigator.project.config.index_path)
                return
            # Stale: dropped.
            if state.navigator is None and checked.navigator is not None:
                # The first check: questions are answered from it while the newest text is checked.
                state.navigator = checked.navigator
                state.ready.set()
            if state.edited:
                asyncio.ensure_future(document_lane(server, state))
            if state.whole_urgent:
                continue
            owe_project_check(server, state)
            return
    finally:
        state.whole_running = False


def warm_up(server: MdmarkServer) -> None:
    """Check each workspace folder that is a project (its config in the folder itself) before the
    client opens anything: the first document opened is then answered by its own check."""
    for folder in server.folders():
        if (folder / "mdmark.config.yaml").is_file():
            state = server.state_for(server.uri_of(folder / "mdmark.config.yaml"), quiet=True)
            if state is not None and state.navigator is None:
                asyncio.ensure_future(project_lane(server, state))


def register(server: MdmarkServer) -> None:
    from mdmark.lsp import watch

    server.project_lane = project_lane

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MdmarkServer, params: types.InitializedParams) -> None:
        warm_up(ls)
        await watch.start(ls)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: MdmarkServer, params: types.DidChangeWatchedFilesParams) -> None:
        # One project check for however many files a checkout touched.
        for root in watch.roots_changed(ls, params):
            changed(ls, ls.projects[root], None, ls.debounce)

    def start(uri: str, delay: float, document: bool = True) -> None:
        state = server.state_for(uri)
        if state is not None:
            changed(server, state, server.path_of(uri) if document else None, delay)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MdmarkServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        state = ls.state_for(uri)
        path = ls.path_of(uri)
        if state is None or path is None:
            return
        if state.navigator is None and _as_on_disk(path, params.text_document.text):
            # The first project check (perhaps running since initialize) reads this very text and
            # publishes every open document: nothing to make it stale for. Should a change make
            # that check stale, the document is checked on its own once it lands.
            state.edited[path] = None
            asyncio.ensure_future(project_lane(server, state))
            return
        changed(ls, state, path, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MdmarkServer, params: types.DidChangeTextDocumentParams) -> None:
        start(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MdmarkServer, params: types.DidSaveTextDocumentParams) -> None:
        # The buffer was checked as typed; on disk now, it is what documents that {include} it read.
        uri = params.text_document.uri
        state = ls.state_for(uri, quiet=True)
        path = ls.path_of(uri)
        if state is None or path is None:
            return
        navigator = state.navigator
        if path.suffix != ".md" or navigator is None or _included(navigator, path):
            changed(ls, state, None, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MdmarkServer, params: types.DidCloseTextDocumentParams) -> None:
        # The file on disk is what counts again.
        start(params.text_document.uri, ls.debounce)


def _as_on_disk(path: Path, text: str) -> bool:
    # Regular and size-capped: the path is the client's, and a FIFO there would hold the server.
    from mdmark.util.files import read_regular

    try:
        return read_regular(path) == text.encode("utf-8", "surrogatepass")
    except (OSError, UnicodeError):
        return False


def _included(navigator: Navigator, path: Path) -> bool:
    try:
        rel = path.relative_to(navigator.srcdir).as_posix()
    except ValueError:
        return False
    return rel in navigator.model.included_files()
