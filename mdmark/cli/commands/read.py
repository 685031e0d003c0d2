"""``mdmark read``: the read_doc tool from the shell: the same text, each image named instead of shown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdmark.queries.read_doc import blocks_text, read_doc
from mdmark.tools.registry import cli_arguments


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(blocks_text(read_doc(Path.cwd(), **cli_arguments(args, "read_doc"))))
    return 0
