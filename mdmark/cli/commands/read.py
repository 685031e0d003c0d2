"""``mdmark read``: the read_doc tool from the shell: the same text, each image named instead of shown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdmark.queries.read_doc import blocks_text, read_doc


def run(args: argparse.Namespace) -> int:
    blocks = read_doc(
        Path.cwd(),
        target=args.target,
        section=args.section,
        lines=args.lines,
        max_images=args.max_images,
        config=args.config,
    )
    sys.stdout.write(blocks_text(blocks))
    return 0
