"""``mdmark outline``: the outline tool from the shell (same arguments, same output)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.commands.tags import print_result
from mdmark.queries.outline import outline


def run(args: argparse.Namespace) -> int:
    print_result(outline(Path.cwd(), target=args.target, format=args.format, config=args.config))
    return 0
