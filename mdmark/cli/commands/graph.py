"""``mdmark graph [--format svg|dot|json] [--doc ID] [-o OUT]``: a thin shell over :func:`mdmark.graph.views.graph_text`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from mdmark.graph.views import graph_text

    # The user named -o's path on the command line: it is written wherever it is (a tool's call
    # stays inside the project).

    result = graph_text(Path.cwd(), format=args.format, doc=args.doc, out=args.out, config=args.config, confined=False)
    if result["out"] is None:
        sys.stdout.write(result["text"])
    else:
        print(result["out"])
    return 0
