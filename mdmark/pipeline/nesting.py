"""How deep a document's fences nest, measured on its text before any parser sees it.

MyST parses a directive's body by calling the parser again, and docutils nests a node per level:
2 MB of directives each one fence longer than the next peaked at 1.4 GB in a worker before a
RecursionError. No document needs more than a handful of levels, so one deeper than
:data:`MAX_NESTING` is refused before parsing, with its line: one pass over the lines, no parser.

The scan follows CommonMark's fences as MyST uses them: a fence of three or more backticks,
tildes or colons opens a block; a bare fence of the same character, at least as long, closes the
outermost open block it can close (an outer block finds its end before its body is parsed, so a
closer that fits the outer fence closes everything inside it). A code block (no ``{name}``) holds
text, not fences; a directive's body (``{note}``, ``{code-block}``…) is counted as nested, which
over-counts a code-block showing fences only by the levels it shows.
"""

from __future__ import annotations

import re

#: Directive and fence levels a document may nest (MyST's own documentation nests four).
MAX_NESTING = 40

_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,}|:{3,})(.*)")


def too_deep(text: str, limit: int = MAX_NESTING) -> int | None:
    """The 1-based line where the fences of ``text`` nest deeper than ``limit``, else None."""
    #: Open fences, outermost first: (character, length, holds fences).
    stack: list[tuple[str, int, bool]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE.match(line)
        if match is None:
            continue
        fence, info = match.group(1), match.group(2).strip()
        char, length = fence[0], len(fence)
        if char == "`" and "`" in info:
            continue  # an inline code span, not a fence
        if not info:
            closes = next((i for i, (c, n, _) in enumerate(stack) if c == char and length >= n), None)
            if closes is not None:
                del stack[closes:]
                continue
        if stack and not stack[-1][2]:
            continue  # inside a code block: text
        stack.append((char, length, info.startswith("{")))
        if len(stack) > limit:
            return number
    return None


def nesting_sentence(rel: str, line: int, limit: int = MAX_NESTING) -> str:
    """The one sentence for a document refused by :func:`too_deep`."""
    return (
        f"`{rel}` の {line} 行目でディレクティブやコードブロックの入れ子が {limit} 段を超えるので読まずに止めたため、"
        "入れ子を浅くするか文書を分けてください。"
    )
