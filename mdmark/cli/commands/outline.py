"""``mdmark outline``: the outline tool from the shell (same arguments, same output)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.commands.tags import print_result
from mdmark.queries.outline import outline
from mdmark.tools.registry import cli_arguments


def run(args: argparse.Namespace) -> int:
    print_result(outline(Path.cwd(), **cli_arguments(args, "outline")))
    return 0
