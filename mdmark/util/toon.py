"""TOON v4 answers (``format: "toon"``): the json answer's data in Token-Oriented Object Notation.

The encoder is the format authors' own Python package (``toon-format``); it passes every encode
fixture of the TOON v4 specification (``tests/test_toon.py`` runs them all). Missing values stay
in the data as ``None`` and come out as ``null``, so arrays of uniform objects stay tables.
"""

from __future__ import annotations

from typing import Any


def encode(value: Any, *, delimiter: str = ",", indent: int = 2) -> str:
    """``value`` (JSON data) as TOON text, without a trailing newline (as the specification writes it)."""
    import toon_format

    text: str = toon_format.encode(value, delimiter=delimiter, indent_size=indent)
    return text
