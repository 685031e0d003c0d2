"""Issue 33: myst-nb's cross-notebook glue (``{glue}`other.ipynb::key```, ``{glue:text}``, the
``glue`` directive's ``:doc:``) pastes the other notebook's glued output into the page, as Sphinx's
post-transform does from that notebook's glue file; a key the notebook does not glue is the same
sentence at the same line in check and build, and a visible marker in the page (never nothing).

A real trusted myst-nb on a notebook with stored outputs (``nb_execution_mode = "off"``: nothing
runs). Skipped when myst-nb is not installed (it is no dependency of mdmark or of its tests).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_mdmark, trust_project, write_tree

pytest.importorskip("myst_nb")

#: A 1×1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
PREFIX = "application/papermill.record/"


def glued(key: str, bundle: dict[str, str]) -> dict[str, object]:
    """One output as ``myst_nb.glue(key, value, display=False)`` stores it."""
    return {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": key, "mime_prefix": PREFIX}},
        "data": {PREFIX + mime: value for mime, value in bundle.items()},
    }


def notebook(answer: str) -> str:
    outputs = [
        glued("answer", {"text/plain": answer}),
        glued("ratio", {"text/plain": "0.123456"}),
        glued("plot", {"image/png": PNG, "text/plain": "<Figure>"}),
        glued("table", {"text/html": "<table><tr><td>cell</td></tr></table>", "text/plain": "table"}),
    ]
    cells = [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Numbers\n"]},
        {"cell_type": "code", "id": "c1", "execution_count": 1, "metadata": {}, "source": ["glue(...)"], "outputs": outputs},
    ]
    kernel = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    return json.dumps({"cells": cells, "metadata": kernel, "nbformat": 4, "nbformat_minor": 5})


INDEX = """\
# Book

```{toctree}
numbers
```

The answer is {glue}`numbers.ipynb::answer` and the ratio {glue:text}`numbers.ipynb::ratio:.2f`.

```{glue} plot
:doc: numbers.ipynb
```

{glue:any}`numbers.ipynb::table`

Missing {glue}`numbers.ipynb::nothere`.
"""

CONFIG = """\
docs:
  include: ["docs/*.md", "docs/*.ipynb"]
build:
  include: ["docs/*.md", "docs/*.ipynb"]
  out: dist/docs.html
sphinx:
  conf: docs/conf.py
