"""The Sphinx host boundary: private attributes of Sphinx, docutils and MyST objects are touched in
``mdmark/host/`` only, and a session collects warnings as log records exactly as the text of
Sphinx's warning stream read them."""

from __future__ import annotations

import ast
import io
import logging
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from mdmark.config.main import MarkdownSettings
from mdmark.core.facts import Warning
from mdmark.host.app import ensure_known
from mdmark.host.session import SPHINX_LOCK, session
from mdmark.pipeline.pipeline import Pipeline

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
HOST_PACKAGE = ROOT / "mdmark" / "host"

#: Private names of the standard library that mdmark may use anywhere, with the reason.
STDLIB_PRIVATE = {
    "_exit": "os._exit: a worker or a stopped server ends at once, without running finalizers",
    "_run_exitfuncs": "atexit._run_exitfuncs: the mdmark program runs its exit handlers, then ends without Python's teardown (mdmark.cli.main.entry)",
}


def _own_private_names(files: list[Path]) -> set[str]:
    """Names mdmark itself defines: functions, classes, module and local names, parameters, and
    attributes it sets on its own objects (``self._x``, ``cls._x``)."""
    own: set[str] = set()
    for file in files:
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(node.name)
            elif isinstance(node, ast.arg):
                own.add(node.arg)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for part in ast.walk(target):
                        if isinstance(part, ast.Name):
                            own.add(part.id)
                        elif isinstance(part, ast.Attribute) and getattr(part.value, "id", None) in ("self", "cls"):
                            own.add(part.attr)
    return own


def _private(name: str) -> bool:
    # Dunder and sunder names (``__init__``, enum's ``_value_``) are documented interfaces.
    return name.startswith("_") and not name.startswith("__") and not name.endswith("_")


