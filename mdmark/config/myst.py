"""What the installed MyST-Parser accepts, read from MyST itself rather than copied."""

from __future__ import annotations

import ast
import functools
import inspect


@functools.cache
def myst_extensions() -> tuple[str, ...]:
    """The syntax extensions MyST's own check (``check_extensions`` of its config) accepts, sorted.

    MyST keeps the list as a literal inside that function; it is read from the function's source,
    so a MyST release that adds or drops one changes what ``markdown.extensions`` accepts with no
    edit here. Imported only when a config names extensions: the warm path never pays for it.
    """
    from myst_parser.config.main import check_extensions

    tree = ast.parse(inspect.getsource(check_extensions))
    for node in ast.walk(tree):
        if isinstance(node, ast.List) and node.elts and all(
            isinstance(item, ast.Constant) and isinstance(item.value, str) for item in node.elts
        ):
            return tuple(sorted(str(item.value) for item in node.elts if isinstance(item, ast.Constant)))
    raise LookupError("MyST's check_extensions holds no list of extension names")
