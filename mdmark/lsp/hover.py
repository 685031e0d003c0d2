"""Hover: on a reference, the target's title and first paragraph; on a document's first line
(or its index entry), the index entry."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import hover as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Navigator, Span


def register(server: MdmarkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: MdmarkServer, params: types.HoverParams) -> types.Hover | None:
        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, str, Span] | None:
            found = nav.at(path, line, column)
            text = query.hover(nav, found) if found is not None else None
            return (nav, text, found.span) if text and found is not None else None

        answer = await ls.ask(params.text_document.uri, params.position, question)
        if answer is None:
            return None
        nav, text, span = answer
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=ls.to_range(span, nav)
        )
