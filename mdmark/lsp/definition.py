"""Go to definition: a reference ({ref}, {doc}, {term}, {eq}, a Markdown link, a toctree entry,
an index id or tag) → where its target is defined."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import definition as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Navigator, Span


def register(server: MdmarkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: MdmarkServer, params: types.DefinitionParams) -> list[types.Location] | None:
        def question(nav: Navigator, path: Path, line: int, column: int) -> tuple[Navigator, list[Span]]:
            found = nav.at(path, line, column)
            return nav, (query.definition(nav, found) if found is not None else [])

        answer = await ls.ask(params.text_document.uri, params.position, question)
        if answer is None or not answer[1]:
            return None
        return [ls.location(span, answer[0]) for span in answer[1]]
