"""Issue 12 through a running ``mdmark serve`` (the harness of test_mcp.py): a hostile project
cannot make the server grow, hang, outlive a stop, or answer a foreign Host."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from test_mcp import Served, assert_error, assert_json, call_in, connect, raw_post, start_server, stop_server
from test_untrusted import alias_bomb, init

pytestmark = pytest.mark.anyio

#: The per-call bound of the test server: long enough for every small call, short for a big one.
CALL_SECONDS = "4"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("bounded")
    served = start_server(folder, env={"MDMARK_CALL_TIMEOUT": CALL_SECONDS, "XDG_CACHE_HOME": str(folder / "cache")})
    yield served
    assert stop_server(served) == 0, served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()


def big_project(folder: Path, headings: int) -> Path:
    """A project whose one document takes far longer to read than the test server's bound."""
    project = init(folder)
    body = "".join(f"## 見出し {i}\n\n本文 {i}。\n\n" for i in range(headings))
    (project / "docs" / "big.md").write_text("# 大きい\n\n" + body, encoding="utf-8")
    return project


def cpu_ticks(pid: int) -> int:
    """CPU ticks of the process and the processes below it that live now (the parse runs in workers)."""
    from test_untrusted import worker_children

    total = 0
    for each in (pid, *worker_children(pid)):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


