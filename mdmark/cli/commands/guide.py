from __future__ import annotations

import argparse

from mdmark.guide.reader import guide_entries, read_guide


def run(args: argparse.Namespace) -> int:
    if not args.names:
        # One line per page: name, title, description (tab-separated; the plugin's SessionStart reads it).
        for entry in guide_entries():
            print(f"{entry.name}\t{entry.title}\t{entry.description}")
        return 0
    print("\n\n".join(text.rstrip("\n") for text in read_guide(args.names)))
    return 0