def foreign_private_uses(files: list[Path], own: set[str]) -> list[str]:
    """Every use of a private attribute mdmark does not define: attribute access or assignment,
    ``getattr``-style calls with a literal name, imports of private modules or names."""
    found = []
    for file in files:
        rel = file.relative_to(ROOT)
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
                if node.attr not in STDLIB_PRIVATE:
                    found.append(f"{rel}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module != "__future__":
                if node.module.split(".")[0] not in ("mdmark", "sphinx_ext"):
                    names = [node.module.split("."), [a.name for a in node.names]]
                    if any(_private(part) for group in names for part in group):
                        found.append(f"{rel}:{node.lineno}: from {node.module} import …")
            elif isinstance(node, ast.Import):
                found += [f"{rel}:{node.lineno}: import {a.name}" for a in node.names if any(_private(p) for p in a.name.split("."))]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and _private(node.args[1].value)
                and node.args[1].value not in own
            ):
                found.append(f"{rel}:{node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
    return found

#: Private Sphinx and docutils attributes (and the ways of re-pointing Sphinx's logging) that only
#: the host module may use: (what it is, a pattern that finds it in source text).
PRIVATE: list[tuple[str, str]] = [
    ("env._write_doc_doctree_cache", r"_write_doc_doctree_cache"),
    ("env._pickled_doctree_cache", r"_pickled_doctree_cache"),
    ("config._raw_config", r"_raw_config"),
    ("app._status", r"\b_status\b"),
    ("app._warning", r"\b_warning\b"),
    ("app._warncount / _exception_on_warning", r"_warncount|_exception_on_warning"),
    ("sphinx.builders._epub_base", r"_epub_base"),
    ("env.current_document assignment", r"current_document\s*=(?!=)"),
    ("domain data (std.data[...])", r"\.data\s*(?:\[|\.setdefault\(|\.get\()"),
    ("sphinx.util.logging.setup", r"\blogging\.setup\("),
    ("builder.prepare_writing", r"\bprepare_writing\(set\("),
    ("per-app state keyed by id(app)", r"\bid\(app\)"),
    ("SPHINX_LOCK defined elsewhere", r"^SPHINX_LOCK\s*="),
]


def _sources() -> list[Path]:
    files = [*(ROOT / "mdmark").rglob("*.py"), *(ROOT / "sphinx_ext").rglob("*.py")]
    return sorted(f for f in files if HOST_PACKAGE not in f.parents)


def test_no_private_attribute_of_sphinx_docutils_or_myst_outside_the_host() -> None:
    """Scanned, not listed: any private attribute mdmark does not define itself is someone else's."""
    every = sorted([*(ROOT / "mdmark").rglob("*.py"), *(ROOT / "sphinx_ext").rglob("*.py")])
    found = foreign_private_uses(_sources(), _own_private_names(every))
    assert found == [], "private attributes of other packages outside mdmark/host/:\n" + "\n".join(found)


def test_the_scan_finds_foreign_private_attributes() -> None:
    """The scan sees what the host does (a scan that finds nothing guards nothing)."""
    probe = ROOT / "mdmark" / "host" / "confine.py"
    assert any("'_renderer'" in line for line in foreign_private_uses([probe], set()))


def test_private_sphinx_names_only_in_the_host() -> None:
    found = []
    for file in _sources():
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for what, pattern in PRIVATE:
                if re.search(pattern, code, re.MULTILINE):
                    found.append(f"{file.relative_to(ROOT)}:{number}: {what}")
    assert found == [], "private Sphinx API outside mdmark/host/:\n" + "\n".join(found)


def test_the_boundary_test_sees_the_host_names() -> None:
    """The patterns find what the host module holds (a pattern that finds nothing guards nothing)."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted(HOST_PACKAGE.glob("*.py")))
    for what, pattern in PRIVATE:
        if what in ("app._status", "app._warning", "app._warncount / _exception_on_warning", "sphinx.util.logging.setup"):
            continue  # the host needs none of these any more: the session collects records
        if what == "per-app state keyed by id(app)":
            continue  # the host keeps per-app state in a WeakSet, not by id()
        assert re.search(pattern, text, re.MULTILINE), what


# -- warnings: records through the session == the old regex over Sphinx's text ---------------------

#: How mdmark read warnings before the session: Sphinx's warning stream, line by line.
_WARNING_LINE = re.compile(
    r"^(?P<loc>.*?)(?::(?P<line>\d+))?: (?:WARNING|ERROR|CRITICAL|SEVERE): (?P<msg>.*?)(?: \[(?P<type>[\w.-]+)\])?$"
)


def _regex_warnings(stream: str) -> list[Warning]:
    found: list[Warning] = []
    for raw in stream.splitlines():
        match = _WARNING_LINE.match(raw)
        if match:
            line = match.group("line")
            kind = match.group("type") or "docutils"
            if kind == "docutils" and match.group("msg").startswith("toctree glob pattern "):
                kind = "toc.empty_glob"
            message = match.group("msg").removesuffix(f" [{kind}]")
            found.append(Warning(int(line) if line else None, kind, message))
    return found


def _through_text(app: object, action: Callable[[], None]) -> list[Warning]:
    """``action`` with Sphinx's own logging set-up (text streams), its warnings read by the regex."""
    from sphinx.util import logging as sphinx_logging

    logger = logging.getLogger("sphinx")
    stream = io.StringIO()
    with SPHINX_LOCK:
        saved = (logger.handlers[:], logger.level, logger.propagate)
        sphinx_logging.setup(app, io.StringIO(), stream)  # type: ignore[arg-type]
        try:
            action()
        finally:
            logger.handlers[:] = saved[0]
            logger.setLevel(saved[1])
            logger.propagate = saved[2]
    return _regex_warnings(stream.getvalue())


def _raw_read(pipe: Pipeline, docname: str) -> Callable[[], None]:
    def read() -> None:
        from mdmark.host.docutils_names import in_use

        app = pipe.app
        with in_use(app):  # the application's own directives, as in any session of it
            if docname in app.env.all_docs:
                app.events.emit("env-purge-doc", app.env, docname)
                app.env.clear_doc(docname)
            ensure_known(app, docname)
            app.builder.read_doc(docname)

    return read


MANY = """\
# Many

## Same

```{nodirective}
```

{norole}`x`

```{image} missing.png
:width: nonsense
```

```{toctree}
:glob:

nothing*
```

::::{card} Title
Header
^^^
Body
::::

```{tab-set}
text outside tabs
```

#### skipped level

[^nofoot]

{{ undefined_sub }}

```{include} ../../../../etc/passwd
```

(dup)=
## A

(dup)=
## B

```{admonition}
no title
```

```{eval-rst}
.. note::
   :nonsense:

.. unknown-rst:: arg

   body
```
"""


@pytest.mark.parametrize(
    "source",
    ["extract/warnings/broken.md", "check/syntax/docs/a.md", "references/project/docs/index.md", "many"],
)
def test_read_warnings_equal_the_regex_over_sphinx_text(tmp_path: Path, source: str) -> None:
    if source == "many":
        doc = tmp_path / "docs" / "many.md"
        doc.parent.mkdir()
        doc.write_text(MANY, encoding="utf-8")
    else:
        shutil.copytree((FIXTURES / source).parent, tmp_path / "docs")
        doc = tmp_path / "docs" / Path(source).name
    pipe = Pipeline(tmp_path / "docs", MarkdownSettings(substitutions=(("known", "x"),)))
    docname = doc.stem
    _, collected = pipe.application().read(docname)
    expected = _through_text(pipe.app, _raw_read(pipe, docname))
    assert len({w.type for w in expected}) >= 2
    assert collected == expected


def test_logged_warnings_equal_the_regex_over_sphinx_text(tmp_path: Path) -> None:
    """Every shape of location, level, ``once``, ``[type]`` repeat and multi-line untyped message."""
    from docutils import nodes
    from sphinx.util import logging as sphinx_logging

    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    pipe.facts(tmp_path / "a.md")
    node = nodes.paragraph()
    node.source, node.line = str(tmp_path / "a.md"), 7
    no_line = nodes.paragraph()
    no_line.source = str(tmp_path / "a.md")
    log = sphinx_logging.getLogger("mdmark.test")

    def emit() -> None:
        log.warning("tuple", location=("a", 3), type="myst", subtype="header")
        log.warning("docname only", location="a", type="ref")
        log.warning("docname:line string", location="a:12")
        log.warning("node", location=node, type="design", subtype="tab")
        log.warning("node without line", location=no_line)
        log.warning("no location at all", type="myst", subtype="header")
        log.warning("empty docname", location=(None, 4))
        log.warning("repeat [design.grid]", location=("a", 5), type="design", subtype="grid")
        log.warning("toctree glob pattern 'x*' didn't match any documents", location=("a", 6))
        log.warning("first line\nsecond line\n\nthird", location=("a", 8))
        log.warning("args %s and %d%%", "one", 2, location=("a", 9), type="misc")
        log.error("an error", location=("a", 10), type="myst", subtype="directive_parse")
        log.critical("critical", location=("a", 11))
        log.warning("once", location=("a", 13), once=True)
        log.warning("once", location=("a", 13), once=True)
        log.info("info is no warning", location=("a", 14))

    expected = _through_text(pipe.app, emit)
    with session(pipe.app) as collected:
        emit()
    assert collected == expected
    assert [w.line for w in collected] == [3, None, 12, 7, None, 5, 6, 8, 9, 10, 11, 13]


def test_suppress_warnings_of_conf_py_apply(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text(
        'extensions = ["myst_parser"]\nsuppress_warnings = ["myst.header", "myst.directive_unknown"]\n',
        encoding="utf-8",
    )
    doc = tmp_path / "a.md"
    doc.write_text("# A\n\n### deep\n\n```{nodir}\n```\n\n{norole}`x`\n", encoding="utf-8")
    pipe = Pipeline(tmp_path, MarkdownSettings(), conf=tmp_path / "conf.py")
    _, collected = pipe.application().read("a")
    assert collected == _through_text(pipe.app, _raw_read(pipe, "a"))
    assert [w.type for w in collected] == ["myst.role_unknown"]


def test_a_multi_line_typed_warning_keeps_its_type(tmp_path: Path) -> None:
    """Where the regex lost the type (Sphinx appends ``[type]`` after the last line), the record has it."""
    from sphinx.util import logging as sphinx_logging

    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    with session(pipe.app) as collected:
        sphinx_logging.getLogger("mdmark.test").warning(
            "bad YAML\n  in line 2", location=("a", 4), type="myst", subtype="directive_parse"
        )
    assert collected == [Warning(4, "myst.directive_parse", "bad YAML")]


def test_session_puts_someone_elses_logging_back_and_nests(tmp_path: Path) -> None:
    """Inside ``sphinx-build`` (mdmark.sphinx_ext) the session must leave the build's handlers as
    they were; a session inside another on the same app hands its warnings outwards too."""
    from sphinx.util import logging as sphinx_logging

    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    logger = logging.getLogger("sphinx")
    theirs = logging.StreamHandler(io.StringIO())
    saved = (logger.handlers[:], logger.level, logger.propagate)
    try:
        logger.handlers[:] = [theirs]
        log = sphinx_logging.getLogger("mdmark.test")
        with session(pipe.app) as outer:
            log.warning("outer", location=("a", 1))
            with session(pipe.app) as inner:
                log.warning("inner", location=("a", 2))
            assert logger.handlers != [theirs]
        assert logger.handlers == [theirs]
        assert theirs.stream.getvalue() == ""
        assert [w.message for w in inner] == ["inner"]
        assert [w.message for w in outer] == ["outer", "inner"]
    finally:
        logger.handlers[:] = saved[0]
        logger.setLevel(saved[1])
        logger.propagate = saved[2]
