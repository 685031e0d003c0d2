"""What a document's text holds that no parser is given, measured before any parser sees it: fences
nested too deep, and more headings than a worker's memory can hold as sections.

MyST parses a directive's body by calling the parser again, and docutils nests a node per level:
2 MB of directives each one fence longer than the next peaked at 1.4 GB in a worker before a
RecursionError. No document needs more than a handful of levels, so one deeper than
:data:`MAX_NESTING` is refused before parsing, with its line: one pass over the lines, no parser.
Each heading becomes a section: 150,000 of them took 35 s and 1.7 GB of a worker (past its memory
bound on most machines, after seconds of work); one past :data:`MAX_HEADINGS` is refused in the
same pass, with its line.

The scan follows CommonMark's fences as MyST uses them: a fence of three or more backticks,
tildes or colons opens a block; a bare fence of the same character, at least as long, closes the
outermost open block it can close (an outer block finds its end before its body is parsed, so a
closer that fits the outer fence closes everything inside it). A code block (no ``{name}``) holds
text, not fences nor headings; a directive's body (``{note}``, ``{code-block}``…) is counted as
nested, which over-counts a code-block showing fences only by the levels it shows. A heading is an
ATX line (``#`` to ``######`` and a space, at most three spaces in) outside a code block; the
``#`` lines of a directive's body count, a ``{code-block}``'s comments too (which only matters
past the limit).
"""

from __future__ import annotations

import re

#: Directive and fence levels a document may nest (MyST's own documentation nests four).
MAX_NESTING = 40
#: Headings a document may hold (the longest real documents hold a few thousand).
MAX_HEADINGS = 50_000

_LINE = re.compile(r"[ ]{0,3}(?:(`{3,}|~{3,}|:{3,})(.*)|#{1,6}(?:[ \t]|$))")


def refused(text: str, limit: int = MAX_NESTING, headings: int = MAX_HEADINGS) -> tuple[str, int] | None:
    """``("nesting", line)`` at the 1-based line where the fences of ``text`` nest deeper than
    ``limit``, ``("headings", line)`` at the heading past ``headings``, else None (the first found)."""
    #: Open fences, outermost first: (character, length, holds fences).
    stack: list[tuple[str, int, bool]] = []
    count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        match = _LINE.match(line)
        if match is None:
            continue
        fence = match.group(1)
        if fence is None:  # a heading, unless a code block holds it
            if not stack or stack[-1][2]:
                count += 1
                if count > headings:
                    return "headings", number
            continue
        info = match.group(2).strip()
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
            return "nesting", number
    return None


def nesting_sentence(rel: str, line: int, limit: int = MAX_NESTING) -> str:
    """The one sentence for a document refused for its nesting by :func:`refused`."""
    return (
        f"`{rel}` の {line} 行目でディレクティブやコードブロックの入れ子が {limit} 段を超えるので読まずに止めたため、"
        "入れ子を浅くするか文書を分けてください。"
    )


def headings_sentence(rel: str, line: int, limit: int = MAX_HEADINGS) -> str:
    """The one sentence for a document refused for its headings by :func:`refused`."""
    return f"`{rel}` の {line} 行目で見出しが {limit:,} 個を超えるので読まずに止めたため、文書を分けてください。"
