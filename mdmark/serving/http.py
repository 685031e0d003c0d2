"""The HTTP side both servers share (``mdmark serve`` and ``mdmark preview``): loopback only
(:class:`Guard`: the Host must be a loopback name, no Origin unless allowed), a socket bound
before anything starts (:func:`bind`: "port in use" is one sentence), uvicorn until a signal
(:func:`run_until_signal`) and a bounded exit (:func:`exit_soon`)."""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from mdmark.core.errors import MdmarkError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

#: Host header values (without the port) that reach a server; anything else is a DNS-rebinding attempt.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port (``[::1]:8782`` -> ``::1``), lower-cased."""
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def host_allowed(header: str, hosts: frozenset[str], port: int | None) -> bool:
    """Whether a ``Host`` header is exactly one of ``hosts``, with no port or with ``port``.

    Exact: ``localhost:evil``, ``localhost.evil.example`` or an empty Host are a rebinding attempt
    or a broken client, not this server's name. ``port`` None accepts any numeric port.
    """
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return False
        name, rest = value[1:end], value[end + 1 :]
    else:
        name, colon, port_text = value.partition(":")
        rest = f":{port_text}" if colon else ""
    if not name or name not in hosts:
        return False
    if not rest:
        return True
    digits = rest[1:]
    if not rest.startswith(":") or not digits.isascii() or not digits.isdigit():
        return False
    return port is None or int(digits) == port


def _origin_key(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


class Guard:
    """ASGI middleware in front of the SDK app: 421 for a non-loopback Host, 403 for any Origin,
    405 for ``GET /mcp`` (the server is stateless: there is no event stream to open).

    Claude Code sends no ``Origin``; every web page does. Refusing every Origin (not only foreign
    ones, as the SDK's own check does) means no page, local or remote, can drive the tools.
    """

    def __init__(
        self,
        app: ASGIApp,
        hosts: Iterable[str],
        origins: Iterable[str],
        port: int | None = None,
        *,
        host_message: str,
        origin_message: str,
        refused_get: str | None = None,
    ) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.port = port
        self.origins = frozenset(_origin_key(o) for o in origins)
        #: The answers' sentences: each front-end names itself (``mdmark serve``, ``mdmark preview``).
        self.host_message = host_message
        self.origin_message = origin_message
        #: ``GET /mcp``'s answer, for a stateless MCP endpoint (None: no such path).
        self.refused_get = refused_get

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            from starlette.datastructures import Headers
            from starlette.responses import PlainTextResponse

            headers = Headers(scope=scope)
            if not host_allowed(headers.get("host", ""), self.hosts, self.port):
                response = PlainTextResponse(self.host_message + "\n", status_code=421)
                await response(scope, receive, send)
                return
            origin = headers.get("origin")
            if origin is not None and _origin_key(origin) not in self.origins:
                response = PlainTextResponse(self.origin_message + "\n", status_code=403)
                await response(scope, receive, send)
                return
            if (
                self.refused_get is not None
                and scope["type"] == "http"
                and scope.get("method") == "GET"
                and scope.get("path", "").rstrip("/") == "/mcp"
            ):
                # A stateless server has no stream to open: the SDK would hold an empty one open.
                response = PlainTextResponse(self.refused_get + "\n", status_code=405, headers={"Allow": "POST"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def bind(host: str, port: int, busy: str, options: str = "--host と --port") -> socket.socket:
    """A listening socket, or one sentence: binding first makes "port in use" a clean exit 1.

    ``busy``: the sentence for a port in use (each front-end names its own option and variable);
    ``options``: what the user sets to choose the address."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise MdmarkError(f"待ち受けるアドレス `{host}` を引けない（{exc.strerror}）ので、--host を確かめてください。") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise MdmarkError(busy) from None
        raise MdmarkError(
            f"{host} のポート {port} で待ち受けられない（{exc.strerror}）ので、{options}を確かめてください。"
        ) from None
    sock.set_inheritable(True)
    return sock

def run_until_signal(
    app: ASGIApp,
    sock: socket.socket,
    *,
    lifespan: Literal["on", "off"],
    grace: int,
    on_stop: Callable[[], None],
    announce: Callable[[], None],
) -> bool:
    """Serve ``app`` on ``sock`` with uvicorn until SIGINT/SIGTERM; whether the server started.

    ``on_stop`` runs as soon as a stop is asked (before uvicorn's graceful shutdown waits for
    anything), from uvicorn's handler or from ours: a signal before uvicorn has put in its own
    handlers would otherwise be lost. uvicorn re-raises the signal it caught once it has stopped;
    noted here instead of the default action, the exit is 0. ``announce`` says where the server
    listens once the signals are ours, so whoever reads that line may stop it at once."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            on_stop()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan=lifespan, timeout_graceful_shutdown=grace)
    server = Server(config)

    def note(_signum: int, _frame: object) -> None:
        on_stop()
        server.should_exit = True

    previous = {sig: signal.signal(sig, note) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        announce()
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    return bool(server.started)


def exit_soon(seconds: float = 3.0) -> None:
    """Leave within ``seconds`` even if the interpreter's exit would wait: a call stuck in C code
    (where a stop cannot reach), or a worker pool being joined, must not keep a stopped server alive."""
    sys.stdout.flush()
    timer = threading.Timer(seconds, os._exit, (0,))
    timer.daemon = True
    timer.start()
