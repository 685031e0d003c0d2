"""``mdmark preview [FILE] [--port N] [--open]``: a thin shell over :mod:`mdmark.preview`."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from mdmark.cli.commands.progress import progress_line
from mdmark.cli.ports import chosen_port


def _port(args: argparse.Namespace) -> int:
    from mdmark.preview import DEFAULT_PORT, PORT_ENV

    return chosen_port(args.port, PORT_ENV, DEFAULT_PORT)


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
