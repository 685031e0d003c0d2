"""Differential tests against ``sphinx-build`` on two real MyST projects nobody here wrote.

``../shared/corpora/`` holds the sphinx-design and MyST-Parser documentation (MIT). Each test copies
one to a temporary folder, runs ``sphinx-build -E -q -b singlehtml`` on it *in the test*, and runs
mdmark's ``check`` and ``build`` with a config naming the project's conf.py:

* a document Sphinx reads without a warning gives no ``syntax`` drift;
* every broken reference Sphinx reports (``myst.xref_missing``, ``myst.iref_missing``, ``ref.ref``,
  ``toc.not_readable``) is a broken_link/broken_anchor drift at the same file and line (a toctree
  entry's drift is at the entry's own line, inside the directive Sphinx names), and mdmark reports
  no broken reference Sphinx does not;
* ``mdmark build`` exits 0, its page holds every document, and every ``href="#x"`` has its ``id="x"``.
"""

from __future__ import annotations

import html
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import REPO, run_mdmark, trust_project

#: ``MDMARK_CORPORA`` names another folder (a worktree whose parent has no ``shared/``).
CORPORA = Path(os.environ.get("MDMARK_CORPORA") or REPO.parent / "shared" / "corpora")
REFERENCE_TYPES = {"myst.xref_missing", "myst.iref_missing", "ref.ref", "toc.not_readable"}
_WARNING = re.compile(r"^(?P<file>.*?):(?P<line>\d+): (?:WARNING|ERROR|CRITICAL): (?P<msg>.*?)(?: \[(?P<type>[\w.-]+)\])+$")

CONFIG = """\
docs:
  include: ["docs/**/*.md"]
build:
  title: corpus
  include: ["docs/**/*.md"]
  out: dist/docs.html
sphinx:
  conf: docs/conf.py
"""


def _copy(name: str, tmp: Path) -> Path:
    source = CORPORA / name
    if not source.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{source} is missing: CI must lay shared/ beside the checkout")
        pytest.skip(f"{source} is not here")
    project = tmp / name
    shutil.copytree(source, project)
    for folder, _dirs, files in os.walk(project):
        os.chmod(folder, 0o755)
        for file in files:
            path = Path(folder) / file
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    (project / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    # sphinx-build runs the project's conf.py; for mdmark to read it the same way, the user trusts it.
    trust_project(project / "mdmark.config.yaml")
    return project


def _sphinx_build(project: Path, builder: str, out: Path, timeout: int = 600) -> str:
    """``sphinx-build -E -q -b <builder>`` of the project's docs/ into ``out``: its warnings' text."""
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "--no-color", "-E", "-q", "-b", builder, "docs", str(out)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stderr


def _sphinx_warnings(project: Path, tmp: Path) -> list[tuple[str, int, str, str]]:
    """What ``sphinx-build`` itself says about the project: (file relative to the project, line, type, message)."""
    stderr = _sphinx_build(project, "singlehtml", tmp / "sphinx-out")
    docs = (project / "docs").resolve()
    found = []
    for raw in stderr.splitlines():
        match = _WARNING.match(raw)
        if not match:
            continue
        file = Path(match.group("file"))
        try:
            rel = file.resolve().relative_to(docs).as_posix() if file.is_absolute() else file.as_posix().removeprefix("docs/")
        except ValueError:
            continue
        found.append((f"docs/{rel}", int(match.group("line")), match.group("type") or "", match.group("msg")))
    return found


def _toctree_span(project: Path, file: str, line: int) -> range:
    """The lines of the toctree directive that starts at ``line`` (Sphinx reports a toctree's entries there)."""
    lines = (project / file).read_text(encoding="utf-8").splitlines()
    fence = lines[line - 1].strip()[:3]
    end = line
    while end < len(lines) and not lines[end].strip().startswith(fence):
        end += 1
    return range(line, end + 2)


@pytest.fixture(scope="module", params=["sphinx-design", "myst-parser"])
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[tuple[str, int, str, str]], list[dict[str, str]]]]:
    tmp = tmp_path_factory.mktemp(request.param)
    project = _copy(request.param, tmp)
    warnings = _sphinx_warnings(project, tmp)
    result = run_mdmark("check", "--format", "json", cwd=project)
    assert result.returncode in (0, 1), result.stderr
    issues = json.loads(result.stdout)["issues"]
    yield project, warnings, issues


