"""The answer formats of the reading tools (``format``: markdown, json, toon), one module each.

A format is a module of this package with ``NAME`` (what ``format`` says), ``ORDER`` (its place in
the list agents see; the first is the default) and ``render(data, markdown)``, which turns the
answer's JSON data into what the tool returns (``markdown`` is the tool's own Markdown table
writer, for the formats that want it). Adding a format is adding a module: the tools' ``format``
parameter, its schema and the CLI choices are read from here.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: What a format gives back: text, or the data itself (json: the MCP tool's structured content).
Answer = str | dict[str, Any]
Markdown = Callable[[dict[str, Any]], str]


@functools.cache
def _formats() -> dict[str, ModuleType]:
    modules = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)]
    return {module.NAME: module for module in sorted(modules, key=lambda m: m.ORDER)}


def names() -> tuple[str, ...]:
    """The format names, the default first."""
    return tuple(_formats())


def answer(data: dict[str, Any], fmt: str, markdown: Markdown) -> Answer:
    """``data`` in the format ``fmt`` (a name of :func:`names`, already checked by the tool's parameters)."""
    result: Answer = _formats()[fmt].render(data, markdown)
    return result
