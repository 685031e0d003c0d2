"""Issue 33: before ``mdmark trust``, a conf.py setting the static reading cannot find (computed,
set by ``exec`` of a sibling file, by a star import) explains drifts it does not see; those drifts
are held, and the one trust notice names the settings and counts them. After trust conf.py runs and
the true drifts are there, no more and no fewer.

Real runs of ``mdmark check`` (and ``build``) on small projects; conf.py is never run before trust.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SPHINX_DOCS_CONFIG, run_mdmark, trust_project, write_tree

from mdmark.host.static_conf import StaticConf, read_conf

pytestmark = pytest.mark.usefixtures("private_cache")

#: Settings another file gives: MyST syntax, heading anchors.
SHARED = """\
extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "attrs_block"]
myst_heading_anchors = 4
"""

#: Read with Sphinx's defaults (no colon fence, no block attributes, anchors to level 3) the label
#: reference, the link to a level-4 heading and the link inside the note are drifts; with the
#: project's real settings only the link to a missing page is.
INDEX = """\
# Unread

```{toctree}
other
```

{#para-label}
A paragraph with a label.

See {ref}`the paragraph <para-label>` and [the deep heading](other.md#deep-four).

:::{note}
A note with a [missing page](missing.md).
:::
"""
OTHER = "# Other\n\n## Two\n\n### Three\n\n#### Deep four\n"

#: The true drift: the missing page, inside the colon-fence note.
AFTER_TRUST = [("docs/index.md", "13", "broken_link")]


def checked(root: Path) -> list[dict[str, str]]:
    done = run_mdmark("check", "--format", "json", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    issues: list[dict[str, str]] = json.loads(done.stdout)["issues"]
    return issues


def make(tmp_path: Path, conf: str, shared: bool = False) -> tuple[Path, StaticConf]:
    """The project with ``conf`` as its conf.py (and :data:`SHARED` beside it), and conf.py as read before trust."""
    files = {"mdmark.config.yaml": SPHINX_DOCS_CONFIG, "docs/index.md": INDEX, "docs/other.md": OTHER, "docs/conf.py": conf}
    root = write_tree(tmp_path / "p", {**files, **({"docs/shared_conf.py": SHARED} if shared else {})})
    return root, read_conf(root / "docs" / "conf.py")


def before_and_after(root: Path) -> str:
    """Check before trust (only the notice), then after (the true drift); returns the notice."""
    before = checked(root)
    assert [(i["file"], i["where"], i["kind"]) for i in before] == [("mdmark.config.yaml", "sphinx.conf", "config_value")], before
    notice = before[0]["message"]
    assert "`mdmark trust`" in notice and "報告を控えた" in notice
    trust_project(root / "mdmark.config.yaml")
    after = checked(root)
    assert [(i["file"], i["where"], i["kind"]) for i in after] == AFTER_TRUST, after
    return notice


def test_exec_of_a_file_the_reading_cannot_name_holds_what_it_may_set(tmp_path: Path) -> None:
    conf = """\
import os
exec(compile(open(os.environ.get("DOCS_SETTINGS", "shared_conf.py"), encoding="utf-8").read(), "s", "exec"))
html_theme = "alabaster"
"""
    root, static = make(tmp_path, conf, shared=True)
    assert static.opaque == ("exec",) and static.uncertain("myst_enable_extensions")
    assert not static.uncertain("html_theme")  # written after the exec: read
    notice = before_and_after(root)
    assert "`exec` で書かれうる設定で起こりうるずれ 2 件は報告を控えた" in notice, notice


def test_exec_of_a_sibling_file_is_read_as_conf_pys_own_text(tmp_path: Path) -> None:
    """The offline-wrapper shape: conf.py execs the project's own conf beside it, then filters its
    lists. The sibling is read (never run) as if written in conf.py, and trusting pins it too."""
    conf = """\
import os
_here = os.path.dirname(os.path.abspath(__file__))
exec(compile(open(os.path.join(_here, "shared_conf.py"), encoding="utf-8").read(), "shared_conf.py", "exec"))
myst_enable_extensions = [e for e in myst_enable_extensions if e != "linkify"]
"""
    root, static = make(tmp_path, conf, shared=True)
    assert static.opaque == () and static.files == ((root / "docs" / "shared_conf.py").resolve(),)
    assert static.values["myst_enable_extensions"] == ["colon_fence", "attrs_block"]
    assert static.values["myst_heading_anchors"] == 4
    from mdmark.host.trust_fingerprint import local_modules

    assert (root / "docs" / "shared_conf.py").resolve() in local_modules((root / "docs" / "conf.py").resolve(), root.resolve())
    before = checked(root)
    assert [(i["file"], i["where"], i["kind"]) for i in before] == [("mdmark.config.yaml", "sphinx.conf", "config_value"), *AFTER_TRUST]
    assert "報告を控えた" not in before[0]["message"]
    # The exec'd file is part of what the reading (and its caches) depend on.
    shared = root / "docs" / "shared_conf.py"
    shared.write_text(SHARED.replace("myst_heading_anchors = 4", "myst_heading_anchors = 3"), encoding="utf-8")
    assert ("docs/index.md", "10", "broken_anchor") in [(i["file"], i["where"], i["kind"]) for i in checked(root)]
    shared.write_text(SHARED, encoding="utf-8")
    trust_project(root / "mdmark.config.yaml")
    assert [(i["file"], i["where"], i["kind"]) for i in checked(root)] == AFTER_TRUST


def test_a_comprehension_over_an_unknown_is_unread_one_over_literals_is_read(tmp_path: Path) -> None:
    conf = """\
import os
extensions = [e for e in ("myst_parser", "sphinx.ext.graphviz") if not e.startswith("sphinx.ext.")]
myst_enable_extensions = [e for e in ("colon_fence", "attrs_block") if e not in os.environ.get("NO_MYST", "")]
myst_heading_anchors = 4 if "colon_fence" in myst_enable_extensions else 0
"""
    root, static = make(tmp_path, conf)
    assert static.extensions == ("myst_parser",)  # filtered with str.startswith: read
    assert {"myst_enable_extensions", "myst_heading_anchors"} <= static.unread and "extensions" not in static.unread
    notice = before_and_after(root)
    assert "値を確かめられなかった設定 `myst_enable_extensions`・`myst_heading_anchors` で起こりうるずれ 3 件" in notice, notice


def test_a_star_import_holds_what_the_module_may_set(tmp_path: Path) -> None:
    conf = """\
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shared_conf import *
"""
    root, _static = make(tmp_path, conf, shared=True)
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    # What the MCP tool check and the language server answer, from the same pipeline.
    from mdmark.check.collect import check, check_texts

    by_tool = [i["message"] for i in check(root)["issues"]]
    by_editor = [d.message for d in check_texts(root, {})[1]]
    notice = before_and_after(root)
    assert "`from shared_conf import *` で書かれうる設定で起こりうるずれ 2 件は報告を控えた" in notice, notice
    assert notice in built.stderr  # build said the very notice check gives
    assert by_tool == by_editor == [notice]


def test_only_the_drifts_an_unread_setting_explains_are_held(tmp_path: Path) -> None:
    """Only the heading anchors are unread: the link to a heading is held, the missing page (which
    no anchor setting explains) is still reported before trust."""
    conf = """\
import os
extensions = ["myst_parser"]
myst_enable_extensions = ["colon_fence", "attrs_block"]
myst_heading_anchors = int(os.environ.get("ANCHORS", "4"))
"""
    root, _static = make(tmp_path, conf)
    before = checked(root)
    got = [(i["file"], i["where"], i["kind"]) for i in before]
    assert got == [("mdmark.config.yaml", "sphinx.conf", "config_value"), *AFTER_TRUST], before
    assert "値を確かめられなかった設定 `myst_heading_anchors` で起こりうるずれ 1 件は報告を控えた" in before[0]["message"]
    trust_project(root / "mdmark.config.yaml")
    assert [(i["file"], i["where"], i["kind"]) for i in checked(root)] == AFTER_TRUST


def test_the_reading_follows_comprehensions_and_conditions_without_running_anything(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(
        "import os\n"
        'base = ["myst_parser", "sphinx.ext.todo", "linkify"]\n'
        'extensions = [e for e in base if e != "linkify"]\n'
        'pairs = {k: v for k, v in {"a": 1, "b": 2}.items() if v > 1 or k == "a"}\n'
        'theme = "furo" if "myst_parser" in extensions else "alabaster"\n'
        'if os.environ.get("EXTRA"):\n'
        '    extensions.append("sphinx.ext.graphviz")\n'
        "try:\n"
        "    import sphinx_design\n"
        "except ImportError:\n"
        "    nitpicky = True\n"
        "def setup(app):\n"
        "    exec('x = 1')\n",
        encoding="utf-8",
    )
    static = read_conf(conf)
    assert static.values["extensions"] == ["myst_parser", "sphinx.ext.todo"]
    assert static.values["pairs"] == {"a": 1, "b": 2} and static.values["theme"] == "furo"
    # Kept as the unconditional code gives it, but uncertain: a branch not decided may change it.
    assert static.uncertain("extensions") and static.uncertain("nitpicky")
    assert static.opaque == ()  # an exec inside setup() runs later, in its own scope
    assert not static.uncertain("theme")


def test_a_costly_comprehension_is_unread_the_rest_is_read(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text('b = ["x"]\n' + "b = b + b\n" * 12 + "c = [[x for x in b] for y in b]\nd = 1\n", encoding="utf-8")
    static = read_conf(conf)
    assert static.problem is None and len(static.values["b"]) == 4096 and static.values["d"] == 1
    assert "c" not in static.values and "c" in static.unread
