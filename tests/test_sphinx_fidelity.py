"""Issue 33, check-side fidelity: what Sphinx renders without a warning is no drift, and what it
warns about is one, at the same line.

* ``{math:numref}`` is the math domain's (an equation label), not ``{numref}``;
* a label with ``:`` (``$$ … $$ (eqn:best)``) gets Sphinx's id (``equation-eqn-best``), and the
  ``{eq}`` link's href is that id;
* under ``nitpicky``, ``None``, built-in classes and ``typing`` names resolve as Sphinx's
  ``builtin_resolver`` lets them (no warning), other missing py targets are drifts;
* a warning Sphinx places at ``<unknown>`` is reported once, at the config file, without a line;
* code that does not lex as its language warns as Sphinx's highlighter does (``code_language``);
* an image an extension wrote into the application's build folder (myst-nb's ``jupyter_execute/``)
  is a build product, embedded, not "outside the project root";
* a warning only a document's read of another document's text gives (a nested ``{include}``'s
  path, which MyST reads from the including document's folder) is reported at the included file's
  line, as Sphinx reports it; one the other document's own read gives too is reported once.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_mdmark

from mdmark.core.facts import DocFacts, Warning
from mdmark.host.confinfo import ConfInfo
from mdmark.references.lookup import UNPLACED
from mdmark.references.main import Model
from mdmark.references.problems import document_problems

CONF = """\
extensions = ["myst_parser"]
myst_enable_extensions = ["dollarmath", "amsmath"]
nitpicky = True
"""

INDEX = """\
# Fidelity

$$ a = b $$ (eqn:best)

```{math}
:label: other:one
c = d
```

See {eq}`eqn:best` and {math:numref}`other:one`.

Types: {py:class}`str`, {py:class}`bool`, {py:obj}`None`, {py:exc}`ValueError`, {py:class}`typing.Any`, {py:class}`Optional`.

Missing: {py:class}`NoSuchThing`.

```python
!jupyter -h
```
"""

CONFIG = """\
docs:
  include: ["docs/*.md"]
sphinx:
  conf: docs/conf.py
"""


pytestmark = pytest.mark.usefixtures("private_cache")


def test_math_labels_and_builtins_as_sphinx_resolves_them(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "docs" / "index.md").write_text(INDEX, encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-q", "-E", "-b", "html", "docs", str(tmp_path / "out")],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    sphinx = sorted({int(m.group(1)) for m in re.finditer(r"index\.md:(\d+): WARNING", built.stderr)})
    assert sphinx == [14, 16], built.stderr  # NoSuchThing, and code that does not lex as Python
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues = [i for i in json.loads(check.stdout)["issues"] if i["file"] == "docs/index.md"]
    assert [(i["where"], i["kind"]) for i in issues] == [("14", "broken_anchor"), ("16", "code_language")], issues
    # The {eq} and {math:numref} links land on the ids Sphinx gives the equations.
    sphinx_page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    exported = run_mdmark("export", "docs/index.md", "--out", str(tmp_path / "page.html"), cwd=root)
    assert exported.returncode == 0, exported.stderr
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    for ident in ("equation-eqn-best", "equation-other-one"):
        assert f'id="{ident}"' in sphinx_page and f'href="#{ident}"' in sphinx_page
        assert f'id="{ident}"' in page and f'href="#{ident}"' in page


def test_a_warning_sphinx_cannot_place_is_unplaced_and_said_once() -> None:
    warning = Warning(1, "docutils", "Unexpected indentation.", UNPLACED)
    facts = DocFacts(path="index.md", sha="x", chars=1, title="T", warnings=[warning, warning])
    model = Model({"index": facts}.get, ["index"], ConfInfo(sphinx=True), srcdir="/src")
    found = document_problems(facts, model, "index")
    assert {(line, problem.file) for line, problem in found} == {(None, UNPLACED)}


def test_build_products_are_embedded_not_outside_the_root(tmp_path: Path) -> None:
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from mdmark.pipeline.build_products import embed_build_products

    src, build = tmp_path / "src", tmp_path / "cache" / "mdmark-sphinx-1"
    (build / "jupyter_execute").mkdir(parents=True)
    src.mkdir()
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    (build / "jupyter_execute" / "out.png").write_bytes(png)
    (tmp_path / "elsewhere.png").write_bytes(png)
    document = new_document("index.md", get_default_settings(Parser))
    product = nodes.image(uri="/" + str(Path("..") / "cache" / "mdmark-sphinx-1" / "jupyter_execute" / "out.png"))
    other = nodes.image(uri="../elsewhere.png")
    document += [product, other]
    embed_build_products(document, src, build)
    assert product["uri"].startswith("data:image/png;base64,")
    assert other["uri"] == "../elsewhere.png"  # not a build product: the usual rules judge it


def test_a_warning_only_the_including_read_gives_is_reported_at_the_included_line(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "docs" / "parts").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text('extensions = ["myst_parser"]\n', encoding="utf-8")
    (root / "docs" / "index.md").write_text("# 索引\n\n```{toctree}\nx\nparts/a\n```\n", encoding="utf-8")
    (root / "docs" / "x.md").write_text("# 題\n\n```{include} parts/a.md\n```\n", encoding="utf-8")
    # In a.md's own read `note.txt` is parts/note.txt; read from x.md, MyST looks for docs/note.txt.
    (root / "docs" / "parts" / "a.md").write_text(
        "# A\n\n```{nosuchdirective}\n```\n\n```{include} note.txt\n```\n", encoding="utf-8"
    )
    (root / "docs" / "parts" / "note.txt").write_text("注\n", encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(CONFIG.replace("docs/*.md", "docs/**/*.md"), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-q", "-E", "-b", "html", "docs", str(tmp_path / "out")],
        cwd=root, capture_output=True, text=True,
    )  # fmt: skip
    sphinx = sorted(set(re.findall(r"/docs/([\w/]+\.md:\d+): (?:WARNING|CRITICAL|ERROR|SEVERE)", built.stderr)))
    # MyST places the unknown directive of included text at the including line too.
    assert sphinx == ["parts/a.md:3", "parts/a.md:6", "x.md:3"], built.stderr
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues = sorted((i["file"], i["where"], i["kind"]) for i in json.loads(check.stdout)["issues"] if i["file"].startswith("docs/"))
    # a.md's unknown directive once (its own read gives it too); the missing file of x.md's read, at a.md's line.
    assert issues == [("docs/parts/a.md", "3", "syntax"), ("docs/parts/a.md", "6", "broken_link"), ("docs/x.md", "3", "syntax")], issues
    assert [f"docs/{place}" for place in sphinx] == [f"{file}:{where}" for file, where, _kind in issues]
