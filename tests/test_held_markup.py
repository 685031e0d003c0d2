"""Issue 33: before ``mdmark trust``, the directives and roles of the extensions conf.py names but
mdmark does not load are no ``syntax`` drift. Their blocks stay (a body the extension parses as
markup is still checked), the one trust notice counts them per extension, and build says the same
notice instead of dropping them. After trust the real extensions run and the notice is gone.

Real runs of ``python -m mdmark`` on a small project; the names are found by reading the
extensions' sources (Sphinx's graphviz, a local extension, conf.py's own ``setup()``), never by running them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import SPHINX_DOCS_CONFIG, run_mdmark, trust_project

from mdmark.host.held_markup import CONF_SETUP, held_markup

CONF = """\
import os, sys
sys.path.insert(0, os.path.abspath("_ext"))
extensions = ["myst_parser", "sphinx.ext.graphviz", "demoext"]
myst_enable_extensions = ["colon_fence"]


def setup(app):
    app.add_directive("conf-box", ConfBox)
    app.add_role("conf-role", conf_role)
"""

DEMO_EXT = """\
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

KINDS = ("alpha", "beta")


class Demo(SphinxDirective):
    has_content = True

    def run(self):
        box = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


def setup(app):
    app.add_directive("demo", Demo)
    for kind in KINDS:
        app.add_directive(f"demo-{kind}", Demo)
    return {"parallel_read_safe": True}
"""

INDEX = """\
# Held

```{graphviz}
digraph { a -> b }
```

```{demo}
A [link](missing.md) in a body the extension parses.
```

:::{demo-beta}
:any-option: yes
text
:::

```{conf-box}
kept as written
```

A {conf-role}`role text` here.

```{nosuch}
a real typo
```
"""

CONFIG = SPHINX_DOCS_CONFIG


pytestmark = pytest.mark.usefixtures("private_cache")


def checked_untrusted(root: Path) -> list[dict[str, str]]:
    """The drifts of ``mdmark check`` on ``root`` (its documents written) with this file's config, untrusted."""
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues: list[dict[str, str]] = json.loads(check.stdout)["issues"]
    return issues


def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "docs" / "_ext").mkdir(parents=True)
    conf = CONF + "\nclass ConfBox:\n    pass\n\n\ndef conf_role(*args):\n    return [], []\n"
    (root / "docs" / "conf.py").write_text(conf, encoding="utf-8")
    (root / "docs" / "_ext" / "demoext.py").write_text(DEMO_EXT, encoding="utf-8")
    (root / "docs" / "index.md").write_text(INDEX, encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_names_are_read_from_the_sources_without_running_them(tmp_path: Path) -> None:
    root = project(tmp_path)
    conf = root / "docs" / "conf.py"
    found = held_markup(conf, ("sphinx.ext.graphviz", "demoext"), [root / "docs" / "_ext"])
    assert {k: v for k, v in found.directives.items() if not k.startswith("auto")} == {
        "graphviz": "sphinx.ext.graphviz",
        "graph": "sphinx.ext.graphviz",
        "digraph": "sphinx.ext.graphviz",
        "demo": "demoext",
        "demo-alpha": "demoext",
        "demo-beta": "demoext",
        "conf-box": CONF_SETUP,
    }
    assert found.roles == {"conf-role": CONF_SETUP}
    assert found.markup == {"demo", "demo-alpha", "demo-beta"}
    # Sphinx's autodoc registers its directives in a loop over literal object types.
    autodoc = held_markup(conf, ("sphinx.ext.autodoc",), [])
    assert {"automodule", "autoclass", "autofunction"} <= set(autodoc.directives)


def test_before_trust_held_blocks_are_one_notice_and_their_markup_is_still_checked(tmp_path: Path) -> None:
    root = project(tmp_path)
    check = run_mdmark("check", "--format", "json", cwd=root)
    assert check.returncode == 1, check.stderr
    issues = json.loads(check.stdout)["issues"]
    got = sorted((i["file"], i["where"], i["kind"]) for i in issues)
    assert got == [
        ("docs/index.md", "22", "syntax"),  # a typo is still a typo: no extension would add it
        ("docs/index.md", "8", "broken_link"),  # inside {demo}: its body is Markdown, checked
        ("mdmark.config.yaml", "sphinx.conf", "config_value"),
    ], issues
    notice = next(i["message"] for i in issues if i["kind"] == "config_value")
    assert "`conf.py` の 2 箇所" in notice and "`demoext` の 2 箇所" in notice and "`sphinx.ext.graphviz` の 1 箇所" in notice
    assert "5 箇所" in notice and "`mdmark trust`" in notice

    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    assert notice in built.stderr  # build says it too: nothing is dropped silently
    page = (root / "dist" / "docs.html").read_text(encoding="utf-8")
    assert "digraph { a -&gt; b }" in page and "kept as written" in page and "role</span> <span class=\"pre\">text" in page
    assert page.count('class="mdmark-unchecked') == 5


def test_after_trust_the_extensions_run_and_the_notice_is_gone(tmp_path: Path) -> None:
    root = project(tmp_path)
    # The conf.py stand-ins are only names here: trusted, setup() must be able to run.
    conf = root / "docs" / "conf.py"
    conf.write_text(
        CONF.replace('    app.add_directive("conf-box", ConfBox)\n    app.add_role("conf-role", conf_role)\n', "    pass\n"),
        encoding="utf-8",
    )
    (root / "docs" / "index.md").write_text(INDEX.split("```{conf-box}")[0], encoding="utf-8")
    trust_project(root / "mdmark.config.yaml")
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues = json.loads(check.stdout)["issues"]
    assert [(i["where"], i["kind"]) for i in issues] == [("8", "broken_link")], issues


def test_notebooks_a_held_myst_nb_reads_are_there_before_trust(tmp_path: Path) -> None:
    """myst-nb held: ``.ipynb`` and ``nb_custom_formats`` documents exist for Sphinx; a toctree entry
    or a label in one is no drift before trust, and the notebook cell is one unchecked block."""
    pytest.importorskip("myst_nb")
    root = tmp_path / "nb"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text(
        'extensions = ["myst_nb"]\nnb_custom_formats = {".Rmd": ["jupytext.reads", {"fmt": "Rmd"}]}\n', encoding="utf-8"
    )
    (root / "docs" / "index.md").write_text(
        "# Book\n\n```{toctree}\nnotebook\ncustom\n```\n\nSee {ref}`in-notebook`.\n\n```{code-cell} python\nprint(1)\n```\n",
        encoding="utf-8",
    )
    (root / "docs" / "notebook.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    (root / "docs" / "custom.Rmd").write_text("# Custom\n\n(in-notebook)=\n## Here\n", encoding="utf-8")
    issues = checked_untrusted(root)
    assert [i["kind"] for i in issues] == ["config_value"], issues
    assert "`myst_nb` の 1 箇所" in issues[0]["message"]


def test_extensions_not_written_as_literals_make_every_unknown_name_conf_pys(tmp_path: Path) -> None:
    """conf.py computes its extensions (or execs another file): any directive may be an extension's,
    so none is "unknown" before trust; each is counted as conf.py's."""
    root = tmp_path / "w"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text('extensions = [name for name in names_from_elsewhere()]\n', encoding="utf-8")
    (root / "docs" / "index.md").write_text("# W\n\n```{whatever}\nbody\n```\n\nA {thing}`x`.\n", encoding="utf-8")
    issues = checked_untrusted(root)
    assert [i["kind"] for i in issues] == ["config_value"], issues
    assert "`conf.py` の 2 箇所" in issues[0]["message"]
