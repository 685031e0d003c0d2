"""``mdmark build [--config PATH]``: a thin shell over :func:`mdmark.builders.build.build_site`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdmark.cli.commands.progress import progress_line
from mdmark.util.text import terminal_safe


def run(args: argparse.Namespace) -> int:
    _prepare(args.config)
    from mdmark.builders.build import build_site

    with progress_line("文書を読んで書き出しています") as progress:
        result = build_site(Path.cwd(), config=args.config, progress=progress)
    for warning in result["warnings"]:
        print(terminal_safe(warning), file=sys.stderr)
    print(f"{result['docs']} 件の文書を {result['out']} にまとめました。")
    return 0


def _prepare(config: str | None) -> None:
    """Start the project's zygote before the builder's imports (the HTML writer, the page, the
    navigation), so its Sphinx application is made meanwhile: a build reads at least conf.py's
    settings through it unless an earlier run left them, and every changed document."""
    from mdmark.errors import MdmarkError
    from mdmark.pipeline.workers import prepare
    from mdmark.project import Project

    try:
        project = Project.open(Path.cwd(), config)
        if project.config.build is not None:
            prepare(project.pipeline)
    except MdmarkError:
        return  # the build says why, in the order it checks things
