"""The elements of a doctree in document order: walked once and handed to every reader of the tree."""

from __future__ import annotations

from docutils import nodes


def elements_of(doctree: nodes.document) -> list[nodes.Element]:
    """Every element of the tree (itself included), in document order, as ``findall`` gives them."""
    return list(doctree.findall(nodes.Element))


def given(doctree: nodes.document, elements: list[nodes.Element] | None) -> list[nodes.Element]:
    """``elements`` when the caller walked the tree already, else the tree's own walk."""
    return elements if elements is not None else elements_of(doctree)
