from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.scaffold import init_project


def run(args: argparse.Namespace) -> int:
    for path in init_project(Path(args.dir)):
        print(f"作りました: {path}")
    print("次は `mdmark check` で点検できます。")
    return 0
