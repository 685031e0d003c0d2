"""Completion: documents in links, {doc} and toctrees; labels in {ref}/{numref}; terms in {term};
equations in {eq}; anchors after ``#``; ids and tags in the index; directive names and their
options from the project's Sphinx application."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from mdmark.queries.navigation import completion as query

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer
    from mdmark.queries.navigation.navigator import Completion, Navigator

_KINDS = {
    "doc": types.CompletionItemKind.File,
    "label": types.CompletionItemKind.Reference,
    "anchor": types.CompletionItemKind.Reference,
    "term": types.CompletionItemKind.Text,
    "eq": types.CompletionItemKind.Reference,
    "id": types.CompletionItemKind.Value,
    "tag": types.CompletionItemKind.EnumMember,
    "directive": types.CompletionItemKind.Keyword,
    "option": types.CompletionItemKind.Property,
}
TRIGGERS = ["{", "`", "(", "#", "/", ":", "<", "[", " "]


def register(server: MdmarkServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS))
    async def completion(ls: MdmarkServer, params: types.CompletionParams) -> types.CompletionList | None:
        state = ls.state_for(params.text_document.uri, quiet=True)

        def question(nav: Navigator, path: Path, line: int, column: int) -> list[Completion]:
            if state is not None and state.directives is None and path.suffix == ".md":
                state.directives = nav.project.pipeline.directives()
            # The buffer as typed now, not as the last check saw it.
            text = ls.workspace.get_text_document(params.text_document.uri).source
            return query.complete(nav, path, line, column, state.directives if state is not None else None, text)

        found = await ls.ask(params.text_document.uri, params.position, question)
        if found is None:
            return None
        items = [
            types.CompletionItem(
                label=item.label, kind=_KINDS.get(item.kind), detail=item.detail or None, insert_text=item.insert
            )
            for item in found
        ]
        return types.CompletionList(is_incomplete=False, items=items)
