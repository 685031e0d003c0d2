from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from mdmark.lsp.main import main

    return main()
