"""Warnings Sphinx says while writing a page (a code block Pygments cannot lex), and formulas the
page cannot draw: asked at reading, since mdmark's pipeline writes no page, so check reports them.
"""

from __future__ import annotations

import functools

from typing import TYPE_CHECKING

from docutils import nodes

from mdmark.core.facts import Warning
from mdmark.pipeline.elements import given
from mdmark.pipeline.lines import LineCounter

if TYPE_CHECKING:
    from pygments.lexer import Lexer


def highlight_warnings(doctree: nodes.document, source: str, elements: list[nodes.Element] | None = None) -> list[Warning]:
    """Sphinx's ``misc.highlighting_failure`` for code blocks whose language Pygments does not know
    (``sphinx.highlighting.PygmentsBridge.get_lexer``, which warns while writing the page — inside
    ``sphinx-build`` Sphinx says it itself; mdmark's pipeline, which writes no page, asks here)."""
    from sphinx.highlighting import lexer_classes

    found: list[Warning] = []
    for node in given(doctree, elements):
        if isinstance(node, nodes.literal):
            # Inline code with a language (``{l=…}`` of attrs_inline, the {code} role): Sphinx's
            # HTML writer highlights it when the node has the "code" class, and warns the same way.
            if "code" not in node.get("classes", ()):
                continue
        elif not isinstance(node, nodes.literal_block):
            continue
        lang = node.get("language")
        if not lang or lang == "default":
            continue
        lang = str(lang)
        if lang not in _SPHINX_LEXERS and lang not in lexer_classes and not _pygments_knows(lang):
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)  # Sphinx's location
            found.append(Warning(line, "misc.highlighting_failure", f"Pygments lexer name {lang!r} is not known"))
            continue
        # Sphinx lexes strictly first and warns when the code does not lex as its language
        # (``PygmentsBridge.highlight_block``): `!jupyter -h` in a Python cell, say.
        code = node.astext()
        error = None if node.get("force") else _lexing_error(code, lang)
        if error is not None:
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)
            found.append(
                Warning(
                    line,
                    "misc.highlighting_failure",
                    f'Lexing literal_block {code!r} as "{lang}" resulted in an error at token: {error!r}. Retrying in relaxed mode.',
                )
            )
    return found


def _lexing_error(code: str, lang: str) -> str | None:
    """The first token Pygments cannot lex ``code`` as ``lang`` with (as Sphinx's ``get_lexer``
    chooses the lexer), or None. A language an extension gave its own lexer is not asked."""
    from pygments.token import Error
    from pygments.util import ClassNotFound
    from sphinx.highlighting import lexer_classes, lexers

    if lang in ("py", "python", "py3", "python3"):
        lang = "pycon" if code.startswith(">>>") else "python"
    if lang == "pycon3":
        lang = "pycon"
    if lang in lexers or lang in ("none", "guess"):
        return None
    try:
        lexer = lexer_classes[lang]() if lang in lexer_classes else _pygments_class(lang)()
    except ClassNotFound:
        return None
    for token, value in lexer.get_tokens(code):
        if token is Error:
            return str(value)
    return None


#: The warning type of a formula that cannot be drawn (its message is check's sentence).
MATH_WARNING = "mdmark.math"


def math_warnings(doctree: nodes.document, source: str, elements: list[nodes.Element] | None = None) -> list[Warning]:
    """A warning for each formula (``$…$``, ``$$…$$``, ``{math}``) that the page cannot draw as
    written (:func:`mdmark.util.tex.math_problem`): said at reading, so check reports what export
    and build would show as TeX."""
    from mdmark.util.tex import math_message, math_problem

    found: list[Warning] = []
    for node in given(doctree, elements):
        if not isinstance(node, (nodes.math, nodes.math_block)):
            continue
        tex = node.astext()
        problem = math_problem(tex, isinstance(node, nodes.math_block))
        if problem is not None:
            line = int(node.line) if node.line else LineCounter(source.splitlines()).line(node)
            found.append(Warning(line, MATH_WARNING, math_message(tex, problem)))
    return found


@functools.cache
def _pygments_class(lang: str) -> type[Lexer]:
    """The lexer class ``get_lexer_by_name`` would make for ``lang``, found once per name and process
    (each search scans Pygments' table of every lexer: 0.7 ms a code block, by cProfile)."""
    from pygments.lexers import find_lexer_class_by_name

    found: type[Lexer] = find_lexer_class_by_name(lang)
    return found


@functools.cache
def _pygments_knows(lang: str) -> bool:
    """Whether Pygments has a lexer of that name (``get_lexer_by_name`` would make one). Its class is
    looked up, not made: making the first lexer of a class compiles all its rules, which a check
    never uses (by cProfile 0.3 s per worker process for the corpus's few languages, each worker
    again). Asked once per name and process (each question scans Pygments' table of every lexer);
    Sphinx too keeps the lexers it found for the life of its process."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        find_lexer_class_by_name(lang)
    except ClassNotFound:
        return False
    return True


#: Languages ``PygmentsBridge.get_lexer`` handles before asking Pygments.
_SPHINX_LEXERS = frozenset({"py", "python", "py3", "python3", "default", "pycon", "pycon3", "guess", "none"})
