"""Bounded by construction outside the workers (issue 37, item 5): each reproduction's small case,
run through the library (the hostile corpus runs the large ones through every front-end)."""

from __future__ import annotations

import os
from pathlib import Path

from mdmark.host import patches


def _tree(root: Path) -> None:
    for rel in ("index.md", "a/b.md", "a/c.rst", "a/_skip/d.md", "e/f.md", "e/g.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# t\n", encoding="utf-8")


def test_document_finder_lists_what_sphinx_lists_without_links(tmp_path: Path) -> None:
    from sphinx.util.matching import get_matching_files

    _tree(tmp_path)
    args = (tmp_path, ["**"], ["a/_skip", "**/*.txt"])
    assert list(patches._matching_files(*args)) == list(get_matching_files(*args))


def test_document_finder_follows_no_folder_link(tmp_path: Path) -> None:
    """Three links ``x -> .`` made Sphinx's walk 3^40 folders; a link to ``/`` listed the machine."""
    _tree(tmp_path / "docs")
    for name in ("x", "y", "z"):
        os.symlink(".", tmp_path / "docs" / name)
    os.symlink("/", tmp_path / "docs" / "root")
    os.symlink("../outside.md", tmp_path / "docs" / "file-link.md")
    found = list(patches._matching_files(tmp_path / "docs", ["**"], ["**/*.rst", "**/*.txt"]))
    assert sorted(found) == ["a/_skip/d.md", "a/b.md", "e/f.md", "file-link.md", "index.md"]
