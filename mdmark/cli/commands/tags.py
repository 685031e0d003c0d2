"""``mdmark tags``: the list_tags query from the shell (same arguments, same output)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mdmark.queries.find import list_tags
from mdmark.tools.registry import cli_arguments
from mdmark.util.text import terminal_safe


def print_result(result: str | dict[str, Any]) -> None:
    """Markdown and toon as the tool returns them; json as the tool's JSON, indented for reading."""
    if isinstance(result, str):
        # TOON text ends without a newline; the shell prompt must not land on its last line.
        sys.stdout.write(terminal_safe(result if result.endswith("\n") else result + "\n", keep_newlines=True))
    else:
        print(terminal_safe(json.dumps(result, ensure_ascii=False, indent=2), keep_newlines=True))


def run(args: argparse.Namespace) -> int:
    print_result(list_tags(Path.cwd(), **cli_arguments(args, "list_tags")))
    return 0
