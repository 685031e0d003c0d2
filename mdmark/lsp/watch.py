"""Files changed on disk outside the editor (a git checkout, another tool, an agent writing files):
the server asks the client to watch the files a check reads (``workspace/didChangeWatchedFiles``,
registered dynamically when the client can) and checks each project they belong to again; a
deleted document's diagnostics are cleared by that check.

A client that cannot register watchers may still send the notification (configured by the user):
it is answered the same way.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from mdmark.lsp.server import MdmarkServer

log = logging.getLogger(__name__)

#: What a check reads besides the open buffers: documents, the index, the config, Sphinx's conf.py.
#: An index under another name is watched once its project is known (:func:`watch_index`).
GLOBS = ("**/*.md", "**/index.yaml", "**/mdmark.config.yaml", "**/conf.py")
REGISTRATION = "mdmark-watched-files"


def watchers(globs: tuple[str, ...]) -> types.DidChangeWatchedFilesRegistrationOptions:
    return types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=g) for g in globs])


def can_register(server: MdmarkServer) -> bool:
    workspace = server.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def register_watchers(server: MdmarkServer, key: str, globs: tuple[str, ...]) -> None:
    """Ask the client to watch ``globs``; a client that refuses is logged, the buffers still count."""
    registration = types.Registration(id=key, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=watchers(globs))
    try:
        await server.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception:  # the client's answer: nothing the user can act on
        log.warning("mdmark lsp: the client did not register file watchers", exc_info=True)


async def start(server: MdmarkServer) -> None:
    """Once the client is initialized: ask it to watch what a check reads."""
    if can_register(server):
        await register_watchers(server, REGISTRATION, GLOBS)


def watch_index(server: MdmarkServer, index: Path | None) -> None:
    """Watch a project's index when :data:`GLOBS` do not name it (``index: kb.yaml``)."""
    if index is None or index.name == "index.yaml" or not can_register(server):
        return
    glob = f"**/{index.name}"
    if glob in server.watched:
        return
    server.watched.add(glob)
    asyncio.ensure_future(register_watchers(server, f"{REGISTRATION}-{len(server.watched)}", (glob,)))


def affected(server: MdmarkServer, path: Path) -> list[Path]:
    """The roots of the projects a file on disk can change the check of: those it lies in."""
    return [root for root in server.projects if path.is_relative_to(root)]


def roots_changed(server: MdmarkServer, params: types.DidChangeWatchedFilesParams) -> list[Path]:
    """The roots of the projects whose check the files of ``params`` change: an open buffer is
    what the check reads, whatever the disk says — unless the file went."""
    roots: set[Path] = set()
    opened = {server.path_of(uri) for uri in list(server.workspace.text_documents)}
    for event in params.changes:
        path = server.path_of(event.uri)
        if path is None or (event.type == types.FileChangeType.Changed and path in opened):
            continue
        roots.update(affected(server, path))
    return sorted(roots)
