"""What the installed MyST-Parser accepts, read from MyST itself rather than copied."""

from __future__ import annotations

import ast
import functools
import importlib.util
import re


@functools.cache
def myst_extensions() -> tuple[str, ...]:
    """The syntax extensions MyST's own check (``check_extensions`` of its config) accepts, sorted.

    MyST keeps the list as a literal inside that function; it is read from the function's source,
    so a MyST release that adds or drops one changes what ``markdown.extensions`` accepts with no
    edit here. Read from the module's file, not imported: importing MyST's config (docutils with
    it) was a fifth of a warm ``mdmark check`` of a config that names extensions.
    """
    spec = importlib.util.find_spec("myst_parser.config.main")
    if spec is None or spec.origin is None:
        raise LookupError("MyST's config module is not installed")
    with open(spec.origin, encoding="utf-8") as handle:
        text = handle.read()
    # The function alone (a top-level one: up to the next top-level statement) parses in a tenth of the module's time.
    match = re.search(r"^def check_extensions\b.*?(?=^\S)", text + "\n.", re.M | re.S)
    try:
        module = ast.parse(match.group(0)) if match else None
    except SyntaxError:  # written otherwise (a signature that closes at the margin): the whole module
        module = None
    if module is None:
        module = ast.parse(text)
    found = [n for n in ast.walk(module) if isinstance(n, ast.FunctionDef) and n.name == "check_extensions"]
    if not found:
        raise LookupError("MyST's config module has no check_extensions")
    for node in ast.walk(found[0]):
        if isinstance(node, ast.List) and node.elts and all(
            isinstance(item, ast.Constant) and isinstance(item.value, str) for item in node.elts
        ):
            return tuple(sorted(str(item.value) for item in node.elts if isinstance(item, ast.Constant)))
    raise LookupError("MyST's check_extensions holds no list of extension names")
