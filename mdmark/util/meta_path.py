"""Asking the import system's other finders: what an import hook that only watches or refuses needs."""

from __future__ import annotations

import sys
from typing import Any


def find_elsewhere(own: object, name: str, path: Any = None, target: Any = None) -> Any:
    """The spec the other entries of ``sys.meta_path`` than ``own`` find for ``name`` (None if none does)."""
    for finder in sys.meta_path:
        if finder is own or not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(name, path, target)
        if spec is not None:
            return spec
    return None