def test_documents_sphinx_reads_cleanly_have_no_syntax_drift(corpus: tuple[Path, list, list]) -> None:
    project, warnings, issues = corpus
    warned_files = {file for file, _line, _type, _msg in warnings}
    syntax = [i for i in issues if i["kind"] == "syntax" and i["file"] not in warned_files]
    assert syntax == []
    # And where Sphinx does warn while reading, mdmark's syntax drift stands at one of its lines.
    warned_lines = {(file, line) for file, line, _type, _msg in warnings}
    stray = [i for i in issues if i["kind"] == "syntax" and (i["file"], int(i["where"] or 0)) not in warned_lines]
    assert stray == []


def test_every_broken_reference_sphinx_reports_is_a_drift_at_its_line(corpus: tuple[Path, list, list]) -> None:
    project, warnings, issues = corpus
    broken = [i for i in issues if i["kind"] in ("broken_link", "broken_anchor")]
    at = {(i["file"], int(i["where"] or 0)) for i in broken}
    missing = []
    expected: set[tuple[str, int]] = set()
    for file, line, type_, msg in warnings:
        if "file not found" in msg or msg.startswith("Include file "):
            expected.add((file, line))  # a missing {include}/{literalinclude} file: broken_link
            continue
        if type_.startswith("ref.") and type_ not in REFERENCE_TYPES:
            expected.add((file, line))  # e.g. ref.class under nitpicky: mdmark may report it too
            continue
        if type_ not in REFERENCE_TYPES:
            continue
        if type_ == "toc.not_readable":
            span = [(file, n) for n in _toctree_span(project, file, line)]
            expected.update(span)
            if not any(place in at for place in span):
                missing.append((file, line, msg))
            continue
        expected.add((file, line))
        if (file, line) not in at:
            missing.append((file, line, msg))
    assert missing == []
    # Nothing Sphinx finds fine is a broken reference for mdmark.
    assert sorted(place for place in at if place not in expected) == []


