"""``mdmark build [--config PATH]``: a thin shell over :func:`mdmark.builders.build.build_site`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdmark.cli.commands.progress import progress_line
from mdmark.util.text import terminal_safe


def run(args: argparse.Namespace) -> int:
    from mdmark.builders.build import build_site

    with progress_line("文書を読んで書き出しています") as progress:
        result = build_site(Path.cwd(), config=args.config, progress=progress)
    for warning in result["warnings"]:
        print(terminal_safe(warning), file=sys.stderr)
    print(f"{result['docs']} 件の文書を {result['out']} にまとめました。")
    return 0
