"""``mdmark export FILE [-o OUT] [--config PATH]``: a thin shell over :func:`mdmark.builders.export.export_html`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mdmark.util.text import terminal_safe


def run(args: argparse.Namespace) -> int:
    from mdmark.builders.export import export_html

    # The user typed the output path: it may lie outside the project (an MCP tool's may not).
    result = export_html(Path.cwd(), args.file, out=args.out, config=args.config, confined=False)
    for warning in result["warnings"]:
        print(terminal_safe(warning), file=sys.stderr)
    print(result["out"])
    return 0
