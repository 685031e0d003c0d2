from __future__ import annotations

import argparse
import os

from mdmark.errors import MdmarkError
from mdmark.server import DEFAULT_PORT


def _port(args: argparse.Namespace) -> int:
    if args.port is not None:
        port: int = args.port
        source = "--port"
    else:
        raw = os.environ.get("MDMARK_PORT", "").strip()
        if not raw:
            return DEFAULT_PORT
        source = "環境変数 MDMARK_PORT"
        try:
            port = int(raw)
        except ValueError:
            raise MdmarkError(
                f"{source} の `{raw}` が整数ではないので、1〜65535 のポート番号にしてください。", exit_code=2
            ) from None
    # 0 asks the system for a free port (the startup line names the one it got).
    if not 0 <= port <= 65535:
        raise MdmarkError(f"{source} の {port} がポート番号の範囲の外なので、1〜65535 の整数にしてください。", exit_code=2)
    return port


def run(args: argparse.Namespace) -> int:
    from mdmark.server import app

    if args.stdio:
        return app.serve_stdio()
    return app.serve_http(args.host, _port(args), args.allow_origin)
