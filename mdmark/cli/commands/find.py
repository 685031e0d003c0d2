"""``mdmark find``: the find_docs query from the shell (same arguments, same output)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.cli.commands.tags import print_result
from mdmark.queries.find import find_docs


def run(args: argparse.Namespace) -> int:
    result = find_docs(
        Path.cwd(),
        text=args.text,
        tags=args.tags,
        any_tags=args.any_tags,
        related_to=args.related_to,
        limit=args.limit,
        cursor=args.cursor,
        view=args.view,
        include=args.include,
        exclude=args.exclude,
        # The flag is either given (True) or not (the tool's default).
        count_only=True if args.count_only else None,
        format=args.format,
        config=args.config,
        for_cli=True,
    )
    print_result(result)
    return 0
