"""The attack corpus (``tests/hostile/``, see :mod:`test_hostile`) through one long-running
``mdmark serve --stdio --project CLEAN`` with the MCP SDK client: ``check``, ``read_doc`` and
``export_html`` of each document, ``build_site`` when the config has ``build``; then a ``check``
without ``project_dir`` answers the clean default project.

It asserts what :mod:`test_hostile_frontends` asserts of the language server (a module of its own,
so the test workers run the two side by side).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TextIO

import pytest
from test_hostile import ATTACKS, LIMITS_ENV, Attack, assert_answer, assert_expected, config, documents, snapshot
from test_hostile_frontends import assert_untouched, build_out, staged
from test_mcp import make_project


# -- MCP over stdio --------------------------------------------------------------------------------------


class StdioServer:
    """One ``mdmark serve --stdio --project CLEAN`` and its MCP SDK session, held by an event loop in
    a thread of its own, so the parametrized tests share it."""

    def __init__(self, clean: Path, cwd: Path, env: dict[str, str], errlog: TextIO) -> None:
        self.clean = clean
        self.errlog = errlog
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="hostile-stdio", daemon=True)
        self.thread.start()
        self.ready: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.held = asyncio.run_coroutine_threadsafe(self._hold(cwd, env), self.loop)
        self.client = self.ready.result(timeout=180)

    async def _hold(self, cwd: Path, env: dict[str, str]) -> None:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self.stopping = asyncio.Event()
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "mdmark", "serve", "--stdio", "--project", str(self.clean)], cwd=str(cwd), env=env
        )
        try:
            async with Client(stdio_client(params, errlog=self.errlog), read_timeout_seconds=240) as client:
                self.ready.set_result(client)
                await self.stopping.wait()
        except BaseException as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
            raise

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """The tool's text blocks joined, and whether it is an error."""
        result = asyncio.run_coroutine_threadsafe(self.client.call_tool(name, arguments), self.loop).result(timeout=300)
        return "\n".join(block.text for block in result.content if block.type == "text"), bool(result.is_error)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.held.result(timeout=60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.loop.close()


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioServer]:
    folder = tmp_path_factory.mktemp("hostile-stdio")
    clean = make_project(folder / "clean")
    env = {**os.environ, **LIMITS_ENV, "XDG_CACHE_HOME": str(folder / "cache"), "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    with ExitStack() as stack:
        errlog = stack.enter_context((folder / "stdio.err").open("w", encoding="utf-8"))
        server = StdioServer(clean, folder, env, errlog)
        text, error = server.call("check", {})
        assert not error and json.loads(text)["issues"] == [], text
        yield server
        server.close()
    log = (folder / "stdio.err").read_text(encoding="utf-8")
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.parametrize("name", [a for a in ATTACKS if "mcp" in Attack.load(a).runs])
def test_stdio_project(name: str, stdio: StdioServer, tmp_path: Path) -> None:
    attack = Attack.load(name)
    scene = staged(attack, tmp_path)
    before = snapshot(scene.root, ())
    project = {"project_dir": str(scene.repo)}

    def tool(tool_name: str, **arguments: Any) -> str:
        text, error = stdio.call(tool_name, {**arguments, **project})
        assert_answer(scene, f"stdio {tool_name} {arguments}", text, refusal=error)
        return text

    assert_expected("stdio check", tool("check"), attack.expect)
    for doc in documents(scene.repo):
        rel = doc.relative_to(scene.repo).as_posix()
        assert_expected(f"stdio read_doc {rel}", tool("read_doc", target=rel), attack.expect_read_doc)
        tool("export_html", file=rel, out=f"mdmark-out/{doc.stem}.html")
    if "build" in config(scene.repo):
        tool("build_site")

    # The default project of --project is still answered, with nothing of the attack in it.
    text, error = stdio.call("check", {})
    assert not error and json.loads(text)["issues"] == [], text
    assert not scene.leaks(Path(stdio.errlog.name).read_text(encoding="utf-8")), f"{name}: the secret reached the server's log"
    assert_untouched(attack, scene, before, ("work/repo/mdmark-out", *build_out(scene)))
