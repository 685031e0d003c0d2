"""``mdmark preview [FILE] [--port N] [--open]``: a thin shell over :mod:`mdmark.preview`."""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from mdmark.cli.commands.progress import progress_line
from mdmark.errors import MdmarkError


def _port(args: argparse.Namespace) -> int:
    from mdmark.preview import DEFAULT_PORT, PORT_ENV

    if args.port is not None:
        port: int = args.port
        source = "--port"
    else:
        raw = os.environ.get(PORT_ENV, "").strip()
        if not raw:
            return DEFAULT_PORT
        source = f"環境変数 {PORT_ENV}"
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
    from mdmark.preview.server import serve
    from mdmark.preview.session import Preview

    port = _port(args)
    preview = Preview(Path.cwd(), args.file, args.config)
    preview.ensure_startable()
    # The cold build shows the counters `mdmark build` and `mdmark check` show; both are erased
    # before the startup line.
    with contextlib.ExitStack() as stack:
        build_progress = stack.enter_context(progress_line("文書を読んで書き出しています"))
        check_progress = stack.enter_context(progress_line("文書を読んでいます"))
        return serve(
            preview,
            port,
            open_browser=args.open,
            build_progress=build_progress,
            check_progress=check_progress,
            after_cold=stack.close,
        )
