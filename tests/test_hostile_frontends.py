"""The attack corpus (``tests/hostile/``, see :mod:`test_hostile`) through the other front-ends.

:mod:`test_hostile` runs every attack through the CLI, the MCP tools of one shared ``mdmark serve``
over HTTP, a fresh ``mdmark serve --stdio`` and ``sphinx-build``. Here and in the two modules
beside it the same staged copies go through the front-ends that stay up and serve many projects, one
server per front-end for the whole module:

- ``mdmark lsp`` with pytest-lsp (here): each document opened, its diagnostics received, its symbols
  asked; then a fresh clean project's document gets no diagnostic.
- ``mdmark serve --stdio --project CLEAN`` with the MCP SDK client (:mod:`test_hostile_stdio`).
- The preview, which serves one project per process (:mod:`test_hostile_preview`).

Each is a module of its own, so the test workers run them side by side (a module runs whole in one
worker).

Each run asserts what :mod:`test_hostile` asserts of an answer (no traceback, no internal error,
no secret, a refusal in Japanese sentences), no marker file created, no byte changed outside the
project's outputs, and the server answering afterwards.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_hostile import ATTACKS, LIMITS_ENV, Attack, Scene, assert_answer, config, documents, snapshot, stage
from test_mcp import make_project

#: Where the language server's standard error goes (pytest-lsp would only forward it).
LSP_LOG = Path(tempfile.gettempdir()) / f"mdmark-hostile-lsp-{os.getpid()}.err"
_SHARED: dict[str, Path] = {}


def shared_folder(factory: pytest.TempPathFactory) -> Path:
    """One folder for the module: the language server's workspace holds every staged attack."""
    if "root" not in _SHARED:
        _SHARED["root"] = factory.mktemp("hostile-frontends")
    return _SHARED["root"]


def staged(attack: Attack, folder: Path) -> Scene:
    root = folder / attack.name
    root.mkdir()
    return stage(attack, root, folder / "cache")


def changed_outside(scene: Scene, before: dict[str, str], outputs: tuple[str, ...]) -> list[tuple[str, str]]:
    """Files (relative to the scene's root) added, removed or changed, outside ``outputs``."""

    def kept(files: dict[str, str]) -> set[tuple[str, str]]:
        return {(rel, digest) for rel, digest in files.items() if not any(rel == o or rel.startswith(o + "/") for o in outputs)}

    return sorted(kept(before) ^ kept(snapshot(scene.root, ())))


def assert_untouched(attack: Attack, scene: Scene, before: dict[str, str], outputs: tuple[str, ...]) -> None:
    for dirpath, dirnames, filenames in os.walk(scene.root):
        for marker in attack.markers:
            assert marker not in filenames and marker not in dirnames, f"{attack.name}: {marker} created in {dirpath}"
    changed = changed_outside(scene, before, outputs)
    assert not changed, f"{attack.name}: files changed outside the outputs: {changed[:10]}"


def build_out(scene: Scene) -> tuple[str, ...]:
    """The config's ``build.out`` and its folder, relative to the scene's root (when inside it)."""
    build = config(scene.repo).get("build")
    out = build.get("out") if isinstance(build, dict) else None
    if not isinstance(out, str) or os.path.isabs(out):
        return ()
    target = Path(os.path.normpath(scene.repo / out))
    if not target.is_relative_to(scene.root):
        return ()
    return (str(target.relative_to(scene.root)), str(target.parent.relative_to(scene.root)))


# -- the language server ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_folder(tmp_path_factory)


def _lsp_env() -> dict[str, str]:
    cache = Path(tempfile.gettempdir()) / f"mdmark-hostile-lsp-cache-{os.getpid()}"
    return {**os.environ, **LIMITS_ENV, "MDMARK_LSP_DEBOUNCE": "0.05", "XDG_CACHE_HOME": str(cache), "NO_COLOR": "1"}


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(
        server_command=["sh", "-c", 'exec "$0" -m mdmark lsp 2>"$1"', sys.executable, str(LSP_LOG)],
        server_env=_lsp_env(),
    ),
)
async def lsp(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[LanguageClient]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        pass  # the file watches the server asks for: the tests edit no file behind its back

    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="hostile")],
        root_uri=workspace.as_uri(),
    )
    await lsp_client.initialize_session(params)
    yield lsp_client
    await lsp_client.shutdown_session()
    log = LSP_LOG.read_text(encoding="utf-8", errors="replace") if LSP_LOG.exists() else ""
    LSP_LOG.unlink(missing_ok=True)
    shutil.rmtree(_lsp_env()["XDG_CACHE_HOME"], ignore_errors=True)
    assert "Traceback" not in log, log[-3000:]


async def published(client: LanguageClient, path: Path, timeout: float = 180) -> list[types.Diagnostic]:
    """The diagnostics of ``path`` once the server has published them (and stopped changing them)."""
    uri = path.resolve().as_uri()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while uri not in client.diagnostics:
        assert loop.time() < deadline, f"no diagnostics for {path}"
        await asyncio.sleep(0.05)
    last = None
    while last != client.diagnostics[uri]:
        last = client.diagnostics[uri]
        await asyncio.sleep(0.5)
    return list(last)


def open_doc(client: LanguageClient, path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=path.resolve().as_uri(), language_id="markdown", version=1, text=text))
    )


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", ATTACKS)
async def test_language_server(name: str, lsp: LanguageClient, workspace: Path) -> None:
    attack = Attack.load(name)
    scene = staged(attack, workspace)
    before = snapshot(scene.root, ())
    told = len(lsp.messages) + len(lsp.log_messages)
    for doc in documents(scene.repo):
        open_doc(lsp, doc)
        diagnostics = await published(lsp, doc)
        for diagnostic in diagnostics:
            assert_answer(scene, f"lsp {doc.name}", diagnostic.message, refusal=True)
        symbols = await lsp.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=doc.resolve().as_uri()))
        )
        assert_answer(scene, f"lsp symbols {doc.name}", json.dumps([getattr(s, "name", "") for s in symbols or []], ensure_ascii=False), refusal=False)
        lsp.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=doc.resolve().as_uri())))
    for message in [*lsp.messages, *lsp.log_messages][told:]:
        assert_answer(scene, "lsp message", message.message, refusal=True)

    # The server still checks another project: a fresh clean one has no diagnostic.
    clean = make_project(workspace / f"clean-{name}")
    open_doc(lsp, clean / "docs" / "cli.md")
    assert await published(lsp, clean / "docs" / "cli.md") == []
    assert lsp.error is None, lsp.error
    assert_untouched(attack, scene, before, ())

