"""East Asian line breaks: a newline between two Japanese characters joins the lines.

Japanese authors break long lines in the source, and a browser shows a newline inside a paragraph
as a space, so ``サービスです。⏎全体は`` reads ``サービスです。 全体は``. This post-transform
removes such a newline (with the spaces around it) when the characters on both sides are East
Asian wide or fullwidth; a line that ends with 。、！？ (or their halfwidth forms) and goes on
with such a character is joined too. A newline next to Latin text stays (it is the space between
words), and code, preformatted blocks, math and raw markup are never touched.

It is one Sphinx post-transform, so every writer gets it: ``mdmark export`` and ``mdmark build``
(their Sphinx application turns it on) and, through the Sphinx extension, any builder of a Sphinx
project that sets ``mdmark_join_east_asian_lines = True`` in conf.py. The doctree that ``check``
and the MCP tools read is the one before post-transforms, so line numbers and name occurrences
are the source's.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from sphinx.transforms.post_transforms import SphinxPostTransform

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

#: The conf.py value that turns the transform on (mdmark's own pipeline sets it).
CONFIG_NAME = "mdmark_join_east_asian_lines"

#: Marks after which a break joins the next line when that line starts with a wide character,
#: including the halfwidth forms (which are not wide themselves).
_SENTENCE_MARKS = frozenset("。、！？｡､")

#: A line break with the spaces and tabs around it (MyST keeps one "\n" per soft break).
_BREAK = re.compile(r"[ \t]*\n[ \t]*")


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def joins(before: str, after: str) -> bool:
    """Whether a line break between the characters ``before`` and ``after`` disappears."""
    if not before or not after or not _wide(after):
        return False
    return _wide(before) or before in _SENTENCE_MARKS


def _kept_as_is(node: nodes.Node, top: nodes.Node) -> bool:
    """Whether a text node lies in code, math, raw markup or a comment (below ``top``)."""
    from docutils import nodes

    keep = (nodes.literal, nodes.FixedTextElement, nodes.raw, nodes.math, nodes.comment)
    parent = node.parent
    while parent is not None and parent is not top.parent:
        if isinstance(parent, keep):
            return True
        parent = parent.parent
    return False


def _replace(old: nodes.Text, new: nodes.Text) -> None:
    # Element.replace finds the child by equality, and Text nodes are strings: the first "\n" of
    # the paragraph would be replaced instead of this one.
    parent = old.parent
    position = next(i for i, child in enumerate(parent.children) if child is old)
    parent[position] = new


def _join_in(block: nodes.TextElement) -> None:
    """Join the breaks of one paragraph (title, term…), looking across inline markup for neighbours."""
    from docutils import nodes

    texts: list[nodes.Text] = list(block.findall(nodes.Text))
    editable = [not _kept_as_is(text, block) for text in texts]
    values = [str(text) for text in texts]

    def before(index: int, position: int) -> str:
        if position > 0:
            return values[index][position - 1]
        for earlier in range(index - 1, -1, -1):
            if values[earlier]:
                return values[earlier][-1]
        return ""

    def after(index: int, position: int) -> str:
        if position < len(values[index]):
            return values[index][position]
        for later in range(index + 1, len(values)):
            if values[later]:
                return values[later][0]
        return ""

    for index, text in enumerate(texts):
        value = values[index]
        if not editable[index] or "\n" not in value:
            continue
        pieces: list[str] = []
        last = 0
        for match in _BREAK.finditer(value):
            pieces.append(value[last : match.start()])
            if not joins(before(index, match.start()), after(index, match.end())):
                pieces.append(match.group())
            last = match.end()
        pieces.append(value[last:])
        joined = "".join(pieces)
        if joined != value:
            values[index] = joined
            _replace(text, nodes.Text(joined))


def join_east_asian_lines(document: nodes.Node) -> None:
    """Join the East Asian line breaks of every paragraph-like element of ``document``."""
    from docutils import nodes

    for block in list(document.findall(nodes.TextElement)):
        # The outermost text element: a paragraph, not the emphasis inside it; never code.
        if isinstance(block, (nodes.FixedTextElement, nodes.literal, nodes.math)):
            continue
        if not isinstance(block.parent, nodes.TextElement):
            _join_in(block)


class JoinEastAsianLines(SphinxPostTransform):
    """The post-transform; a no-op unless ``mdmark_join_east_asian_lines`` is true."""

    # Before sphinx-design's and the HTML writer's post-transforms; the text is all that changes.
    default_priority = 100

    def run(self, **kwargs: Any) -> None:
        if getattr(self.config, CONFIG_NAME, False):
            join_east_asian_lines(self.document)


def enable(app: Sphinx) -> None:
    """Turn the transform on in an application mdmark reads with (export and build always join),
    unless the project's own conf.py says ``mdmark_join_east_asian_lines = False``."""
    from mdmark.host.myst_settings import user_set

    app.setup_extension("mdmark.host.linebreaks")
    if not user_set(app.config, CONFIG_NAME):
        setattr(app.config, CONFIG_NAME, True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value(CONFIG_NAME, False, "env", types=(bool,))
    app.add_post_transform(JoinEastAsianLines)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
