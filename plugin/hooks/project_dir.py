#!/usr/bin/env python3
"""PreToolUse hook: put the session's folder into ``project_dir`` of every mdmark tool call.

The mdmark MCP server is one resident process shared by many sessions, so it cannot learn a
session's folder from its environment; Claude Code gives it to hooks as ``CLAUDE_PROJECT_DIR``.
The hook replaces whatever the agent wrote (the folder is the session's, not the agent's choice).
``read_guide`` takes no ``project_dir`` (the server rejects it as an unknown argument), so it is
left alone, and so is every input when the variable is missing: the server then answers with its
project_dir error, which says what is wrong better than a hook could.

Standard library only: the hook runs with whatever ``python3`` is on PATH, not mdmark's venv.
Printing nothing and exiting 0 leaves the tool input unchanged.
"""

from __future__ import annotations

import json
import os
import sys

TOOL_PREFIX = "mcp__plugin_mdmark_mdmark__"
#: Tools whose input schema has no project_dir.
NO_PROJECT_DIR = frozenset({"read_guide"})


def updated_input(event: object, project_dir: str | None) -> dict[str, object] | None:
    """The whole new tool input, or None when the input must stay as it is."""
    if not project_dir or not isinstance(event, dict):
        return None
    tool_name = event.get("tool_name")
    tool_input = event.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name.startswith(TOOL_PREFIX):
        return None
    if tool_name[len(TOOL_PREFIX) :] in NO_PROJECT_DIR:
        return None
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        return None
    return {**tool_input, "project_dir": project_dir}


def main() -> int:
    try:
        event = json.load(sys.stdin)
    except (ValueError, UnicodeDecodeError):
        # Not ours to judge: an unreadable event must not block the tool call.
        return 0
    new_input = updated_input(event, os.environ.get("CLAUDE_PROJECT_DIR"))
    if new_input is None:
        return 0
    output = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": new_input}}
    sys.stdout.write(json.dumps(output, ensure_ascii=False))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
