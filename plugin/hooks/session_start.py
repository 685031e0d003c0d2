#!/usr/bin/env python3
"""SessionStart hook: tell the agent which guide pages and prompts exist, how to read a document, and whether the server is up.

The guide index and the prompt list come first from the running ``mdmark serve`` (the one the
plugin's ``.mcp.json`` connects to): its MCP ``initialize`` answer carries the guide's pages in
its ``instructions`` and ``prompts/list`` the prompts, so a user who installed mdmark in a venv
only (not on PATH) still gets both. When no server answers, the hook asks the installed mdmark
(``mdmark guide`` prints one page per line, ``name<TAB>title<TAB>description``), found as
``plugin/lib/find_mdmark.py`` says: by absolute interpreter path with ``-I``, from the working
folder ``/``, never from the opened repository; when there is none it says how to install mdmark.

Standard library only: the hook runs with whatever ``python3`` is on PATH, not mdmark's venv.
It always exits 0 — a failed hook must not keep a session from starting.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

# The plugin's own folder, never the working folder (the repository): see find_mdmark.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from find_mdmark import INSTALL_HINT, NEUTRAL_DIR, mdmark_command  # noqa: E402

DEFAULT_PORT = 8782
HOST = "127.0.0.1"
#: Seconds for ``mdmark guide`` (imports only the CLI and reads one YAML file).
GUIDE_TIMEOUT = 20.0
CONNECT_TIMEOUT = 0.5
#: Seconds for each MCP request to the running server (initialize, prompts/list).
MCP_TIMEOUT = 5.0
#: The line of the server's instructions under which the guide's pages are listed
#: (mdmark.server.app.GUIDE_HEADING; tests/test_plugin.py holds the two together).
GUIDE_HEADING = "使い方集のページ（read_guide の names に渡す名前）:"
PROTOCOL_VERSION = "2025-06-18"

#: The server's MCP prompts as Claude Code shows them (slash command, its arguments, what it does),
#: for when no server answers. The hook cannot import mdmark; tests/test_prompts.py holds this list
#: to mdmark.server.prompts.
PROMPTS: tuple[tuple[str, str, str], ...] = (
    ("write_doc", "topic [tags]", "文書を書く"),
    ("fix_drift", "[kind]", "ずれを直す"),
    ("review_change", "base", "変更を見直す"),
    ("explain_doc", "id", "文書を説明する"),
)
SLASH_PREFIX = "/mcp__plugin_mdmark_mdmark__"

#: How to read a design document with the tools (instead of reading whole files).
READING_HINT = (
    "設計文書を読むときは、ファイルを丸ごと読む前に、MCP のツール outline で見出しの索引（アンカー・行・文字数・画像の数）を見て、"
    "read_doc の section にアンカーを渡して要る節だけを図ごと読んでください（使い方集の read）。"
)


def port_from_env(environ: dict[str, str]) -> tuple[int, str | None]:
    """The port ``.mcp.json`` connects to, and a warning when MDMARK_PORT is not a port number."""
    raw = environ.get("MDMARK_PORT", "").strip()
    if not raw:
        return DEFAULT_PORT, None
    if raw.isdigit() and 0 < int(raw) < 65536:
        return int(raw), None
    return DEFAULT_PORT, (
        f"環境変数 MDMARK_PORT の値 `{raw}` はポート番号ではないので、1〜65535 の整数にしてください。"
    )


def server_running(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=CONNECT_TIMEOUT):
            return True
    except OSError:
        return False


def _run_guide(command: Sequence[str]) -> list[tuple[str, str, str]] | None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    try:
        done = subprocess.run(
            list(command),
            capture_output=True,
            timeout=GUIDE_TIMEOUT,
            env=env,
            stdin=subprocess.DEVNULL,
            cwd=NEUTRAL_DIR,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    entries: list[tuple[str, str, str]] = []
    for line in done.stdout.decode("utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[0].strip():
            name, title = parts[0].strip(), parts[1].strip()
            description = parts[2].strip() if len(parts) > 2 else ""
            entries.append((name, title, description))
    return entries or None


def guide_entries() -> list[tuple[str, str, str]] | None:
    """(name, title, description) of each guide page, from the installed mdmark; None if there is none."""
    command = mdmark_command(dict(os.environ))
    return None if command is None else _run_guide([*command, "guide"])


def _mcp(port: int, method: str, params: dict[str, object], request_id: int) -> dict[str, object] | None:
    """One JSON-RPC request to the stateless server (each POST stands alone); its result or None."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode("utf-8")
    request = urllib.request.Request(
        f"http://{HOST}:{port}/mcp",
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
        },
    )
    # The server is on loopback: no proxy of the environment may stand in between.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=MCP_TIMEOUT) as response:
            text = response.read().decode("utf-8", errors="replace")
    except (OSError, urllib.error.URLError, ValueError):
        return None
    if not text.lstrip().startswith("{"):  # an SSE answer: the data line holds the message
        text = next((line[len("data:") :] for line in text.splitlines() if line.startswith("data:")), "")
    try:
        message = json.loads(text)
    except ValueError:
        return None
    result = message.get("result") if isinstance(message, dict) else None
    return result if isinstance(result, dict) else None


