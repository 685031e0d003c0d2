"""Find references: for a heading, label, term, document (anywhere in it) or index id, every
place that refers to it across the documents and the index."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import references as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Navigator, Span


def register(server: MdmarkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: MdmarkServer, params: types.ReferenceParams) -> list[types.Location] | None:
        with_definition = params.context.include_declaration

        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[Span]]:
            found = nav.at(path, line, column)
            return nav, (query.references(nav, found, with_definition) if found is not None else [])

        answer = await ls.ask(params.text_document.uri, params.position, question)
        if answer is None:
            return None
        return [ls.location(span, answer[0]) for span in answer[1]]
