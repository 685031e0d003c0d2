"""``mdmark lsp``: the language server with every feature registered, on stdin/stdout."""

from __future__ import annotations

import logging

from mdmark.lsp import actions, completion, definition, diagnostics, hover, references, rename, symbols
from mdmark.lsp.server import MdmarkServer


def build() -> MdmarkServer:
    """The server with every feature registered."""
    server = MdmarkServer()
    for module in (diagnostics, definition, references, hover, completion, symbols, rename, actions):
        module.register(server)
    return server


def main() -> int:
    """``mdmark lsp``: serve the client on stdin/stdout until it exits."""
    logging.basicConfig(level=logging.WARNING, format="mdmark lsp: %(message)s")
    build().start_io()
    return 0
