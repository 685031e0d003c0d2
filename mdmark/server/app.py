"""The MCP server behind ``mdmark serve``: the low-level SDK server, the HTTP guard, uvicorn and stdio.

The low-level server (not MCPServer) is used so that mdmark owns the ``tools/list`` schemas
(``project_dir`` is accepted but hidden), the argument checks (every mistake is an ``isError``
result with one Japanese sentence, never a JSON-RPC error) and the exact result shape.

Each tool call runs in a thread of its own (:mod:`mdmark.server.limits`), so a long
``build_site`` does not hold up a ``find_docs`` of another session, and a call that outlives its
time bound is answered with an error and stopped. Documents are parsed and rendered only in the
bounded worker processes of :mod:`mdmark.pipeline.pool` (started with the server, killed and
replaced when a call is stopped or a document passes a bound), so no lock is held here across a
parse; the parse results stay in the process-wide registry, so every call after the first is warm.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mdmark import __version__
from mdmark.core.errors import MdmarkError
from mdmark.util.bounds import value_problem
from mdmark.util.text import terminal_safe
from mdmark.server.limits import Job, call_seconds, stop_all, stopping_message, timeout_message
from mdmark.server.prompts import register_prompts
from mdmark.tools.registry import TOOLS, TOOLS_BY_NAME, call_tool, internal_error_message, unknown_tool_message
from mdmark.tools.session_project import PROJECT_HEADER, request_project, with_project
from mdmark.declare.tool import ToolOutcome, error
from mdmark.pipeline.pool import prestart
from mdmark.serving.http import LOOPBACK_HOSTS, Guard, bind, exit_soon, host_name, run_until_signal

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from starlette.types import ASGIApp

    from mdmark.tools.resources import Entry

#: Opens the line of the instructions that lists the guide's pages (the plugin's SessionStart hook
#: copies the ``- name: title — description`` lines under it).
GUIDE_HEADING = "使い方集のページ（read_guide の names に渡す名前）:"


T = TypeVar("T")


def instructions(project: Path | None = None) -> str:
    """The server's ``instructions``: what mdmark is, the ``project_dir`` rule every client needs
    (the plugin's hook fills it in for Claude Code; other clients must pass it themselves, and the
    input schemas do not show it) or the server's own project when it has one (``--project``, the
    working folder of ``serve --stdio``), the resources, and the guide's pages."""
    from mdmark.guide.reader import guide_entries
    from mdmark.tools.resources import CHECK_URI, DOC_TEMPLATE, GUIDE_PREFIX, SECTION_TEMPLATE

    if project is None:
        rule = (
            "read_guide 以外のツールは、作業のフォルダ（設定ファイルや文書の相対パスの起点）の絶対パスを引数 project_dir に入れて呼ぶ"
            "（入力スキーマには出ないが受け付ける。Claude Code のプラグインはフックで自動で入れる。"
            f"HTTP の URL の ?project= か {PROJECT_HEADER} ヘッダーがフォルダを示していれば、省いた project_dir はそのフォルダになる）。read_guide は project_dir を取らない。"
        )
    else:
        rule = (
            f"このサーバーの作業のフォルダは `{project}` で、read_guide 以外のツールは project_dir を省くとそこで動く"
            "（ほかのフォルダを扱うときだけ、その絶対パスを引数 project_dir に入れる。入力スキーマには出ないが受け付ける）。"
        )
    lines = [
        "mdmark: Markdown の設計文書と YAML の索引を扱うツール。",
        rule,
        f"資源（resources）: 文書 {DOC_TEMPLATE}・節 {SECTION_TEMPLATE}・使い方集 {GUIDE_PREFIX}<名前>・ずれの一覧 {CHECK_URI}。",
        "使い方は read_guide で使い方集を読む。",
        GUIDE_HEADING,
    ]
    lines += [
        f"- {entry.name}: {entry.title}" + (f" — {entry.description}" if entry.description else "")
        for entry in guide_entries()
    ]
    return "\n".join(lines)


def tool_list() -> list[mcp_types.Tool]:
    import mcp_types

    return [
        mcp_types.Tool.model_validate(
            {
                "name": spec.name,
                "title": spec.title,
                "description": spec.description,
                "inputSchema": spec.input_schema(),
                **({"outputSchema": spec.output_schema} if spec.output_schema is not None else {}),
                "annotations": spec.annotations(),
            }
        )
        for spec in TOOLS
    ]


def connection_project(ctx: ServerRequestContext[Any], default: Path | None) -> Path | None:
    """The project of the request: the one its URL or header names over HTTP, else the server's
    own. Raises :class:`MdmarkError` for a value that names no folder."""
    request = ctx.request
    url = getattr(request, "url", None)
    headers = getattr(request, "headers", None)
    if url is None or headers is None:
        return default
    named = request_project(str(getattr(url, "query", "")), headers.get(PROJECT_HEADER))
    return named if named is not None else default