def test_build_holds_every_document_without_dead_fragments(corpus: tuple[Path, list, list]) -> None:
    project, _warnings, _issues = corpus
    result = run_mdmark("build", cwd=project)
    assert result.returncode == 0, result.stderr
    page = (project / "dist" / "docs.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section class="mdmark-doc" id="([^"]*)"', page)
    documents = sorted(p.relative_to(project / "docs").with_suffix("").as_posix() for p in (project / "docs").rglob("*.md"))
    assert sorted(sections) == documents
    ids = {html.unescape(i) for i in re.findall(r'\sid="([^"]*)"', page)}
    dead = sorted({h for h in (html.unescape(x) for x in re.findall(r'\shref="#([^"]*)"', page)) if h not in ids})
    assert dead == []
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", page) == []  # never an <a> that goes nowhere
    # The page follows the root toctree, as singlehtml does.
    assert sections[0] == "index"


# -- real projects that document code (issue 27) ----------------------------------------------------
#
# Trimmed copies under tests/projects/<name>/ (README-mdmark.txt names the upstream repository, the
# commit and the license): each is built with ``sphinx-build -E -q -b html`` *in the test*, and every
# warning Sphinx gives on a Markdown document must be a drift of ``mdmark check`` at the same file
# and line (check ⊇ sphinx-build), and no drift may stand where Sphinx is silent — unless it is a
# real defect of the project named in DEFECTS with the reason.

PROJECTS = Path(__file__).resolve().parent / "projects"

#: Drifts Sphinx does not give that are real defects of the project: (file, line, kind) → why.
DEFECTS: dict[str, dict[tuple[str, int | None, str], str]] = {
    "stamina": {},
    "svcs": {
        ("docs/integrations/starlette.md", 4, "broken_anchor"): (
            "the docstring of svcs.starlette.get_pings refers to the label `aiohttp-health` of the aiohttp page this "
            "trimmed copy leaves out: a real broken reference, which Sphinx reports at the docstring "
            "(src/svcs/starlette.py:docstring of …:4), not at a Markdown line"
        ),
    },
    "markdown-it-py": {},
    "rst-root": {},
}

#: Warning types that need the network (inventories) and so are not compared.
NETWORK_TYPES = {"intersphinx.external", "myst.iref_missing"}

_ANY_WARNING = re.compile(
    r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+))?: (?:WARNING|ERROR|CRITICAL|SEVERE): (?P<msg>.*?)(?: \[(?P<type>[\w.-]+)\])?$"
)


def _real_warnings(project: Path, tmp: Path) -> list[tuple[str, int | None, str, str]]:
    """Every warning ``sphinx-build -b html`` gives on a Markdown document: (file relative to the
    project, line or None, type, message)."""
    stderr = _sphinx_build(project, "html", tmp / "sphinx-html", timeout=900)
    found = []
    for raw in stderr.splitlines():
        match = _ANY_WARNING.match(raw)
        if not match or not match.group("file").endswith(".md"):
            continue
        file = Path(match.group("file"))
        rel = (file.resolve() if file.is_absolute() else (project / file).resolve()).relative_to(project.resolve()).as_posix()
        line = int(match.group("line")) if match.group("line") else None
        type_ = match.group("type") or ""
        found.append((rel, line, type_, match.group("msg")))
    return found


@pytest.fixture(scope="module", params=sorted(DEFECTS))
def real_project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, list[tuple[str, int | None, str, str]], list[dict[str, str]]]]:
    name = request.param
    tmp = tmp_path_factory.mktemp(name)
    project = tmp / name
    shutil.copytree(PROJECTS / name, project)
    (project / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    warnings = _real_warnings(project, tmp)
    # What a new user sees first: the check before `mdmark trust` (issue 33).
    # In the test process, after other files' in-process runs, as a server's reading of a second
    # project is: once this check read index.md with sphinx-design's directives another application
    # had left in docutils' registries ("No such config value: 'sd_custom_directives'"; now each
    # application has its own, mdmark.host.docutils_names; tests/test_docutils_names.py).
    untrusted = run_mdmark("check", "--format", "json", cwd=project)
    assert untrusted.returncode in (0, 1), untrusted.stderr
    UNTRUSTED[name] = json.loads(untrusted.stdout)["issues"]
    # Trusted after sphinx-build ran: its conf.py may write into the project (sphinx-apidoc).
    trust_project(project / "mdmark.config.yaml")
    result = run_mdmark("check", "--format", "json", cwd=project)
    assert result.returncode in (0, 1), result.stderr
    issues = json.loads(result.stdout)["issues"]  # parses: nothing the project printed is in it
    yield name, project, warnings, issues


#: The drifts of ``mdmark check`` before trust, by project (filled by the fixture above).
UNTRUSTED: dict[str, list[dict[str, str]]] = {}


def _at(issue: dict[str, str]) -> tuple[str, int | None]:
    return issue["file"], int(issue["where"]) if issue["where"] else None


def test_real_project_check_gives_every_sphinx_warning_and_no_other(real_project: tuple[str, Path, list, list]) -> None:
    name, project, warnings, issues = real_project
    at = {_at(i) for i in issues}
    missed = []
    # Where Sphinx needs the network (an inventory), mdmark may say what it likes: not compared.
    expected: set[tuple[str, int | None]] = {(f, n) for f, n, t, _m in warnings if t in NETWORK_TYPES}
    warnings = [w for w in warnings if w[2] not in NETWORK_TYPES]
    for file, line, type_, msg in warnings:
        places = [(file, line)]
        if type_.startswith("toc.") and line is not None and type_ not in ("toc.no_title",):
            # Sphinx names a toctree's line; mdmark the entry's own line inside it.
            places = [(file, n) for n in _toctree_span(project, file, line)]
        expected.update(places)
        if not any(place in at for place in places):
            missed.append((file, line, type_, msg))
    false = sorted(
        (i["file"], i["where"], i["kind"], i["message"])
        for i in issues
        if _at(i) not in expected and (i["file"], _at(i)[1], i["kind"]) not in DEFECTS[name]
    )
    print(f"\n{name}: sphinx warnings {len(warnings)}, mdmark drifts {len(issues)}, missed {len(missed)}, false {len(false)}")
    assert missed == []
    assert false == []


def test_real_project_builds_with_every_link_landing(real_project: tuple[str, Path, list, list]) -> None:
    _name, project, _warnings, _issues = real_project
    result = run_mdmark("build", cwd=project)
    assert result.returncode == 0, result.stderr
    page = (project / "dist" / "docs.html").read_text(encoding="utf-8")
    ids = {html.unescape(i) for i in re.findall(r'\sid="([^"]*)"', page)}
    dead = sorted({h for h in (html.unescape(x) for x in re.findall(r'\shref="#([^"]*)"', page)) if h not in ids})
    assert dead == []
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", page) == []


def test_real_project_before_trust_is_the_one_notice_and_true_findings(real_project: tuple[str, Path, list, list]) -> None:
    """Before ``mdmark trust`` (issue 33): the one trust notice, and otherwise only drifts where
    sphinx-build warns too — no "unknown directive" for what the held extensions add."""
    name, project, warnings, _issues = real_project
    untrusted = UNTRUSTED[name]
    notices = [i for i in untrusted if i["kind"] == "config_value" and "mdmark trust" in i["message"]]
    assert len(notices) == 1, untrusted
    expected: set[tuple[str, int | None]] = set()
    for file, line, type_, _msg in warnings:
        if type_.startswith("toc.") and line is not None and type_ != "toc.no_title":
            expected.update((file, n) for n in _toctree_span(project, file, line))
        expected.add((file, line))
    false = sorted(
        (i["file"], i["where"], i["kind"], i["message"])
        for i in untrusted
        if i not in notices and _at(i) not in expected and (i["file"], _at(i)[1], i["kind"]) not in DEFECTS[name]
    )
    assert false == []


# -- an rST root (issue 33) ------------------------------------------------------------------------
#
# A project written for these tests (tests/projects/rst-root): its root is docs/index.rst, with rST
# and Markdown documents under its captioned toctrees. ``mdmark build`` and ``sphinx-build -b singlehtml`` are run *in the
# test* and their pages compared as a reader sees them.


@pytest.fixture(scope="module")
def rst_root(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The pages of mdmark's build and of Sphinx's singlehtml of the rST-root project."""
    tmp = tmp_path_factory.mktemp("rst-root")
    project = tmp / "rst-root"
    shutil.copytree(PROJECTS / "rst-root", project)
    (project / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    out = tmp / "singlehtml"
    _sphinx_build(project, "singlehtml", out)
    trust_project(project / "mdmark.config.yaml")
    built = run_mdmark("build", cwd=project)
    assert built.returncode == 0, built.stderr
    return (project / "dist" / "docs.html").read_text(encoding="utf-8"), (out / "index.html").read_text(encoding="utf-8")


def test_rst_root_page_holds_what_singlehtml_shows(rst_root: tuple[str, str]) -> None:
    """The root index.rst orders the page and its rST documents are in it: the same documents in
    the same order, headings, links with their hrefs, images, components and formulas as Sphinx's
    singlehtml page (the toctree is a list of links in mdmark's page: left out of the comparison)."""
    from html_helpers import summary

    page, sphinx_page = rst_root
    ours, theirs = summary(page, ("main", "mdmark-main")), summary(sphinx_page, ("div", "body"))
    assert ours.documents == ["index", *theirs.documents]  # singlehtml marks every document but the root
    assert ours.headings == theirs.headings and len(ours.headings) > 10
    # External links by their hrefs: a link around a remote image (a badge) keeps its <a>, with the
    # image's alt text as its text, since the page embeds no remote image.
    external = sorted(href for href, _text in ours.links if not href.startswith("#"))
    assert external == sorted(href for href, _text in theirs.links if not href.startswith("#"))
    # Links into the documents (rST's :ref: into Markdown and rST alike) land in both pages.
    assert sorted(text for href, text in ours.links if href.startswith("#")) == sorted(
        text for href, text in theirs.links if href.startswith("#")
    )
    ids = {html.unescape(i) for i in re.findall(r'\sid="([^"]*)"', page)}
    assert all(html.unescape(href[1:]) in ids for href, _text in ours.links if href.startswith("#"))
    assert ours.unlinked == theirs.unlinked == 0
    assert [posixpath.basename(alt) for alt in ours.images] == [posixpath.basename(alt) for alt in theirs.images]
    assert ours.components == theirs.components
    assert ours.formulas == theirs.formulas
