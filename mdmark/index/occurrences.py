"""Plain-text occurrences of names (document titles and aliases, glossary terms) in documents.

Which names exist depends on the index, which changes independently of the documents, so
occurrences are computed from the cached plain text (:class:`~mdmark.core.facts.TextRun`) each time,
with one trie-shaped regular expression over all names (fast even for thousands of names).
Names are compared after normalisation (NFKC, lower-case); a name that starts or ends with an
ASCII letter or digit must not continue a longer ASCII word (``API`` does not occur in ``APIs``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from mdmark.core.facts import TextRun
from mdmark.util.text import normalize


@dataclass(frozen=True)
class Occurrence:
    name: str
    """The normalised name that occurred."""
    owner: str
    """Whom the name belongs to (a document id or a term id)."""
    line: int


#: Groups a trie pattern may nest: the regular expression compiler recurses once per level.
MAX_PATTERN_NESTING = 200


def _trie_pattern(words: list[str]) -> str:
    """One regular expression for all ``words`` (a trie of alternations: fast for thousands).

    Built without recursion (a name may be any length), and when the trie nests too deep for the
    regular expression compiler (names that are prefixes of one another, by the hundred), a flat
    alternation, longest first, which finds the same names.
    """
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    # Post-order over an explicit stack: (node, children done); each node's (pattern, nesting).
    built: dict[int, tuple[str, int]] = {}
    stack: list[tuple[dict, bool]] = [(trie, False)]  # type: ignore[type-arg]
    while stack:
        node, done = stack.pop()
        children = [(ch, child) for ch, child in sorted(node.items()) if ch]
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for _, child in children)
            continue
        parts = [(re.escape(ch) + built[id(child)][0], built[id(child)][1]) for ch, child in children]
        for _, child in children:
            del built[id(child)]
        if not parts:
            built[id(node)] = ("", 0)
            continue
        depth = max(d for _, d in parts)
        if len(parts) == 1:
            body = parts[0][0]
        else:
            body = "(?:" + "|".join(p for p, _ in parts) + ")"
            depth += 1
        # Greedy optional: the longer name wins when one name is a prefix of another.
        if "" in node:
            body, depth = f"(?:{body})?", depth + 1
        built[id(node)] = (body, depth)
    pattern, nesting = built[id(trie)]
    if nesting > MAX_PATTERN_NESTING:
        return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return pattern


class NameMatcher:
    """Finds many names at once in normalised text."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        """``names``: (name, owner) pairs; a name shared by several owners belongs to all of them."""
        self.owners: dict[str, list[str]] = {}
        for name, owner in names:
            key = normalize(name)
            if key and owner not in self.owners.setdefault(key, []):
                self.owners[key].append(owner)
        words = sorted(self.owners)
        self._regex = re.compile(_trie_pattern(words)) if words else None

    def find(self, runs: Iterable[TextRun]) -> Iterator[Occurrence]:
        if self._regex is None:
            return
        for run in runs:
            text = normalize(run.text) if not run.text.isascii() else run.text.lower()
            for match in self._regex.finditer(text):
                word = match.group(0)
                if not word or word not in self.owners:
                    continue
                start, end = match.span()
                if word[0].isascii() and word[0].isalnum() and start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
                    continue
                if word[-1].isascii() and word[-1].isalnum() and end < len(text) and text[end].isascii() and text[end].isalnum():
                    continue
                for owner in self.owners[word]:
                    yield Occurrence(word, owner, run.line)
