from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.ports import chosen_port
from mdmark.server import DEFAULT_PORT


def _port(args: argparse.Namespace) -> int:
    return chosen_port(args.port, "MDMARK_PORT", DEFAULT_PORT)


def _project(args: argparse.Namespace) -> Path | None:
    """The folder the server's calls default to: ``--project``, else (stdio only: one client, the
    user's own configuration) the working folder when a config is there or above it."""
    from mdmark.tools.session_project import option_project, working_project

    cwd = Path.cwd()
    if args.project is not None:
        return option_project(args.project, cwd)
    return working_project(cwd) if args.stdio else None


def run(args: argparse.Namespace) -> int:
    from mdmark.server import app

    project = _project(args)
    if args.stdio:
        return app.serve_stdio(project)
    return app.serve_http(args.host, _port(args), args.allow_origin, project)
