from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from mdmark.cli.scaffold import init_project


def next_step(folder: Path, cwd: Path) -> str:
    """What to run next: ``mdmark check`` finds the config from the folder it runs in, so a project
    put elsewhere needs a ``cd`` first."""
    try:
        here = folder.resolve() == cwd.resolve()
    except OSError:
        here = False
    if here:
        return "次は `mdmark check` で点検できます。"
    return f"次は `cd {shlex.quote(str(folder))}` でそのフォルダに移ってから、`mdmark check` で点検できます。"


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    for path in init_project(folder):
        print(f"作りました: {path}")
    print(next_step(folder, Path.cwd()))
    return 0
