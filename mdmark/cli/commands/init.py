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
    from mdmark.queries.adopt import find_conf

    folder = Path(args.dir)
    conf = find_conf(folder) if folder.is_dir() else None
    for path in init_project(folder):
        print(f"作りました: {path}")
    if conf is not None:
        print(
            f"Sphinx のプロジェクト（{conf.relative_to(folder).as_posix()}）を取り込み、その Markdown の文書を索引に入れました"
            "（文書には何も書いていません。あとで増えた文書は `mdmark index add-unindexed` で索引に足せます）。"
        )
    print(next_step(folder, Path.cwd()))
    return 0
