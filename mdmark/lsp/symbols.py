"""Document symbols (the ``outline`` tool's sections, nested) and workspace symbols (documents,
labels and terms, matched as ``find_docs`` text matches)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import symbols as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Navigator, Symbol

_KINDS = {
    "heading": types.SymbolKind.String,
    "doc": types.SymbolKind.File,
    "label": types.SymbolKind.Key,
    "term": types.SymbolKind.Constant,
}


def register(server: MdmarkServer) -> None:
    def to_document_symbol(symbol: Symbol, nav: Navigator) -> types.DocumentSymbol:
        from mdmark.queries.navigation.navigator import Span

        lines = ls_lines = server.lines_of(symbol.span.path, nav)
        last = min(symbol.end_line, len(ls_lines)) or symbol.span.line
        whole = Span(symbol.span.path, symbol.span.line, 0, 0)
        full = server.to_range(whole, nav)
        end = server.to_range(Span(symbol.span.path, last, len(lines[last - 1]) if 0 < last <= len(lines) else 0, len(lines[last - 1]) if 0 < last <= len(lines) else 0), nav)
        return types.DocumentSymbol(
            name=symbol.name,
            kind=_KINDS.get(symbol.kind, types.SymbolKind.String),
            range=types.Range(full.start, end.end),
            selection_range=server.to_range(symbol.span, nav),
            detail=symbol.detail or None,
            children=[to_document_symbol(child, nav) for child in symbol.children],
        )

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def document_symbols(ls: MdmarkServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[Symbol]]:
            return nav, query.document_symbols(nav, path)

        answer = await ls.ask(params.text_document.uri, None, question)
        if answer is None:
            return None
        return [to_document_symbol(symbol, answer[0]) for symbol in answer[1]]

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbols(ls: MdmarkServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        out: list[types.WorkspaceSymbol] = []
        for state in list(ls.projects.values()):
            nav = state.navigator
            if nav is None:
                continue
            uri = ls.uri_of(nav.project.root)

            def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[Symbol]]:
                return nav, query.workspace_symbols(nav, params.query)

            import asyncio

            loop = asyncio.get_running_loop()
            try:
                _, found = await loop.run_in_executor(ls.queries, question, nav, nav.project.root, 1, 0)
            except Exception:  # one project's failure leaves the others' answers
                import logging

                logging.getLogger(__name__).exception("mdmark lsp: workspace symbols failed")
                continue
            del uri
            for symbol in found:
                out.append(
                    types.WorkspaceSymbol(
                        name=symbol.name,
                        kind=_KINDS.get(symbol.kind, types.SymbolKind.String),
                        location=ls.location(symbol.span, nav),
                        container_name=symbol.detail or None,
                    )
                )
        return out
