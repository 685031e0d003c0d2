"""The server object: projects by config folder, the worker threads, position conversion, and
the one way a handler asks the library something (:meth:`MdmarkServer.ask`)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from mdmark import __version__
from mdmark.core.errors import MdmarkError
from mdmark.lsp.state import ProjectState

if TYPE_CHECKING:
    from mdmark.queries.navigation.navigator import Navigator, Span

T = TypeVar("T")
log = logging.getLogger(__name__)

#: Seconds a change waits for the next one before it is checked (``MDMARK_LSP_DEBOUNCE``). Short:
#: a keystroke comes every 100 ms or more, and the document lane checks only the newest text when
#: it is free (never a queue), so the wait only gathers the changes a client sends together (an
#: edit and its auto-closed bracket, a multi-cursor edit, an agent's several edits to one file).
DEBOUNCE = "0.02"
#: Seconds without a change before the rest of the project is checked after an edit that changed
#: what other files can refer to (``MDMARK_LSP_SETTLE``); the edited document is answered before.
SETTLE = "0.3"

#: File suffixes whose buffers the check reads (documents, the index, the config).
CHECKED_SUFFIXES = (".md", ".yaml", ".yml")


class MdmarkServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("mdmark", __version__)
        #: Projects by config folder: one per project folder the client opens documents in.
        self.projects: dict[Path, ProjectState] = {}
        #: Checks run one at a time (they share one Sphinx application per project).
        self.checks = ThreadPoolExecutor(1, thread_name_prefix="mdmark-check")
        #: One edited document's own drifts, beside a running project check (:func:`diagnostics.document_lane`).
        self.quick = ThreadPoolExecutor(1, thread_name_prefix="mdmark-quick")
        #: Navigation answers from the last check's results, beside a running check.
        self.queries = ThreadPoolExecutor(1, thread_name_prefix="mdmark-query")
        #: File patterns the client was asked to watch beyond :data:`mdmark.lsp.watch.GLOBS`.
        self.watched: set[str] = set()
        #: Sentences already shown with window/showMessage (each once).
        self.told: set[str] = set()
        #: What checks a project the first time a question needs it: the diagnostics feature's
        #: project lane, registered with it (a question never imports a feature).
        self.project_lane: Callable[[MdmarkServer, ProjectState], Coroutine[Any, Any, None]] | None = None
        #: Seconds a change waits for the next one before it is checked.
        self.debounce = float(os.environ.get("MDMARK_LSP_DEBOUNCE", DEBOUNCE))
        #: Seconds without a change before the rest of the project is checked after such an edit.
        self.settle = float(os.environ.get("MDMARK_LSP_SETTLE", SETTLE))

    # -- messages -----------------------------------------------------------------------------

    def say(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """One sentence to the user (window/showMessage), once per sentence."""
        if message in self.told:
            return
        self.told.add(message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    # -- files and projects -------------------------------------------------------------------

    @staticmethod
    def path_of(uri: str) -> Path | None:
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        return Path(unquote(parsed.path)).resolve()

    @staticmethod
    def uri_of(path: Path) -> str:
        return from_fs_path(str(path)) or path.as_uri()

    def folders(self) -> list[Path]:
        found = []
        for folder in (self.workspace.folders or {}).values():
            path = self.path_of(folder.uri)
            if path is not None:
                found.append(path)
        root = self.workspace.root_uri
        if not found and root:
            path = self.path_of(root)
            if path is not None:
                found.append(path)
        return found

    def state_for(self, uri: str, quiet: bool = False) -> ProjectState | None:
        """The project of a document: its config found upward from its folder, as the CLI finds it.
        None (and one sentence, unless ``quiet``) for a file outside the workspace or without a config."""
        from mdmark.config.main import find_config

        path = self.path_of(uri)
        if path is None:
            return None
        folders = self.folders()
        if folders and not any(path.is_relative_to(f) for f in folders):
            if not quiet:
                self.say(
                    f"`{path}` は開いているワークスペースのフォルダの外にあるので、mdmark は点検しません"
                    "（そのフォルダをワークスペースに加えてください）。",
                    types.MessageType.Info,
                )
            return None
        config = find_config(path.parent)
        if config is None:
            if not quiet:
                self.say(
                    f"`{path.name}` から上のどのフォルダにも mdmark.config.yaml が無いので、mdmark は点検しません"
                    "（`mdmark init` で置いてください）。",
                    types.MessageType.Info,
                )
            return None
        root = config.parent.resolve()
        state = self.projects.get(root)
        if state is None:
            state = self.projects[root] = ProjectState(root)
        return state

    def open_texts(self, root: Path) -> dict[Path, str]:
        """The buffers the client has open under ``root``, by resolved path: what the check reads
        instead of the files."""
        texts: dict[Path, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            path = self.path_of(uri)
            if path is None or not path.is_relative_to(root) or not path.name.endswith(CHECKED_SUFFIXES):
                continue
            texts[path] = document.source
        return texts

    # -- positions ----------------------------------------------------------------------------

    def lines_of(self, path: Path, navigator: Navigator | None) -> list[str]:
        document = self.workspace.text_documents.get(self.uri_of(path))
        if document is not None:
            lines: list[str] = document.lines
            return lines
        return navigator.lines(path) if navigator is not None else []

    def to_range(self, span: Span, navigator: Navigator | None) -> types.Range:
        lines = self.lines_of(span.path, navigator)
        codec = self.workspace.position_codec
        start = codec.position_to_client_units(lines, types.Position(max(span.line - 1, 0), span.start))
        end = codec.position_to_client_units(lines, types.Position(max(span.line - 1, 0), span.end))
        return types.Range(start, end)

    def location(self, span: Span, navigator: Navigator | None) -> types.Location:
        return types.Location(self.uri_of(span.path), self.to_range(span, navigator))

    def from_position(self, uri: str, position: types.Position) -> tuple[int, int]:
        """(1-based line, code-point column) of a client position."""
        document = self.workspace.get_text_document(uri)
        codec = self.workspace.position_codec
        server = codec.position_from_client_units(document.lines, position)
        return server.line + 1, server.character

    # -- asking the library ----------------------------------------------------------------------

    async def navigator(self, uri: str) -> tuple[ProjectState, Navigator] | None:
        """The project of ``uri`` and the navigator of its last check (waiting for the first)."""
        state = self.state_for(uri, quiet=True)
        if state is None:
            return None
        if state.navigator is None and self.project_lane is not None:
            asyncio.ensure_future(self.project_lane(self, state))
            await state.ready.wait()
        return (state, state.navigator) if state.navigator is not None else None

    async def ask(
        self, uri: str, position: types.Position | None, question: Callable[[Navigator, Path, int, int], T]
    ) -> T | None:
        """``question(navigator, path, line, column)`` on the query thread; a library error is one
        sentence to the user, anything else is logged — the server keeps answering either way."""
        found = await self.navigator(uri)
        path = self.path_of(uri)
        if found is None or path is None:
            return None
        line, column = self.from_position(uri, position) if position is not None else (1, 0)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.queries, question, found[1], path, line, column)
        except MdmarkError as exc:
            self.say(exc.message)
        except Exception:  # a bug must not stop the server: logged, the request answers nothing
            log.exception("mdmark lsp: a request failed")
        return None
