"""Issue 33: ``mdmark init`` in an existing Sphinx project adopts it — a config naming its conf.py,
an index of the Markdown documents it has (IDs from paths, titles from first headings), nothing
written into its documents — and ``mdmark index add-unindexed`` adds the documents that appear
later without touching the rest of the index. Real runs of ``python -m mdmark`` and ``sphinx-build``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_mdmark, trust_project

CONF = """\
project = "Adopted"
extensions = ["myst_parser"]
exclude_patterns = ["_build", "drafts"]
"""

FILES = {
    "index.rst": "Adopted\n=======\n\n.. toctree::\n\n   alpha\n   sub/beta\n",
    "alpha.md": "# Alpha\n\nSee [beta](sub/beta.md).\n\n```{include} parts/common.md\n```\n",
    "parts/common.md": "A piece without a heading, included by alpha.\n",
    "sub/beta.md": "# Beta `code` *words*\n\nText.\n",
    "drafts/wip.md": "# Not read by Sphinx\n",
}


pytestmark = pytest.mark.usefixtures("private_cache")


def sphinx_project(tmp_path: Path, where: str) -> Path:
    root = tmp_path / "p"
    src = root / where
    for rel, text in {"conf.py": CONF, **FILES}.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


@pytest.mark.parametrize("where", ["docs", "docs/source", "."])
def test_init_adopts_the_project_and_writes_nothing_into_its_documents(tmp_path: Path, where: str) -> None:
    root = sphinx_project(tmp_path, where)
    before = tree(root)
    result = run_mdmark("init", cwd=root)
    assert result.returncode == 0, result.stderr
    after = tree(root)
    assert sorted(set(after) - set(before)) == ["index.yaml", "mdmark.config.yaml"]
    assert {k: v for k, v in after.items() if k in before} == before
    src = "" if where == "." else f"{where}/"
    config = (root / "mdmark.config.yaml").read_text(encoding="utf-8")
    assert f'conf: "{src}conf.py"' in config and 'title: "Adopted"' in config and 'lang: "en"' in config
    # The piece without a heading is no document of the index: left out of docs, not a drift.
    assert f'"{src}parts/common.md"]' in config
    index = (root / "index.yaml").read_text(encoding="utf-8")
    assert index.endswith(
        "docs:\n"
        f'  - id: "alpha"\n    path: "{src}alpha.md"\n    title: "Alpha"\n'
        f'  - id: "sub/beta"\n    path: "{src}sub/beta.md"\n    title: "Beta code words"\n'
    ), index
    # Before trust: the one notice; after: clean, as sphinx-build is.
    check = run_mdmark("check", "--format", "json", cwd=root)
    issues = json.loads(check.stdout)["issues"]
    assert [i["kind"] for i in issues] == ["config_value"], issues
    trust_project(root / "mdmark.config.yaml")
    check = run_mdmark("check", cwd=root)
    assert check.returncode == 0, check.stdout
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", where, str(tmp_path / "out")],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert built.returncode == 0 and built.stderr == "", built.stderr


def test_add_unindexed_adds_later_documents_and_keeps_the_rest(tmp_path: Path) -> None:
    root = sphinx_project(tmp_path, "docs")
    assert run_mdmark("init", cwd=root).returncode == 0
    index = root / "index.yaml"
    edited = index.read_text(encoding="utf-8").replace('    title: "Alpha"\n', '    title: "Alpha"  # mine\n    tags: [x]\n')
    index.write_text(edited, encoding="utf-8")
    (root / "docs" / "gamma.md").write_text("---\norphan: true\n---\n# Gamma\n", encoding="utf-8")
    (root / "docs" / "alpha-2.md").write_text("---\norphan: true\n---\n# Alpha again\n", encoding="utf-8")
    check = run_mdmark("check", "--format", "json", cwd=root)
    assert sorted(i["file"] for i in json.loads(check.stdout)["issues"] if i["kind"] == "unindexed_doc") == [
        "docs/alpha-2.md",
        "docs/gamma.md",
    ]
    added = run_mdmark("index", "add-unindexed", cwd=root)
    assert added.returncode == 0, added.stderr
    assert added.stdout == "索引 `index.yaml` に文書 2 件（`alpha-2`・`gamma`）を足しました。\n"
    text = index.read_text(encoding="utf-8")
    assert text.startswith(edited)  # what was there stays byte for byte
    assert "id: alpha-2" in text and "title: Gamma" in text
    again = run_mdmark("index", "add-unindexed", cwd=root)
    assert again.stdout == "索引 `index.yaml` に無い文書は docs にありませんでした。\n"
    assert index.read_text(encoding="utf-8") == text
    check = run_mdmark("check", "--format", "json", cwd=root)
    assert [i["kind"] for i in json.loads(check.stdout)["issues"]] == ["config_value"]


def test_init_without_conf_py_still_writes_the_starter(tmp_path: Path) -> None:
    result = run_mdmark("init", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "docs" / "welcome.md").is_file()


SAME_TITLES = {
    "conf.py": 'project = "Theme"\nextensions = ["myst_parser"]\nexclude_patterns = ["_build"]\n',
    "index.md": "# Theme\n\n```{toctree}\ncontent/notebooks\nexamples/notebooks\n```\n",
    "content/notebooks.md": "# Jupyter notebooks\n\nHow notebooks look.\n",
    "examples/notebooks.md": "# Jupyter notebooks\n\nSee [the other one](../content/notebooks.md).\n",
}


def test_documents_sharing_a_heading_are_told_apart_by_their_folder(tmp_path: Path) -> None:
    """Sphinx lets two documents share a first heading (sphinx-book-theme's two "Jupyter
    notebooks"); the index titles tell them apart by folder, so the first check is clean where
    sphinx-build is, and a later document with that heading is told apart too."""
    root = tmp_path / "p"
    for rel, text in SAME_TITLES.items():
        (root / "docs" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / rel).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    assert run_mdmark("init", cwd=root).returncode == 0
    index = (root / "index.yaml").read_text(encoding="utf-8")
    assert (
        '  - id: "content/notebooks"\n    path: "docs/content/notebooks.md"\n    title: "Jupyter notebooks (content)"\n'
        '  - id: "examples/notebooks"\n    path: "docs/examples/notebooks.md"\n    title: "Jupyter notebooks (examples)"\n'
    ) in index, index
    check = run_mdmark("check", "--format", "json", cwd=root)
    assert [i["kind"] for i in json.loads(check.stdout)["issues"]] == ["config_value"]  # the trust notice
    trust_project(root / "mdmark.config.yaml")
    check = run_mdmark("check", cwd=root)
    assert check.returncode == 0, check.stdout
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "html", "docs", str(tmp_path / "out")],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert built.returncode == 0 and built.stderr == "", built.stderr

    (root / "docs" / "guide").mkdir()
    (root / "docs" / "guide" / "notebooks.md").write_text("---\norphan: true\n---\n# Jupyter notebooks\n", encoding="utf-8")
    assert run_mdmark("index", "add-unindexed", cwd=root).returncode == 0
    assert "title: Jupyter notebooks (guide)" in (root / "index.yaml").read_text(encoding="utf-8")
    check = run_mdmark("check", cwd=root)
    assert check.returncode == 0, check.stdout

    # Told apart only while the heading is shared: a qualified title of a heading no other
    # document has is a title_mismatch again.
    (root / "docs" / "guide" / "notebooks.md").write_text("---\norphan: true\n---\n# Guide\n", encoding="utf-8")
    (root / "docs" / "examples" / "notebooks.md").write_text("# Examples\n", encoding="utf-8")
    check = run_mdmark("check", "--format", "json", cwd=root)
    assert sorted((i["kind"], i["where"]) for i in json.loads(check.stdout)["issues"]) == [
        ("title_mismatch", "docs[0].title"),
        ("title_mismatch", "docs[1].title"),
        ("title_mismatch", "docs[3].title"),
    ], check.stdout


@pytest.mark.parametrize(("ignore", "built_before"), [("docs/changelog.md", True), ("/docs/changelog.md", False), ("changelog.md", False), (".vscode/*\n!.vscode/*.template\ndocs/changelog.md", False), ("*.md\n!docs/[a-z]*.md\n!README.md\ndocs/changelog.md", True)])
def test_documents_git_ignores_are_left_out_of_the_document_set(tmp_path: Path, ignore: str, built_before: bool) -> None:
    """A document a build writes into the sources and ``.gitignore`` keeps out of the repository
    (jupyter_server's conf.py copies the changelog to ``other/changelog.md``) is read by Sphinx and
    built into the page, but it is no document of the index: init leaves it out of ``docs`` —
    whether a build already wrote it (git says it is ignored) or not yet (a fresh clone: the
    ``.gitignore`` names it) — so the first check after trust is clean as sphinx-build is."""
    root = sphinx_project(tmp_path, "docs")
    index_rst = root / "docs" / "index.rst"
    index_rst.write_text(index_rst.read_text(encoding="utf-8") + "   changelog\n", encoding="utf-8")
    changelog = root / "docs" / "changelog.md"
    (root / ".gitignore").write_text(ignore + "\n", encoding="utf-8")
    if built_before:
        changelog.write_text("# Changelog\n\n## 1.0\n\nFirst.\n", encoding="utf-8")
    assert run_mdmark("init", cwd=root).returncode == 0
    changelog.write_text("# Changelog\n\n## 1.0\n\nFirst.\n", encoding="utf-8")
    config = (root / "mdmark.config.yaml").read_text(encoding="utf-8")
    assert "changelog.md" in config.split("build:")[0], config  # out of docs, still in build
    assert "changelog" not in (root / "index.yaml").read_text(encoding="utf-8")
    trust_project(root / "mdmark.config.yaml")
    check = run_mdmark("check", cwd=root)
    assert check.returncode == 0, check.stdout
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    assert "First." in (root / "dist" / "docs.html").read_text(encoding="utf-8")
