from __future__ import annotations

import argparse

from mdmark.cli.ports import chosen_port
from mdmark.server import DEFAULT_PORT


def _port(args: argparse.Namespace) -> int:
    return chosen_port(args.port, "MDMARK_PORT", DEFAULT_PORT)


def run(args: argparse.Namespace) -> int:
    from mdmark.server import app

    if args.stdio:
        return app.serve_stdio()
    return app.serve_http(args.host, _port(args), args.allow_origin)
