"""Exact source lines of doctree nodes.

Inline nodes carry their paragraph's line, so exact lines come from counting the soft line breaks in
the text before each node; a block whose reported line is off is checked against the source text.
"""

from __future__ import annotations

from docutils import nodes


def _lined_block(node: nodes.Node) -> nodes.Node | None:
    """The nearest block-level node (itself or an ancestor) that carries a line number.

    Inline nodes (links, emphasis) carry their paragraph's line, so they never count as blocks.
    """
    probe: nodes.Node | None = node
    while probe is not None:
        if not _in_text(probe) and getattr(probe, "line", None):
            return probe
        probe = probe.parent
    return None


def _in_text(node: nodes.Node) -> bool:
    """Whether ``node`` flows inside a text block (and so carries that block's first line).

    An inline-class node standing on its own (an ``{image}`` directive in a grid item) is a block.
    """
    if isinstance(node, nodes.Text):
        return True
    return isinstance(node, nodes.Inline) and isinstance(node.parent, nodes.TextElement | nodes.Inline)


def _unlined_holder(node: nodes.Node, block: nodes.Node) -> nodes.Node | None:
    """The innermost non-inline element between ``node`` (inclusive) and its lined ``block``."""
    probe: nodes.Node | None = node
    while probe is not None and probe is not block:
        if not _in_text(probe):
            return probe
        probe = probe.parent
    return None


def _last_words_at(block: nodes.Node) -> tuple[str, int]:
    """The block's last words and how many soft line breaks precede them in the block."""
    newlines = 0
    found = ("", 0)
    for text in block.findall(nodes.Text):
        for i, part in enumerate(str(text).split("\n")):
            if part.strip():
                found = (part.strip()[-12:], newlines + i)
        newlines += str(text).count("\n")
    return found


def _first_words(block: nodes.Node) -> str:
    return _first_words_at(block)[0]


def _first_words_at(block: nodes.Node) -> tuple[str, int]:
    """The block's first words and how many soft line breaks precede them in the block (a
    paragraph may start with an image or a line break before its first words)."""
    newlines = 0
    for text in block.findall(nodes.Text):
        for i, part in enumerate(str(text).split("\n")):
            if part.strip():
                return part.strip()[:12], newlines + i
        newlines += str(text).count("\n")
    return "", 0


class LineCounter:
    """Exact source lines: the block's line, corrected against the source, + soft breaks before.

    MyST reports one line too many for content inside some nested sphinx-design items (a colon
    fence inside a colon fence: ``grid-item``, ``grid-item-card``, ``tab-item``). Rather than
    special-case the components, each block's line is checked against the source text: when its
    first words stand on the line above and not on the reported one, the block moves up one.
    """

    def __init__(self, source_lines: list[str]) -> None:
        self._source = source_lines
        self._offsets: dict[int, dict[int, int]] = {}
        self._base: dict[int, int] = {}

    def _block_offsets(self, block: nodes.Node) -> dict[int, int]:
        key = id(block)
        if key not in self._offsets:
            offsets: dict[int, int] = {}
            newlines = 0
            for node in block.findall(include_self=False):
                offsets[id(node)] = newlines
                if isinstance(node, nodes.Text):
                    newlines += str(node).count("\n")
            self._offsets[key] = offsets
        return self._offsets[key]

    def _has(self, line: int, words: str) -> bool:
        return 1 <= line <= len(self._source) and words in self._source[line - 1]

    def _block_line(self, block: nodes.Node) -> int:
        key = id(block)
        if key not in self._base:
            line = int(block.line or 1)
            words, skip = _first_words_at(block)
            last, last_skip = _last_words_at(block)

            def fits(base: int) -> bool:
                # Both ends of a multi-line block must stand where the base puts them: a first line
                # whose words recur on the next line cannot fool the check.
                return self._has(base + skip, words) and (not last or self._has(base + last_skip, last))

            if words and not fits(line):
                # One line up: the nested-fence off-by-one; a few down: a label (tab, card title)
                # whose own node has no line and borrows the enclosing component's.
                for candidate in (line - 1, line + 1, line + 2):
                    if fits(candidate):
                        line = candidate
                        break
            self._base[key] = line
        return self._base[key]

    def _holder_line(self, holder: nodes.Node, block: nodes.Node) -> int | None:
        """The line of an element that has no line of its own (a tab or dropdown label, a card's
        link), found by searching the source for its words from its lined ancestor onwards."""
        key = id(holder)
        if key not in self._base:
            words = _first_words(holder)
            start = max(1, int(block.line or 1) - 1)
            found = None
            if words:
                for candidate in range(start, len(self._source) + 1):
                    if self._has(candidate, words):
                        found = candidate
                        break
            self._base[key] = found if found is not None else -1
        value = self._base[key]
        return value if value > 0 else None

    def lines_of(self, entries: list[str], start: int) -> list[int]:
        """The lines of ``entries`` (a directive's content lines, in order) from line ``start`` on."""
        found: list[int] = []
        probe = max(1, start)
        for entry in entries:
            line = next((n for n in range(probe, len(self._source) + 1) if self._source[n - 1].strip() == entry), None)
            if line is None:
                found.append(start)
            else:
                found.append(line)
                probe = line + 1
        return found

    def line(self, node: nodes.Node) -> int:
        block = _lined_block(node)
        if block is None:
            return 1
        if block is node:
            return max(1, self._block_line(block))
        holder = _unlined_holder(node, block)
        if holder is not None:
            # The node sits in a structural element without a line (e.g. a tab label, whose
            # nearest lined ancestor is the whole tab-set): the ancestor's line is not its line.
            found = self._holder_line(holder, block)
            if found is not None:
                offset = 0 if holder is node else self._block_offsets(holder).get(id(node), 0)
                return found + offset
        offset = self._block_offsets(block).get(id(node), 0)
        return max(1, self._block_line(block) + offset)