def guide_from_instructions(instructions: str) -> list[tuple[str, str, str]] | None:
    """The ``- name: title — description`` lines under :data:`GUIDE_HEADING` as (name, title, description)."""
    lines = instructions.splitlines()
    if GUIDE_HEADING not in lines:
        return None
    entries: list[tuple[str, str, str]] = []
    for line in lines[lines.index(GUIDE_HEADING) + 1 :]:
        if not line.startswith("- ") or ": " not in line:
            break
        name, _, rest = line[2:].partition(": ")
        title, _, description = rest.partition(" — ")
        entries.append((name.strip(), title.strip(), description.strip()))
    return entries or None


def from_server(port: int) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]] | None:
    """(guide entries, prompts) from the running server, or None when it does not answer as mdmark."""
    init = _mcp(port, "initialize", {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "mdmark-session-start", "version": "1"},
    }, 1)  # fmt: skip
    if init is None:
        return None
    info = init.get("serverInfo")
    instructions = init.get("instructions")
    if not isinstance(info, dict) or info.get("name") != "mdmark" or not isinstance(instructions, str):
        return None
    guide = guide_from_instructions(instructions)
    listed = _mcp(port, "prompts/list", {}, 2)
    if guide is None or listed is None or not isinstance(listed.get("prompts"), list):
        return None
    prompts: list[tuple[str, str, str]] = []
    for prompt in listed["prompts"]:
        if not isinstance(prompt, dict) or not isinstance(prompt.get("name"), str):
            continue
        arguments = [a for a in prompt.get("arguments") or [] if isinstance(a, dict) and isinstance(a.get("name"), str)]
        usage = " ".join(a["name"] if a.get("required") else f"[{a['name']}]" for a in arguments)
        title = prompt.get("title") if isinstance(prompt.get("title"), str) else prompt.get("description") or ""
        prompts.append((prompt["name"], usage, str(title)))
    return guide, prompts


def prompts_line(prompts: Sequence[tuple[str, str, str]] = PROMPTS) -> str:
    commands = "・".join(
        f"`{SLASH_PREFIX}{name} {usage}`（{title}）" if usage else f"`{SLASH_PREFIX}{name}`（{title}）"
        for name, usage, title in prompts
    )
    return (
        f"mdmark のプロンプト（ツールを組み合わせた手順）は、利用者がスラッシュコマンドで始められます: {commands}。"
        "頼まれた作業がこれに当たるときは、その手順（文書を書いたら update_index で索引に載せ、check が空になるまで直す）に沿って進めてください。"
    )


def context(environ: dict[str, str]) -> str:
    port, port_warning = port_from_env(environ)
    lines: list[str] = []
    running = server_running(port)
    served = from_server(port) if running else None
    entries, prompts = served if served is not None else (guide_entries(), list(PROMPTS))
    if entries is None:
        lines.append(INSTALL_HINT)
    else:
        lines.append(
            "mdmark の使い方集の索引（MCP のツール read_guide の names に名前を渡すと本文を読めます。"
            "シェルでは `mdmark guide 名前`）:"
        )
        for name, title, description in entries:
            lines.append(f"- {name}: {title}" + (f" — {description}" if description else ""))
        lines.append(prompts_line(prompts))
        lines.append(READING_HINT)
    if port_warning:
        lines.append(port_warning)
    url = f"http://{HOST}:{port}/mcp"
    if running:
        lines.append(f"mdmark の MCP サーバーは {url} で動いています。")
    else:
        start = "mdmark serve" if port == DEFAULT_PORT else f"MDMARK_PORT={port} mdmark serve"
        lines.append(
            f"mdmark の MCP サーバーが {url} で応答しないので、ツールを使う前に、ターミナルで `{start}` を起動するよう"
            "利用者に頼んでください（常駐させる手順は使い方集の serve）。"
        )
    return "\n".join(lines)


def main() -> int:
    try:
        sys.stdin.read()  # the event (source, session id…) changes nothing here
    except (OSError, ValueError):
        pass
    output = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context(dict(os.environ))}}
    sys.stdout.write(json.dumps(output, ensure_ascii=False))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
