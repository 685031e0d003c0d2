"""Issue 27's reproductions: domain objects, sphinx-design buttons and cards, a label's section.

The check goldens are ``tests/fixtures/check/domains`` and ``tests/fixtures/check/buttons`` (run by
test_check.py); here the same projects are built and exported, and every reference lands.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

from conftest import FIXTURES, run_mdmark, trust_project

from mdmark.core.facts import DocFacts, Link, Target
from mdmark.host.confinfo import ConfInfo, unverified_domains
from mdmark.references.main import Model


def _project(name: str, tmp: Path) -> Path:
    root = tmp / name
    shutil.copytree(FIXTURES / "check" / name, root, ignore=shutil.ignore_patterns("expected.txt"))
    trust_project(root / "mdmark.config.yaml")
    return root


def _landing(page: str) -> list[str]:
    ids = {html.unescape(i) for i in re.findall(r'\sid="([^"]*)"', page)}
    return sorted({h for h in (html.unescape(x) for x in re.findall(r'\shref="#([^"]*)"', page)) if h not in ids})


def test_domain_references_land_in_build_and_export(tmp_path: Path) -> None:
    root = _project("domains", tmp_path)
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    page = (root / "dist" / "docs.html").read_text(encoding="utf-8")
    assert _landing(page) == []
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", page) == []
    body = page[page.index('id="index"') :]
    # [](#Thing.run), [the class](pkg.Thing), [a thing](#Thing), [](Thing.run), then the roles.
    hrefs = re.findall(r'href="#(api:[^"]*)"', body.split("Missing:")[0])
    assert hrefs[:8] == ["api:pkg.Thing.run", "api:pkg.Thing", "api:pkg.Thing", "api:pkg.Thing.run",
                         "api:pkg.Thing", "api:pkg.Thing.run", "api:pkg.Thing", "api:pkg.Thing.run"]  # fmt: skip
    # ~pkg.Thing shows the last part, as Sphinx does; what lands nowhere is text, with a warning.
    assert '<span class="pre">Thing</span></code></a>' in body
    assert 'mdmark-unresolved' in body and "NoSuchClass" in built.stderr
    exported = run_mdmark("export", "index.md", "-o", "out/index.html", cwd=root)
    assert exported.returncode == 0, exported.stderr
    out = (root / "out" / "index.html").read_text(encoding="utf-8")
    assert 'href="../api.html#pkg.Thing.run"' in out
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", out) == []


def test_buttons_and_cards_land_on_the_document(tmp_path: Path) -> None:
    root = _project("buttons", tmp_path)
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    page = (root / "dist" / "docs.html").read_text(encoding="utf-8")
    assert _landing(page) == []
    assert re.findall(r"<a\b(?![^>]*\shref=)[^>]*>", page) == []
    # {button-link} guide/start.html, the card's :link:, {button-ref}: the document's section.
    assert len(re.findall(r'class="[^"]*sd-btn[^"]*" href="#guide/start"', page)) == 2
    assert re.search(r'class="sd-stretched-link[^"]*" href="#guide/start"', page)
    exported = run_mdmark("export", "index.md", "-o", "index.html", cwd=root)
    assert exported.returncode == 0, exported.stderr
    assert 'href="guide/start.html"' in (root / "index.html").read_text(encoding="utf-8")


def _facts(path: str, links: list[Link] = [], targets: list[Target] = []) -> DocFacts:  # noqa: B006
    return DocFacts(path=path, sha="x", links=list(links), targets=list(targets), title="T")


def test_names_only_autodoc_could_define_are_not_drift_while_it_does_not_run() -> None:
    assert unverified_domains(["sphinx.ext.autodoc", "myst_parser"], ["myst_parser"]) == ("py",)
    assert unverified_domains(["sphinx.ext.autodoc"], ["sphinx.ext.autodoc"]) == ()
    missing = Link("pkg.Missing", None, None, 3, "", role="myst")
    role = Link("Missing", None, None, 4, "", role="py:class", specific=True)
    docs = {"index": _facts("index.md", [missing, role])}
    for unverified, drift in (((), True), (("py",), False)):
        info = ConfInfo(unverified=unverified, nitpicky=True)
        model = Model(docs.get, ["index"], info)
        found = [model.resolve(link, "index") for link in (missing, role)]
        assert all((r.problem is not None) == drift for r in found)
        assert all(r.unverified == (not drift) for r in found)


def test_a_label_line_belongs_to_the_section_it_labels(tmp_path: Path) -> None:
    root = tmp_path / "labels"
    root.mkdir()
    (root / "mdmark.config.yaml").write_text('docs:\n  include: ["*.md"]\n', encoding="utf-8")
    (root / "doc.md").write_text("# Doc\n\n(first)=\n## First\n\nOne.\n\n(second-label)=\n\n## Second\n\nTwo.\n", encoding="utf-8")
    first = run_mdmark("read", "doc.md", "--section", "first", cwd=root)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("(first)=\n## First\n") and "second-label" not in first.stdout
    second = run_mdmark("read", "doc.md", "--section", "second-label", cwd=root)
    assert second.stdout.startswith("(second-label)=\n\n## Second\n")