def create_server(project: Path | None = None) -> Server[Any]:
    """The low-level MCP server with the tools of :data:`~mdmark.tools.registry.TOOLS`, the
    prompts and the resources; ``project`` is the folder calls default to (see
    :mod:`mdmark.tools.session_project`)."""
    import mcp_types
    from mcp.server.lowlevel import Server

    tools = tool_list()
    seconds = call_seconds()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=tools)

    async def call(ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
        if params.name not in TOOLS_BY_NAME:
            # The MCP spec answers a call of an unknown tool with a protocol error, not a tool result.
            from mcp.shared.exceptions import MCPError

            raise MCPError(mcp_types.INVALID_PARAMS, unknown_tool_message(params.name))
        try:
            arguments = with_project(
                TOOLS_BY_NAME[params.name].takes_project_dir, params.arguments, lambda: connection_project(ctx, project)
            )
        except MdmarkError as exc:
            outcome = error(exc.message)
        else:
            outcome = await run_bounded(params.name, arguments, seconds)
        return mcp_types.CallToolResult(
            content=[
                # Text from a repository (titles, a document's lines) reaches a client's screen too.
                mcp_types.TextContent(text=terminal_safe(part, keep_newlines=True))
                if isinstance(part, str)
                else mcp_types.ImageContent(data=part.data, mime_type=part.mime)
                for part in outcome.content()
            ],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    def input_schema(name: str) -> dict[str, Any] | None:
        spec = TOOLS_BY_NAME.get(name)
        return spec.input_schema() if spec is not None else None

    server: Server[Any] = Server(
        "mdmark",
        version=__version__,
        title="mdmark",
        instructions=instructions(project),
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call,
    )
    register_prompts(server)
    register_resources(server, project, seconds)
    server.middleware.append(_arguments_are_an_object)
    return server


def register_resources(server: Server[Any], project: Path | None, seconds: float) -> None:
    """``resources/list``, ``resources/templates/list``, ``resources/read`` and
    ``completion/complete`` from :mod:`mdmark.tools.resources`: a :class:`ResourceError` is an MCP
    error with its one sentence (-32002 for a resource that is not there), every read runs bounded
    like a tool call."""
    import mcp_types
    from mcp.shared.exceptions import MCPError

    from mdmark.tools import resources

    async def bounded(what: str, fn: Callable[[], T]) -> T:
        try:
            return await in_thread(what, fn, seconds)
        except MCPError:
            raise
        except Exception as exc:
            raise _resource_failure(exc, what) from None

    def here(ctx: ServerRequestContext[Any]) -> Path | None:
        try:
            return connection_project(ctx, project)
        except MdmarkError as exc:
            raise MCPError(mcp_types.INVALID_PARAMS, exc.message) from None

    templates = [
        mcp_types.ResourceTemplate(uri_template=t.uri, name=t.name, title=t.title, description=t.description, mime_type=t.mime)
        for t in resources.TEMPLATES
    ]

    async def list_resources(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        folder = here(ctx)
        cursor = params.cursor if params is not None else None
        page, nxt = await bounded("resources/list", lambda: resources.listed(folder, cursor))
        return mcp_types.ListResourcesResult(resources=[_protocol_resource(e) for e in page], next_cursor=nxt)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        return mcp_types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(
        ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        folder = here(ctx)
        uri = str(params.uri)
        mime, text = await bounded("resources/read", lambda: resources.read(uri, folder))
        return mcp_types.ReadResourceResult(
            contents=[mcp_types.TextResourceContents(uri=uri, mime_type=mime, text=terminal_safe(text, keep_newlines=True))]
        )

    async def complete(ctx: ServerRequestContext[Any], params: mcp_types.CompleteRequestParams) -> mcp_types.CompleteResult:
        if not isinstance(params.ref, mcp_types.ResourceTemplateReference):
            return mcp_types.CompleteResult(completion=mcp_types.Completion(values=[], total=0, has_more=False))
        folder = here(ctx)
        ref, arg = params.ref.uri, params.argument
        context = params.context.arguments if params.context is not None else None
        values, total = await bounded(
            "completion/complete", lambda: resources.complete(ref, arg.name, arg.value, context, folder)
        )
        return mcp_types.CompleteResult(
            completion=mcp_types.Completion(values=values, total=total, has_more=total > len(values))
        )

    server.add_request_handler("resources/list", mcp_types.PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/templates/list", mcp_types.PaginatedRequestParams, list_templates)
    server.add_request_handler("resources/read", mcp_types.ReadResourceRequestParams, read_resource)
    server.add_request_handler("completion/complete", mcp_types.CompleteRequestParams, complete)
    server.middleware.append(_resource_params_are_strings)


def _resource_failure(exc: BaseException, what: str) -> MCPError:
    """What a failed resource read or completion answers: a :class:`ResourceError`'s one sentence
    (-32002 for a resource that is not there), a user's mistake's sentence, else an internal error
    (logged with its traceback, never shown to the client)."""
    import mcp_types
    from mcp.shared.exceptions import MCPError

    from mdmark.tools.resources import ResourceError

    if isinstance(exc, ResourceError):
        return MCPError(-32002 if exc.not_found else mcp_types.INVALID_PARAMS, exc.message)
    if isinstance(exc, MdmarkError):
        return MCPError(mcp_types.INVALID_PARAMS, exc.message)
    logging.getLogger("mdmark.server").error("%s failed", what, exc_info=exc)
    return MCPError(mcp_types.INTERNAL_ERROR, internal_error_message(exc if isinstance(exc, Exception) else RuntimeError(exc)))


def _protocol_resource(entry: Entry) -> mcp_types.Resource:
    import mcp_types

    return mcp_types.Resource(uri=entry.uri, name=entry.name, title=entry.title, description=entry.description, mime_type=entry.mime)


async def _resource_params_are_strings(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Refuse a ``resources/read`` or ``completion/complete`` whose strings are not strings with a
    Japanese sentence, before the SDK validates (it would answer in pydantic's English)."""
    from mdmark.tools.resources import malformed_request

    params = ctx.params if isinstance(ctx.params, Mapping) else {}
    problem = malformed_request(ctx.method, params)
    if problem is not None:
        import mcp_types
        from mcp.shared.exceptions import MCPError

        raise MCPError(mcp_types.INVALID_PARAMS, problem)
    return await call_next(ctx)


async def in_thread(what: str, fn: Callable[[], T], seconds: float) -> T:
    """``fn()`` in a thread of its own (:class:`Job`), stopped after ``seconds`` or when the
    request is cancelled; a timeout or a stop is an MCP error with one sentence, and an exception
    of ``fn`` is raised here."""
    import anyio
    import mcp_types
    from mcp.shared.exceptions import MCPError

    job = Job(fn)
    job.start()
    deadline = anyio.current_time() + seconds
    try:
        while not job.done.is_set():
            if anyio.current_time() >= deadline:
                job.stop()
                raise MCPError(mcp_types.INTERNAL_ERROR, timeout_message(what, seconds))
            await anyio.sleep(0.02)
    except BaseException:
        job.stop()
        raise
    if job.error is not None:
        raise job.error
    if job.stopped:
        raise MCPError(mcp_types.INTERNAL_ERROR, stopping_message(what))
    return job.result  # type: ignore[return-value]


#: The one sentence for a ``tools/call`` whose ``arguments`` is no object (the SDK would answer with
#: pydantic's English before mdmark sees the call; ``prompts/get`` has its own, in prompts.py).
ARGUMENTS_NOT_OBJECT = "`arguments` が JSON のオブジェクトではないので、引数の名前と値を `{\"名前\": 値}` の形で渡してください。"


async def _arguments_are_an_object(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Refuse ``arguments`` that is no object with a Japanese sentence, before the SDK validates."""
    params = ctx.params
    if ctx.method == "tools/call" and isinstance(params, Mapping):
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            import mcp_types
            from mcp.shared.exceptions import MCPError

            raise MCPError(mcp_types.INVALID_PARAMS, ARGUMENTS_NOT_OBJECT)
    return await call_next(ctx)


async def run_bounded(name: str, arguments: dict[str, Any] | None, seconds: float) -> ToolOutcome:
    """One tool call in a thread of its own (concurrent sessions never wait on each other's
    parsing), answered with an error sentence and stopped when it outlives ``seconds``, and
    stopped when its client goes away."""
    import anyio

    problem = value_problem(arguments, "引数") if arguments else None
    if problem is not None:
        return error(problem)
    job = Job(lambda: call_tool(name, arguments))
    job.start()
    loop = anyio.current_time
    deadline = loop() + seconds
    try:
        # Polling keeps no thread of the pool waiting; a cancel (client gone, server stopping)
        # arrives in the sleep.
        while not job.done.is_set():
            if loop() >= deadline:
                job.stop()
                return error(timeout_message(name, seconds))
            await anyio.sleep(0.02)
    except BaseException:
        job.stop()
        raise
    if job.result is None:  # call_tool answers every failure; only a stop leaves no result
        return error(stopping_message(name))
    return job.result


# -- HTTP -------------------------------------------------------------------------------------

#: The answers of the HTTP guard, naming this server.
HOST_MESSAGE = "Host がループバック（127.0.0.1・localhost・[::1]）ではないので、mdmark serve には 127.0.0.1 でつないでください。"
ORIGIN_MESSAGE = "Origin ヘッダーの付いた要求は受け付けないので、ブラウザから使うときは mdmark serve --allow-origin でそのオリジンを許してください。"
GET_MESSAGE = "mdmark serve はセッションを持たずサーバーから送るイベントも無いので、GET ではなく POST で JSON-RPC の要求を送ってください。"


def build_http_app(
    host: str = "127.0.0.1", allow_origins: Iterable[str] = (), port: int | None = None, project: Path | None = None
) -> ASGIApp:
    """The ASGI app: the SDK's stateless Streamable HTTP endpoint at ``/mcp`` behind :class:`Guard`."""
    from mcp.server.transport_security import TransportSecuritySettings

    origins = list(allow_origins)
    server = create_server(project)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        # The Guard does the Host/Origin checks: the SDK's defaults would accept localhost origins
        # and refuse an origin the user allowed with --allow-origin.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        host=host,
    )
    if origins:
        from starlette.middleware.cors import CORSMiddleware

        app = CORSMiddleware(
            app,
            allow_origins=origins,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=["*"],
            expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version"],
        )
    hosts = set(LOOPBACK_HOSTS)
    if host not in ("0.0.0.0", "::", ""):
        # Bound to a specific address on purpose: requests naming that address are the user's own.
        hosts.add(host_name(host if ":" not in host or host.startswith("[") else f"[{host}]"))
    return Guard(app, hosts, origins, port, host_message=HOST_MESSAGE, origin_message=ORIGIN_MESSAGE, refused_get=GET_MESSAGE)


class _ShutdownNoise(logging.Filter):
    """Drops uvicorn's complaint about an open event stream (a client's GET /mcp) cut by a stop."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "returned without completing response" not in record.getMessage()


def _setup_logging() -> None:
    logging.getLogger("uvicorn.error").addFilter(_ShutdownNoise())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("mdmark serve: %(levelname)s %(message)s"))
    log = logging.getLogger("mdmark.server")
    log.addHandler(handler)
    log.setLevel(logging.WARNING)
    log.propagate = False


def serve_http(host: str, port: int, allow_origins: Iterable[str] = (), project: Path | None = None) -> int:
    """Run the HTTP server until SIGINT/SIGTERM; returns the exit code (0 after a signal)."""
    sock = bind(
        host,
        port,
        busy=f"ポート {port} はほかのプログラムが使っているので、動いている mdmark serve を止めるか、"
        "--port か環境変数 MDMARK_PORT で別のポートを指定してください。",
    )
    actual_port = sock.getsockname()[1]
    _setup_logging()
    prestart()
    shown = f"[{host}]" if ":" in host else host

    def announce() -> None:
        print(f"mdmark serve: http://{shown}:{actual_port}/mcp で待ち受けています（止めるには Ctrl+C）。", file=sys.stderr, flush=True)

    app = build_http_app(host, allow_origins, actual_port, project)
    # Calls still running when a stop comes are stopped, not waited for (limits.stop_all).
    started = run_until_signal(app, sock, lifespan="on", grace=2, on_stop=stop_all, announce=announce)
    if not started:
        raise MdmarkError("MCP サーバーを起動できなかったので、標準エラーに出た内容を確かめてください。")
    stop_all()
    print("mdmark serve: 止めました。", file=sys.stderr, flush=True)
    exit_soon()
    return 0


def serve_stdio(project: Path | None = None) -> int:
    """Serve the same tools over stdin/stdout until stdin closes or a signal arrives; ``project``
    is the folder calls without ``project_dir`` and resource reads use."""
    import anyio
    from mcp.server.stdio import stdio_server

    from mdmark.util.capture import set_aside_stdout

    # The channel gets its own descriptor; fd 1 goes to stderr, so nothing a project's conf.py,
    # extension or document prints (from anywhere) can reach the client.
    channel = set_aside_stdout()
    _setup_logging()
    prestart()
    server = create_server(project)

    async def main() -> None:
        async with anyio.create_task_group() as group:

            async def stop_on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _signum in signals:
                        stop_all()
                        group.cancel_scope.cancel()
                        # The SDK reads stdin in a thread that no cancellation reaches; when no
                        # line or EOF comes to release it, leave without waiting for it.
                        timer = threading.Timer(2.0, os._exit, (0,))
                        timer.daemon = True
                        timer.start()
                        return

            async def serve() -> None:
                out = anyio.wrap_file(io.TextIOWrapper(os.fdopen(channel, "wb", buffering=0), encoding="utf-8"))
                async with stdio_server(stdout=out) as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())
                group.cancel_scope.cancel()  # stdin closed: the client is gone

            group.start_soon(stop_on_signal)
            group.start_soon(serve)

    anyio.run(main)
    return 0
