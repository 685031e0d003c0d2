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


# -- the static reading of conf.py ------------------------------------------------------------------


def _conf(tmp_path: Path, text: str) -> Path:
    conf = tmp_path / "conf.py"
    conf.write_text(text, encoding="utf-8")
    return conf


def test_static_conf_reading_is_bounded_in_work(tmp_path: Path) -> None:
    """Values that grow back after each bound (a dict of itself, reset to UNREAD at the size
    bound) cost the reading its work budget: refused with a reason, nothing of it used."""
    from mdmark.host.static_conf import TOO_MUCH_WORK, read_conf

    bomb = 'extensions = ["myst_parser"]\na = {"k": 1}\n' + "a = {'x': a, 'y': a}\n" * 1700
    assert read_conf(_conf(tmp_path, bomb)) == read_conf(_conf(tmp_path, bomb))
    found = read_conf(_conf(tmp_path, bomb))
    assert found.problem == TOO_MUCH_WORK and found.values == {}
    long_string = 'a = "' + "x" * 100_000 + '"\n' + "b = a + a\n" * 1000
    assert read_conf(_conf(tmp_path, long_string)).problem == TOO_MUCH_WORK


def test_static_conf_values_are_shared_not_aliased(tmp_path: Path) -> None:
    """Reading a name copies nothing; a change in place changes that name only (as before), and a
    list appended to itself holds its old value, not itself."""
    from mdmark.host.static_conf import read_conf

    text = (
        'a = ["x"]\nb = a\na.append("y")\na.append(a)\nd = {"k": a}\nd["self"] = d\n'
        'extensions = ["myst_parser"]\nextensions += ["sphinx_design"]\n'
        + "c = [a, a]\n" * 3
    )
    values = read_conf(_conf(tmp_path, text)).values
    assert values["b"] == ["x"]
    assert values["a"] == ["x", "y", ["x", "y"]]
    assert values["d"] == {"k": values["a"], "self": {"k": values["a"]}}
    assert values["extensions"] == ["myst_parser", "sphinx_design"]
