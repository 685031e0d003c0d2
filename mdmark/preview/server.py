"""The preview's HTTP side: the page at ``/``, the reload events at ``/events``, uvicorn, Ctrl+C.

Same network rules as ``mdmark serve`` (its :class:`~mdmark.server.app.Guard`): loopback only,
421 for a foreign Host, 403 for a request with any Origin but the page's own. A builder thread
refreshes the :class:`~mdmark.preview.session.Preview` on each batch of saves and wakes the event
streams; an open page reloads when its version is no longer the served one.
"""

from __future__ import annotations

import asyncio
import gc
import queue
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError
from mdmark.preview.inject import page_policy
from mdmark.preview.session import Preview, unexpected
from mdmark.preview.watcher import Watcher

if TYPE_CHECKING:
    from pathlib import Path

    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp

HOST = "127.0.0.1"

#: An event stream sends a comment this often, so a page that went away is noticed.
HEARTBEAT_SECONDS = 15.0

#: How often an event stream looks whether the server is stopping.
POLL_SECONDS = 0.25


class Hub:
    """Wakes the event streams (in the server's loop) from the builder thread."""

    def __init__(self) -> None:
        self._waiting: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    def subscribe(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiting.add(entry)
        return entry

    def unsubscribe(self, entry: tuple[asyncio.AbstractEventLoop, asyncio.Event]) -> None:
        with self._lock:
            self._waiting.discard(entry)

    def notify(self) -> None:
        with self._lock:
            waiting = list(self._waiting)
        for loop, event in waiting:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed: the server is stopping
                pass


def create_app(preview: Preview, hub: Hub, port: int) -> ASGIApp:
    """The page and its event stream behind the MCP server's Host/Origin guard."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, PlainTextResponse, StreamingResponse
    from starlette.routing import Route

    from mdmark.serving.http import LOOPBACK_HOSTS, Guard

    def headers(extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", **(extra or {})}

    async def page(request: Request) -> Response:
        served = preview.served
        policy = page_policy(served.html)
        return HTMLResponse(served.html, headers=headers({"Content-Security-Policy": policy} if policy else None))

    async def events(request: Request) -> Response:
        known = request.query_params.get("v", "")

        async def stream() -> AsyncIterator[str]:
            nonlocal known
            loop = asyncio.get_running_loop()
            quiet_since = loop.time()
            yield "retry: 1000\n\n"
            while not hub.stopping.is_set():
                entry = hub.subscribe()
                try:
                    version = str(preview.served.version)
                    if version != known:
                        known = version
                        yield f"event: reload\ndata: {version}\n\n"
                        quiet_since = loop.time()
                        continue
                    if loop.time() - quiet_since >= HEARTBEAT_SECONDS:
                        yield ": \n\n"
                        quiet_since = loop.time()
                    try:
                        await asyncio.wait_for(entry[1].wait(), POLL_SECONDS)
                    except TimeoutError:
                        pass
                finally:
                    hub.unsubscribe(entry)

        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers())

    async def missing(request: Request) -> Response:
        return PlainTextResponse(
            f"`{request.url.path}` はプレビューに無いので、http://{HOST}:{port}/ を開いてください。\n",
            status_code=404,
            headers=headers(),
        )

    app = Starlette(
        routes=[
            Route("/", page, methods=["GET", "HEAD"]),
            Route("/events", events, methods=["GET"]),
            Route("/{rest:path}", missing, methods=["GET", "HEAD"]),
        ]
    )
    own = [f"http://{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]")]
    return Guard(
        app,
        LOOPBACK_HOSTS,
        own,
        port,
        host_message="Host がループバック（127.0.0.1・localhost・[::1]）ではないので、mdmark preview には "
        f"http://{HOST}:{port}/ でつないでください。",
        origin_message="ほかのページ（オリジン）からの要求は受け付けないので、プレビューは "
        f"http://{HOST}:{port}/ をブラウザで直に開いてください。",
    )


class Builder:
    """The thread that refreshes the preview for each batch of saves (one refresh at a time;
    saves that arrive during a refresh make one more refresh after it)."""

    def __init__(self, preview: Preview, hub: Hub, on_refresh: Callable[[], None] | None = None) -> None:
        self.preview = preview
        self.hub = hub
        self.on_refresh = on_refresh
        self._todo: queue.Queue[bool] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="mdmark-preview-build", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def changed(self, _paths: set[Path] | None = None) -> None:
        self._todo.put(True)

    def stop(self) -> None:
        self._todo.put(False)

    def _run(self) -> None:
        while self._todo.get():
            more = True
            while True:  # a burst of saves: one refresh for all that are already queued
                try:
                    more = self._todo.get_nowait()
                except queue.Empty:
                    break
                if not more:
                    return
            if self.hub.stopping.is_set():
                return
            try:
                if self.preview.refresh():
                    self.hub.notify()
            except Exception as exc:  # never stop the server: the sentence goes to the terminal
                print(f"mdmark preview: {unexpected(exc)}", file=sys.stderr, flush=True)
            if self.on_refresh is not None:
                self.on_refresh()


def serve(
    preview: Preview,
    port: int,
    *,
    open_browser: bool = False,
    build_progress: Callable[[int, int], None] | None = None,
    check_progress: Callable[[int, int], None] | None = None,
    after_cold: Callable[[], None] | None = None,
) -> int:
    """Bind, build cold (with progress), then serve and watch until SIGINT/SIGTERM; returns 0."""
    from mdmark.preview import PORT_ENV
    from mdmark.serving.http import bind, exit_soon, run_until_signal

    sock = bind(
        HOST,
        port,
        busy=f"ポート {port} はほかのプログラムが使っているので、動いている mdmark preview を止めるか、"
        f"--port か環境変数 {PORT_ENV} で別のポートを指定してください。",
    )
    actual = sock.getsockname()[1]
    hub = Hub()
    try:
        # Cold, before any thread runs: the worker processes can start by fork (pipeline/pool.py).
        preview.refresh(build_progress, check_progress)
    except BaseException:
        sock.close()
        raise
    # What the cold build parsed and rendered stays for the whole session: moved out of the
    # collector's sight, so a rebuild's full collections walk what it made, not every document
    # of the project again (measured: a tenth of a rebuild at 1,200 documents).
    gc.collect()
    gc.freeze()
    if after_cold is not None:
        after_cold()
    builder = Builder(preview, hub)
    watcher = Watcher(preview.roots(), builder.changed)
    builder.start()
    watcher.start()
    # A save during the cold build has no event of its own: one warm refresh catches it (and
    # reloads nothing when nothing changed).
    builder.changed()

    url = f"http://{HOST}:{actual}/"

    def announce() -> None:
        print(f"mdmark preview: {url} で見せています（止めるには Ctrl+C）。", file=sys.stderr, flush=True)
        if open_browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    app = create_app(preview, hub, actual)
    try:
        started = run_until_signal(app, sock, lifespan="off", grace=1, on_stop=hub.stopping.set, announce=announce)
    finally:
        hub.stopping.set()
        watcher.stop()
        builder.stop()
    if not started:
        raise MdmarkError("プレビューのサーバーを起動できなかったので、標準エラーに出た内容を確かめてください。")
    print("mdmark preview: 止めました。", file=sys.stderr, flush=True)
    # A refresh in the middle of a large rebuild is not waited for.
    exit_soon(1.0)
    # The collector would walk every parsed document once more on the way out: they are freed by
    # the exit itself.
    gc.freeze()
    return 0
