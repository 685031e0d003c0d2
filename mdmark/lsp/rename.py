"""Rename a label or a heading's anchor: one workspace edit over its definition and every reference."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import rename as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Edit, Found, Navigator


def register(server: MdmarkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    async def prepare(ls: MdmarkServer, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, Found] | None:
            found = query.rename_target(nav, path, line, column)
            return (nav, found) if found is not None else None

        answer = await ls.ask(params.text_document.uri, params.position, question)
        if answer is None:
            return None
        nav, found = answer
        placeholder = found.thing.name or found.thing.anchor or ""
        return types.PrepareRenamePlaceholder(range=ls.to_range(found.span, nav), placeholder=placeholder)

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    async def rename(ls: MdmarkServer, params: types.RenameParams) -> types.WorkspaceEdit | None:
        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[Edit]] | None:
            found = query.rename_target(nav, path, line, column)
            if found is None:
                return None
            return nav, query.rename(nav, found, params.new_name)

        answer = await ls.ask(params.text_document.uri, params.position, question)
        if answer is None:
            return None
        return workspace_edit(ls, answer[0], answer[1])


def workspace_edit(server: MdmarkServer, nav: Navigator, edits: list[Edit]) -> types.WorkspaceEdit:
    """The edits as one LSP workspace edit (a whole-file replacement spans the file's text)."""
    from mdmark.queries.navigation.navigator import Span, whole_file_text

    changes: dict[str, list[types.TextEdit]] = {}
    for edit in edits:
        whole = whole_file_text(edit)
        if whole is not None:
            lines = server.lines_of(edit.span.path, nav)
            last = len(lines) or 1
            end = server.to_range(Span(edit.span.path, last, len(lines[-1]) if lines else 0, len(lines[-1]) if lines else 0), nav)
            # Past the last line: a final newline is replaced too.
            rng = types.Range(types.Position(0, 0), types.Position(end.end.line + 1, 0))
            changes.setdefault(server.uri_of(edit.span.path), []).append(types.TextEdit(range=rng, new_text=whole))
            continue
        changes.setdefault(server.uri_of(edit.span.path), []).append(
            types.TextEdit(range=server.to_range(edit.span, nav), new_text=edit.text)
        )
    return types.WorkspaceEdit(changes=changes)