"""

MISSING = "glue の参照先 `numbers.ipynb::nothere` のキー `nothere` が `numbers.ipynb` で glue されていないので"


@pytest.fixture
def book(tmp_path: Path) -> Path:
    root = write_tree(
        tmp_path / "book",
        {
            "docs/conf.py": 'extensions = ["myst_nb"]\nnb_execution_mode = "off"\n',
            "docs/index.md": INDEX,
            "docs/numbers.ipynb": notebook("42"),
            "mdmark.config.yaml": CONFIG,
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    trust_project(root / "mdmark.config.yaml")
    return root


def test_a_missing_key_is_one_drift_at_its_line(book: Path) -> None:
    check = run_mdmark("check", "--format", "json", cwd=book)
    issues = json.loads(check.stdout)["issues"]
    assert [(i["file"], i["where"], i["kind"]) for i in issues] == [("docs/index.md", "15", "broken_anchor")], issues
    assert issues[0]["message"].startswith(MISSING)


def test_the_page_holds_the_other_notebooks_values(book: Path) -> None:
    build = run_mdmark("build", cwd=book)
    assert build.returncode == 0, build.stderr
    # The same sentence as check's, at the same place, and no other (myst-nb's post-transform has
    # nothing left to resolve, so its "not found" for the found keys is gone).
    said = [line for line in build.stderr.splitlines() if line.startswith("docs/")]
    assert len(said) == 1 and said[0].startswith(f"docs/index.md:15: {MISSING}"), build.stderr
    page = (book / "dist" / "docs.html").read_text(encoding="utf-8")
    # As Sphinx writes them: text/plain inline as a literal, {glue:text} formatted, the image, the HTML.
    assert 'The answer is <code class="docutils literal notranslate"><span class="pre">42</span></code>' in page
    assert 'the ratio <span class="pasted-text">0.12</span>.' in page
    assert f'src="data:image/png;base64,{PNG}"' in page
    assert '<span class="output text_html"><table><tbody><tr><td>cell</td></tr></tbody></table></span>' in page
    assert 'Missing <span class="mdmark-unresolved">numbers.ipynb::nothere</span>.' in page

    # The notebook glues another value: the page that pastes it follows (its fragment is stale).
    (book / "docs" / "numbers.ipynb").write_text(notebook("43"), encoding="utf-8")
    again = run_mdmark("build", cwd=book)
    assert again.returncode == 0, again.stderr
    page = (book / "dist" / "docs.html").read_text(encoding="utf-8")
    assert '<span class="pre">43</span>' in page and '<span class="pre">42</span>' not in page


def test_a_text_notebook_executed_at_reading_gives_its_value(tmp_path: Path) -> None:
    """A MyST text notebook (jupytext's ``mystnb`` format, as MyST-NB's documentation writes them)
    has no stored outputs: myst-nb runs it in a real kernel while reading, and the value pasted is
    the one that run glued — the notebook's outputs as Sphinx's environment has them."""
    calc = (
        "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n# Calc\n\n"
        "```{code-cell} python\nfrom myst_nb import glue\nglue(\"seven\", 3 + 4, display=False)\n```\n"
    )
    root = write_tree(
        tmp_path / "text",
        {
            "docs/conf.py": 'extensions = ["myst_nb"]\nnb_execution_mode = "force"\n',
            "docs/index.md": "# Text book\n\n```{toctree}\ncalc\n```\n\nSeven is {glue:text}`calc.md::seven:d`.\n",
            "docs/calc.md": calc,
            "mdmark.config.yaml": CONFIG,
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    trust_project(root / "mdmark.config.yaml")
    build = run_mdmark("build", cwd=root)
    assert build.returncode == 0, build.stderr
    assert not [line for line in build.stderr.splitlines() if line.startswith("docs/")], build.stderr
    assert 'Seven is <span class="pasted-text">7</span>.' in (root / "dist" / "docs.html").read_text(encoding="utf-8")


def test_a_notebook_project_after_another_application_in_the_process(tmp_path: Path) -> None:
    """Sphinx hands each configuration the very object of a default, and MyST's setup maps ``.md``
    to ``markdown`` inside the shared default ``source_suffix`` when conf.py sets none: the next
    application of the process (a server's other project, a worker forked after it) whose conf.py
    loads myst-nb alone kept that mapping, skipped myst-nb's, and every document stopped at "Source
    parser for markdown not registered". Each application now has its defaults to itself."""
    from sphinx.application import Sphinx

    from mdmark.config.main import MarkdownSettings
    from mdmark.pipeline.reading import App

    # An application made by Sphinx alone first (as a library caller, or another test, may): its
    # MyST writes into the shared default before mdmark has installed anything.
    plain = write_tree(tmp_path / "plain", {"conf.py": 'extensions = ["myst_parser"]\n', "index.md": "# Plain\n"})
    Sphinx(str(plain), str(plain), str(tmp_path / "plain-out"), str(tmp_path / "plain-dt"), "html", status=None, warning=None)
    first = write_tree(tmp_path / "first" / "docs", {"conf.py": 'extensions = ["myst_parser"]\n', "index.md": "# First\n"})
    App(first, MarkdownSettings(), conf=first / "conf.py", trusted=True)
    second = write_tree(tmp_path / "second" / "docs", {"conf.py": 'extensions = ["myst_nb"]\n', "index.md": "# Second\n\nText.\n"})
    notebooks = App(second, MarkdownSettings(), conf=second / "conf.py", trusted=True)
    assert notebooks.sphinx.config.source_suffix[".md"] == "myst-nb"
    tree, warnings = notebooks.read("index")
    assert "Text." in tree.astext() and not warnings, warnings
