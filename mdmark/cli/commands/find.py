"""``mdmark find``: the find_docs query from the shell (same arguments, same output)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.commands.tags import print_result
from mdmark.queries.find import find_docs
from mdmark.tools.registry import cli_arguments


def run(args: argparse.Namespace) -> int:
    print_result(find_docs(Path.cwd(), **cli_arguments(args, "find_docs"), for_cli=True))
    return 0
