#!/usr/bin/env python3
"""SessionStart hook: tell the agent which guide pages and prompts exist, how to read a document, and whether the server is up.

The guide index comes from the installed mdmark (``mdmark guide`` prints one page per line,
``name<TAB>title<TAB>description``), so the list always matches the package the server reads
the pages from. The hook tries the ``mdmark`` command on PATH, then ``python3 -m mdmark``; when
neither works it says how to install mdmark instead. A short TCP connect to the port the
plugin's ``.mcp.json`` uses tells whether ``mdmark serve`` is running.

Standard library only: the hook runs with whatever ``python3`` is on PATH, not mdmark's venv.
It always exits 0 — a failed hook must not keep a session from starting.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence

DEFAULT_PORT = 8782
HOST = "127.0.0.1"
#: Seconds for ``mdmark guide`` (imports only the CLI and reads one YAML file).
GUIDE_TIMEOUT = 20.0
CONNECT_TIMEOUT = 0.5

#: The server's MCP prompts as Claude Code shows them (slash command, its arguments, what it does).
#: The hook cannot import mdmark; tests/test_prompts.py holds this list to mdmark.server.prompts.
PROMPTS: tuple[tuple[str, str, str], ...] = (
    ("write_doc", "topic [tags]", "文書を書く"),
    ("fix_drift", "[kind]", "ずれを直す"),
    ("review_change", "base", "変更を見直す"),
    ("explain_doc", "id", "文書を説明する"),
)
SLASH_PREFIX = "/mcp__plugin_mdmark_mdmark__"

INSTALL_HINT = (
    "mdmark が見つからないので（PATH に mdmark のコマンドが無く、python3 から import もできません）、"
    "mdmark のリポジトリのフォルダで `pipx install .`（または `python3 -m pip install .`）を実行して入れてください。"
)

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
    commands: list[list[str]] = []
    found = shutil.which("mdmark")
    if found:
        commands.append([found, "guide"])
    if sys.executable:
        commands.append([sys.executable, "-m", "mdmark", "guide"])
    for command in commands:
        entries = _run_guide(command)
        if entries is not None:
            return entries
    return None


def prompts_line() -> str:
    commands = "・".join(f"`{SLASH_PREFIX}{name} {usage}`（{title}）" for name, usage, title in PROMPTS)
    return (
        f"mdmark のプロンプト（ツールを組み合わせた手順）は、利用者がスラッシュコマンドで始められます: {commands}。"
        "頼まれた作業がこれに当たるときは、その手順（文書を書いたら update_index で索引に載せ、check が空になるまで直す）に沿って進めてください。"
    )


def context(environ: dict[str, str]) -> str:
    port, port_warning = port_from_env(environ)
    lines: list[str] = []
    entries = guide_entries()
    if entries is None:
        lines.append(INSTALL_HINT)
    else:
        lines.append(
            "mdmark の使い方集の索引（MCP のツール read_guide の names に名前を渡すと本文を読めます。"
            "シェルでは `mdmark guide 名前`）:"
        )
        for name, title, description in entries:
            lines.append(f"- {name}: {title}" + (f" — {description}" if description else ""))
        lines.append(prompts_line())
        lines.append(READING_HINT)
    if port_warning:
        lines.append(port_warning)
    url = f"http://{HOST}:{port}/mcp"
    if server_running(port):
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
