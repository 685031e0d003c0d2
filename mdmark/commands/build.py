"""``mdmark build [--config PATH]``: a thin shell over :func:`mdmark.build.build_site`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from mdmark.text import terminal_safe


def _progress() -> Callable[[int, int], None] | None:
    """A one-line progress counter on a terminal; nothing when stderr is a file or a pipe."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r文書を読んで書き出しています {done}/{total}\x1b[K")
        sys.stderr.flush()

    return show


def run(args: argparse.Namespace) -> int:
    from mdmark.build import build_site

    progress = _progress()
    try:
        result = build_site(Path.cwd(), config=args.config, progress=progress)
    finally:
        if progress is not None:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
    for warning in result["warnings"]:
        print(terminal_safe(warning), file=sys.stderr)
    print(f"{result['docs']} 件の文書を {result['out']} にまとめました。")
    return 0
