"""Issue 33: several Sphinx applications in one process (a server with two projects, a trusted and an
untrusted one; the test suite) each see the directives and roles of their own extensions only.

docutils' directive and role registries are global to the process and Sphinx's ``add_directive``
writes into them; an application made without a namespace of its own left sphinx-design's
directives behind, and the untrusted reading of another project (no sphinx-design loaded) ran its
``grid``, which stopped at "No such config value: 'sd_custom_directives'". Real applications and a
real ``mdmark check`` in this very process: its worker pool forks from a process that made an
application (a ``mdmark serve`` for two projects did not show it: its own process makes none).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import SPHINX_DOCS_CONFIG, run_mdmark, write_tree
from docutils.parsers.rst import directives as docutils_directives

from mdmark.config.main import MarkdownSettings
from mdmark.pipeline.reading import App

GRID = "# Cards\n\n::::{grid} 2\n:::{grid-item-card} One\nBody.\n:::\n::::\n"


def registered() -> set[str]:
    return set(vars(docutils_directives)["_directives"])


def untrusted_project(tmp_path: Path) -> Path:
    """A project whose conf.py names its extensions in a way the untrusted reading does not run
    (a comprehension): sphinx-design is not loaded, so its ``grid`` is a held block."""
    root = write_tree(
        tmp_path / "untrusted",
        {
            "docs/conf.py": 'extensions = [name for name in ("myst_parser", "sphinx_design")]\nmyst_enable_extensions = ["colon_fence"]\n',
            "docs/index.md": GRID,
            "mdmark.config.yaml": SPHINX_DOCS_CONFIG,
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_an_application_leaves_its_directives_to_itself(tmp_path: Path) -> None:
    before = registered()
    own = App(write_tree(tmp_path / "own", {"index.md": GRID}), MarkdownSettings())
    # Nothing of the application's extensions is left in the process's registries…
    assert registered() == before
    # …and it still reads its own grid (its names are in place while it is used).
    tree, warnings = own.read("index")
    assert "sd-row" in tree.pformat()
    assert not [w for w in warnings if "sd_custom_directives" in w.message], warnings
    assert registered() == before


@pytest.mark.parametrize("first", ["own", "trusted"])
def test_an_untrusted_check_after_another_application_in_the_process(tmp_path: Path, first: str) -> None:
    """The reported failure: an application with sphinx-design made in this process first (mdmark's
    own, or a trusted conf.py's), then the first (untrusted) check of a project that does not load it."""
    if first == "own":
        App(write_tree(tmp_path / "own", {"index.md": GRID}), MarkdownSettings())
    else:
        conf = 'extensions = ["myst_parser", "sphinx_design"]\nmyst_enable_extensions = ["colon_fence"]\n'
        docs = write_tree(tmp_path / "trusted" / "docs", {"conf.py": conf, "index.md": GRID})
        trusted = App(docs, MarkdownSettings(), conf=docs / "conf.py", trusted=True)
        assert "sphinx_design" in trusted.sphinx.extensions
    root = untrusted_project(tmp_path)
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues = json.loads(check.stdout)["issues"]
    assert [i["kind"] for i in issues] == ["config_value"], issues  # the one trust notice
    assert "sd_custom_directives" not in check.stdout