async def test_alias_bomb_is_refused_and_the_server_stays_small(bounded: Served, tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    (project / "index.yaml").write_text(alias_bomb(), encoding="utf-8")
    async with connect(bounded) as client:
        for tool, arguments in (("check", {}), ("find_docs", {}), ("list_tags", {}), ("build_site", {})):
            result = await call_in(client, project, tool, **arguments)
            assert_error(result, "index.yaml", "別名")
    assert rss_kib(bounded.proc.pid) < 600 * 1024


async def test_a_call_past_its_bound_is_answered_and_stopped(bounded: Served, tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", 40000)
    async with connect(bounded) as client:
        result = await call_in(client, project, "export_html", file="docs/big.md")
        assert_error(result, "export_html", f"{CALL_SECONDS} 秒", "MDMARK_CALL_TIMEOUT")
        # The work stopped: the server is idle again (a running parse would keep a core busy).
        before = cpu_ticks(bounded.proc.pid)
        await anyio.sleep(2)
        assert cpu_ticks(bounded.proc.pid) - before < 50
        assert not (project / "docs" / "big.html").exists()
        # And the server still answers.
        assert assert_json(await call_in(client, project, "find_docs", format="json"))["total"] == 1


def test_sigterm_during_a_long_call_exits_in_seconds(tmp_path: Path) -> None:
    project = big_project(tmp_path / "p", 45000)  # under the headings a document may hold
    served = start_server(tmp_path / "server", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    outcome: list[object] = []

    async def long_call() -> None:
        try:
            async with connect(served) as client:
                outcome.append(await call_in(client, project, "build_site"))
        except Exception as exc:  # noqa: BLE001 - the server going away is one acceptable end
            outcome.append(exc)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(long_call)
            # Wait until the call is at work (the server burns CPU), then stop the server.
            start = cpu_ticks(served.proc.pid)
            deadline = time.monotonic() + 120
            while cpu_ticks(served.proc.pid) - start < 100:
                assert time.monotonic() < deadline, "the call never set the server to work"
                await anyio.sleep(0.1)
            served.proc.send_signal(signal.SIGTERM)
            # A bound, not a measurement: before, the process stayed until kill -9.
            code = await anyio.to_thread.run_sync(lambda: served.proc.wait(timeout=15))
            assert code == 0

    try:
        anyio.run(main)
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
    assert "止めました" in served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()
    assert outcome


def test_host_must_be_exactly_loopback(bounded: Served) -> None:
    port = bounded.port
    for host in ("localhost:evil", "", "localhost:", f"localhost:{port + 1}", f"127.0.0.1:{port}x", "[::1]:evil", "localhost.:80"):
        status, _headers, _body = raw_post(port, {"Host": host})
        assert status == 421, repr(host)
    for host in (f"localhost:{port}", "localhost", f"[::1]:{port}", "127.0.0.1"):
        status, _headers, _body = raw_post(port, {"Host": host})
        assert status == 200, host


async def test_oversized_and_overdeep_arguments_are_refused(bounded: Served, tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    long = "x" * 100_000
    async with connect(bounded) as client:
        assert_error(await call_in(client, project, "check", config=long), "上限")
        assert_error(await call_in(client, project, "export_html", file=long), "上限")
        assert_error(await client_call(client, "find_docs", {"project_dir": "/" + long}), "上限")
        nested: object = "x"
        for _ in range(40):
            nested = [nested]
        assert_error(
            await call_in(client, project, "update_index", kind="doc", id="x", item={"path": "docs/a.md", "title": "t", "x": nested}),
            "入れ子",
        )
        import base64

        cursor = base64.urlsafe_b64encode(b"[" * 30000 + b"]" * 30000).decode()
        assert_error(await call_in(client, project, "find_docs", cursor=cursor), "cursor")
    # A lone surrogate (no client library sends one) straight on the wire: the SDK's JSON reader
    # refuses it as a parse error before any tool runs (the CLI's --item says its own sentence).
    body = (
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "update_index", "arguments": '
        f'{{"project_dir": {json.dumps(str(project))}, "kind": "doc", "id": "x", "item": {{"path": "docs/a.md", "title": "\\ud800"}}}}}}}}'
    )
    status, _headers, answer = raw_post_text(bounded.port, body)
    text = answer.decode("utf-8", "replace")
    assert status in (200, 400) and "内部のエラー" not in text, text
    # 5,000 levels of JSON straight on the wire: a refusal, never an internal error.
    deep = "[" * 5000 + "]" * 5000
    body = (
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "update_index", "arguments": '
        f'{{"project_dir": {json.dumps(str(project))}, "kind": "doc", "id": "x", "item": {{"path": "a.md", "title": "t", "x": {deep}}}}}}}}}'
    )
    status, _headers, answer = raw_post_text(bounded.port, body)
    assert status in (200, 400), answer[:200]
    assert "内部のエラー" not in answer.decode("utf-8", "replace")
    assert bounded.proc.poll() is None


async def client_call(client: object, name: str, arguments: dict[str, object]) -> object:
    from test_mcp import call

    return await call(client, name, arguments)  # type: ignore[arg-type]


def raw_post_text(port: int, body: str) -> tuple[int, dict[str, str], bytes]:
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        data = body.encode()
        connection.request(
            "POST",
            "/mcp",
            body=data,
            headers={
                "Host": f"127.0.0.1:{port}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18",
            },
        )
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


async def test_parallel_exports_to_one_file_all_succeed(bounded: Served, tmp_path: Path) -> None:
    project = init(tmp_path / "p")
    results: list[object] = []

    async def one() -> None:
        async with connect(bounded) as client:
            results.append(await call_in(client, project, "export_html", file="docs/welcome.md", out="out/one.html"))

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(one)
    assert len(results) == 20
    for result in results:
        assert_json(result)  # type: ignore[arg-type]
    assert sorted(p.name for p in (project / "out").iterdir()) == ["one.html"]
    assert (project / "out" / "one.html").read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_no_worker_process_outlives_a_killed_server(tmp_path: Path) -> None:
    """kill -9 of the server during a cold build_site: its worker processes go too."""
    from test_untrusted import alive, worker_children

    project = init(tmp_path / "p")
    for i in range(60):
        (project / "docs" / f"d{i:02}.md").write_text(
            f"# 文書 {i}\n\n" + "".join(f"## 節 {j}\n\n本文 {j}。\n\n" for j in range(300)), encoding="utf-8"
        )
    served = start_server(tmp_path / "server", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    workers: list[int] = []

    async def main() -> None:
        async with anyio.create_task_group() as group:

            async def build() -> None:
                try:
                    async with connect(served) as client:
                        await call_in(client, project, "build_site")
                except Exception:  # noqa: BLE001, S110 - the server is killed under it
                    pass

            group.start_soon(build)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                workers[:] = worker_children(served.proc.pid)
                if len(workers) >= 2:
                    break
                await anyio.sleep(0.1)
            served.proc.kill()
            group.cancel_scope.cancel()

    try:
        anyio.run(main)
    finally:
        if served.proc.poll() is None:
            served.proc.kill()
        served.proc.wait()
    assert len(workers) >= 2, "build_site started no worker processes"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(p) for p in workers):
        time.sleep(0.1)
    left = [Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace") for p in workers if alive(p)]
    assert not left
