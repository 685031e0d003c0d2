"""The port a serving command listens on: ``--port``, else its environment variable, else its default."""

from __future__ import annotations

import os

from mdmark.core.errors import MdmarkError


def chosen_port(given: int | None, env: str, default: int) -> int:
    """``given`` (``--port``), else the integer in ``env``, else ``default``; 0 asks the system for a
    free port (the startup line names the one it got). One sentence (exit 2) for a bad value."""
    if given is not None:
        port, source = given, "--port"
    else:
        raw = os.environ.get(env, "").strip()
        if not raw:
            return default
        source = f"環境変数 {env}"
        try:
            port = int(raw)
        except ValueError:
            raise MdmarkError(
                f"{source} の `{raw}` が整数ではないので、1〜65535 のポート番号にしてください。", exit_code=2
            ) from None
    if not 0 <= port <= 65535:
        raise MdmarkError(f"{source} の {port} がポート番号の範囲の外なので、1〜65535 の整数にしてください。", exit_code=2)
    return port
