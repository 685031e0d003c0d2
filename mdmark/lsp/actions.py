"""Code actions: the quick fixes a drift's sentence proposes ("近い X に直す", the title in the
index or the heading, the missing index entry), as edits the user accepts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import fixes as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Fix, Navigator


def register(server: MdmarkServer) -> None:
    from mdmark.lsp.diagnostics import SOURCE
    from mdmark.lsp.rename import workspace_edit

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )
    async def code_actions(ls: MdmarkServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        state = ls.state_for(uri, quiet=True)
        path = ls.path_of(uri)
        if state is None or path is None:
            return None
        wanted = [d for d in params.context.diagnostics if d.source == SOURCE]
        stored = state.drifts.get(path, [])

        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[tuple[types.Diagnostic, Fix]]]:
            out: list[tuple[types.Diagnostic, Fix]] = []
            for shown in wanted:
                for drift, span in stored:
                    if drift.message == shown.message and str(drift.kind) == shown.code:
                        out.extend((shown, fix) for fix in query.fixes(nav, drift, span))
                        break
            return nav, out

        answer = await ls.ask(uri, None, question)
        if answer is None:
            return None
        nav, fixes = answer
        return [
            types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[shown],
                edit=workspace_edit(ls, nav, list(fix.edits)),
            )
            for shown, fix in fixes
        ]
