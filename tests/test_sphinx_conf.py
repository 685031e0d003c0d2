"""``sphinx.conf``: the pipeline's Sphinx application is created from a project's conf.py — run once
the user trusts it (``mdmark trust``), read statically until then (test_trust.py)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_mdmark, trust_project

CONF = '''\
import os, pathlib
pathlib.Path(os.environ.get("MARKER", "/nonexistent/marker")).write_text("ran")
extensions = ["myst_parser", "sphinx_design", "sphinx.ext.extlinks", "sphinx.ext.todo"]
extlinks = {"pr": ("https://example.com/pull/%s", "PR #%s")}
myst_enable_extensions = ["colon_fence", "substitution"]
myst_substitutions = {"product": "見本"}
myst_heading_anchors = 1
numfig_format = {"figure": "Figure %s"}
sd_custom_directives = {"dropdown-syntax": {"inherit": "dropdown", "argument": "Syntax"}}
'''


def _project(tmp_path: Path, conf: str = CONF, config: str | None = None) -> Path:
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text(conf, encoding="utf-8")
    (root / "docs" / "index.md").write_text(
        "# 入口\n\n{pr}`12` と {{product}}。\n\n```{todo}\nあとで\n```\n\n"
        ":::{dropdown-syntax}\n中身\n:::\n\n## 節\n\n[節へ](other.md#節)\n\n"
        "(fig-a)=\n```{figure} pic.svg\n\n図\n```\n\n{numref}`fig-a`\n",
        encoding="utf-8",
    )
    (root / "docs" / "other.md").write_text("# 他\n\n## 節\n\n本文。\n", encoding="utf-8")
    (root / "docs" / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>\n', encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(
        config
        if config is not None
        else 'docs:\n  include: ["docs/**/*.md"]\nmarkdown:\n  heading_anchors: 3\nsphinx:\n  conf: docs/conf.py\n',
        encoding="utf-8",
    )
    return root


def _trusted(root: Path) -> Path:
    trust_project(root / "mdmark.config.yaml")
    return root


def test_conf_settings_take_effect_and_markdown_only_fills_in(tmp_path: Path) -> None:
    root = _trusted(_project(tmp_path))
    # Inside the project: a trusted conf.py writes there as under sphinx-build, never outside (test_landlock.py).
    marker = root / "marker"
    result = run_mdmark("check", "--format", "json", cwd=root, env={"MARKER": str(marker)})
    assert marker.read_text() == "ran"
    issues = json.loads(result.stdout)["issues"]
    # extlinks, todo, substitutions from conf.py and the custom directive read cleanly; the link to a
    # level-2 heading is broken because conf.py's myst_heading_anchors (1) wins over markdown's 3.
    # other.md is in no toctree: sphinx-build says so (toc.not_included), and so does check.
    assert [(i["kind"], i["where"]) for i in issues] == [("broken_anchor", "15"), ("not_in_toctree", "")]
    assert "heading_anchors（1）" in issues[0]["message"]
    exported = run_mdmark("export", "docs/index.md", cwd=root, env={"MARKER": str(marker)})
    assert exported.returncode == 0, exported.stderr
    page = (root / "docs" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://example.com/pull/12"' in page and "PR #12" in page
    assert "見本" in page and "Figure 1" in page


def test_conf_runs_only_when_the_config_names_it(tmp_path: Path) -> None:
    root = _project(tmp_path, config='docs:\n  include: ["docs/**/*.md"]\n')
    marker = tmp_path / "marker"
    run_mdmark("check", cwd=root, env={"MARKER": str(marker)})
    run_mdmark("export", "docs/index.md", cwd=root, env={"MARKER": str(marker)})
    assert not marker.exists()


def test_an_extension_that_cannot_be_imported_is_one_drift(tmp_path: Path) -> None:
    root = _trusted(_project(tmp_path, conf='extensions = ["myst_parser", "no_such_extension_here", "sphinx.ext.todo"]\n'))
    for _ in range(2):  # the second run answers from the cache, the same
        result = run_mdmark("check", cwd=root)
        lines = result.stdout.splitlines()
        assert lines[0] == (
            "mdmark.config.yaml:sphinx.conf: config_value: conf.py の extensions の `no_such_extension_here` を読み込めない"
            "（Python の言葉で「ModuleNotFoundError: No module named 'no_such_extension_here'」）ので、その拡張を入れるか conf.py の extensions から外してください。"
        )
        # mdmark went on without it: the todo directive still reads.
        assert not any("todo" in line for line in lines[1:])


def test_installing_the_missing_extension_is_noticed(tmp_path: Path) -> None:
    """The sentence says to install the extension; once it is installed, the next check reads with
    it, though conf.py did not change (the failure was remembered with conf.py's outcome)."""
    site = tmp_path / "site-packages"  # on sys.path as an install folder, as a venv's is
    site.mkdir()
    conf = 'extensions = ["myst_parser", "mdmark_test_toggle"]\n'
    root = _trusted(_project(tmp_path, conf=conf))
    (root / "docs" / "index.md").write_text("# 入口\n\n```{toggle-box}\n中身\n```\n", encoding="utf-8")
    (root / "docs" / "other.md").unlink()
    env = {"PYTHONPATH": str(site)}
    before = run_mdmark("check", cwd=root, env=env).stdout
    assert "`mdmark_test_toggle` を読み込めない" in before and "`toggle-box`" in before
    (site / "mdmark_test_toggle.py").write_text(
        "from docutils.parsers.rst import Directive\n\n"
        "class Box(Directive):\n    has_content = True\n\n    def run(self):\n        return []\n\n"
        "def setup(app):\n    app.add_directive('toggle-box', Box)\n    return {'parallel_read_safe': True}\n",
        encoding="utf-8",
    )
    after = run_mdmark("check", cwd=root, env=env)
    assert after.returncode == 0, after.stdout
    assert "mdmark_test_toggle" not in after.stdout and "toggle-box" not in after.stdout


def test_a_conf_that_fails_stops_with_one_sentence(tmp_path: Path) -> None:
    root = _trusted(_project(tmp_path, conf='raise RuntimeError("boom")\n'))
    result = run_mdmark("check", cwd=root)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "設定の sphinx.conf の `conf.py` から Sphinx を用意できない（RuntimeError: boom）ので、conf.py を直すか sphinx.conf を外してください。"
    )
    assert "Traceback" not in result.stderr


def test_sphinx_conf_values_are_checked(tmp_path: Path) -> None:
    root = _project(tmp_path, config='sphinx:\n  conf: ../outside/conf.py\n')
    assert run_mdmark("check", cwd=root).stdout.splitlines()[0] == (
        "mdmark.config.yaml:sphinx.conf: config_value: sphinx.conf の `../outside/conf.py` は設定のフォルダの外を指しているので、設定のフォルダの中の conf.py を指定してください。"
    )
    (root / "mdmark.config.yaml").write_text("sphinx:\n  conf: docs/nope.py\n", encoding="utf-8")
    assert "sphinx.conf の conf.py `docs/nope.py` が見つからないので" in run_mdmark("check", cwd=root).stdout


def test_an_html_theme_that_is_not_installed_does_not_matter(tmp_path: Path) -> None:
    root = _trusted(_project(tmp_path, conf='extensions = ["myst_parser"]\nhtml_theme = "no_such_theme_here"\nhtml_theme_options = {"x": 1}\n'))
    result = run_mdmark("check", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    assert "theme" not in result.stdout + result.stderr


def test_rst_documents_define_what_markdown_references(tmp_path: Path) -> None:
    """A mixed project (as python-attrs' docs): labels and objects defined in .rst documents, Sphinx's
    built-in labels, and an <img> inside an HTML comment are no drift, as sphinx-build says nothing."""
    root = tmp_path / "mixed"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text(
        'extensions = ["myst_parser"]\nsource_suffix = {".rst": "restructuredtext", ".md": "markdown"}\n', encoding="utf-8"
    )
    (root / "docs" / "index.rst").write_text(
        "Top\n===\n\n.. toctree::\n\n   api\n   guide\n", encoding="utf-8"
    )
    (root / "docs" / "api.rst").write_text(
        ".. _api-label:\n\nAPI\n===\n\n.. py:function:: frobnicate(x)\n\n   Does it.\n", encoding="utf-8"
    )
    (root / "docs" / "guide.md").write_text(
        "# Guide\n\n{ref}`api-label`, [the API](api-label), [](frobnicate), {py:func}`frobnicate`, {ref}`genindex`.\n\n"
        '<!-- <img src="_static/{template}"> -->\n\n[gone](no-such-label)\n',
        encoding="utf-8",
    )
    (root / "mdmark.config.yaml").write_text(
        'docs:\n  include: ["docs/**/*.md"]\nbuild:\n  include: ["docs/**/*.md"]\n  out: dist/d.html\nsphinx:\n  conf: docs/conf.py\n',
        encoding="utf-8",
    )
    _trusted(root)
    result = run_mdmark("check", cwd=root)
    assert result.stdout.splitlines() == [
        "docs/guide.md:7: broken_anchor: リンク先 `no-such-label` に当たる見出し・ラベル・文書がどこにも無いので、近い `api-label` に直すか、リンクを直してください。"
    ]
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    # References into .rst documents stay text (mdmark builds Markdown only), without a warning each.
    assert "include に加えて" not in built.stderr


#: The config of the small Sphinx projects below: every Markdown document, the project's conf.py.
SPHINX_CONFIG = 'docs:\n  include: ["docs/**/*.md"]\nsphinx:\n  conf: docs/conf.py\n'
MYST_ONLY = 'extensions = ["myst_parser"]\n'


def _written(root: Path, files: dict[str, str], config: str = SPHINX_CONFIG) -> Path:
    """A project at ``root`` of ``files`` (path under it → text) and ``config``, its conf.py trusted."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(config, encoding="utf-8")
    return _trusted(root)


def test_an_rst_source_that_cannot_be_read_is_one_drift(tmp_path: Path) -> None:
    """An .rst source whose read fails (pip's docs with another pip installed: its extension's
    directive raises) defines no label; the references into it are reported, and so is the one
    cause, at the .rst file, rather than only the broken references with no word of why."""
    root = _written(
        tmp_path / "mixed",
        {
            "docs/conf.py": 'import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\nextensions = ["myst_parser", "failing_ext"]\n',
            "docs/failing_ext.py": (
                "from docutils.parsers.rst import Directive\n\n"
                "class Options(Directive):\n    def run(self):\n        raise AttributeError('no package_selection_group')\n\n"
                "def setup(app):\n    app.add_directive('command-options', Options)\n    return {'parallel_read_safe': True}\n"
            ),
            "docs/index.md": "# Top\n\n```{toctree}\ninstall\n```\n\n{ref}`pip-install`\n",
            "docs/install.rst": ".. _pip-install:\n\nInstall\n=======\n\n.. command-options::\n",
        },
    )
    lines = run_mdmark("check", cwd=root).stdout.splitlines()
    assert any(line.startswith("docs/index.md:7: broken_anchor:") for line in lines), lines
    assert (
        "docs/install.rst: syntax: `install.rst` を読む途中で MyST・Sphinx が止まった"
        "（AttributeError: no package_selection_group）ので、この文書の記法を確かめてください。"
    ) in lines


def test_a_toctree_entry_of_an_excluded_document_says_so(tmp_path: Path) -> None:
    """sphinx-build warns of a toctree entry naming a document its exclude_patterns leave out, as
    ``toc.excluded`` when the path it tests (the first source suffix, ``.rst``) matches a pattern
    and ``toc.not_readable`` otherwise; the drift names the file that is there and why it is not read."""
    conf = MYST_ONLY + 'exclude_patterns = ["draft.md", "drafts/**"]\n'
    root = _written(
        tmp_path / "excl",
        {
            "docs/conf.py": conf,
            "docs/index.md": "# Top\n\n```{toctree}\ndraft\ndrafts/plan\n```\n",
            "docs/draft.md": "# Draft\n",
            # docs.include checks the draft, Sphinx does not read it: its broken reference is no drift.
            "docs/drafts/plan.md": "# Plan\n\n{ref}`nolabel`\n",
        },
    )
    excluded = "は conf.py の exclude_patterns で外されているので、項目を消すか、exclude_patterns から外してください。"
    assert run_mdmark("check", cwd=root).stdout.splitlines() == [
        f"docs/index.md:4: broken_link: toctree の項目 `draft` の文書 `draft.md` {excluded}",
        f"docs/index.md:5: broken_link: toctree の項目 `drafts/plan` の文書 `drafts/plan.md` {excluded}",
    ]
    # Each is the Sphinx warning type suppress_warnings names.
    (root / "docs" / "conf.py").write_text(conf + 'suppress_warnings = ["toc.excluded"]\n', encoding="utf-8")
    _trusted(root)
    assert [line.split(":")[1] for line in run_mdmark("check", cwd=root).stdout.splitlines()] == ["4"]


def test_a_file_included_from_a_subfolder_needs_no_toctree(tmp_path: Path) -> None:
    """sphinx-build does not ask an {include}d file to be in a toctree (env.included); Sphinx
    records the include by its absolute path, which check once compared with the relative one
    (the-littlest-jupyterhub's install/add-users.md, included by seven pages)."""
    root = _written(
        tmp_path / "incl",
        {
            "docs/conf.py": MYST_ONLY,
            "docs/index.md": "# Top\n\n```{toctree}\nsub/a\n```\n",
            "docs/sub/a.md": "# A\n\n```{include} part.md\n```\n",
            "docs/sub/part.md": "Part text\n",
        },
    )
    result = run_mdmark("check", cwd=root)
    assert result.returncode == 0, result.stdout


def test_sphinx_generated_pages_in_a_toctree_are_no_drift(tmp_path: Path) -> None:
    """``genindex``, ``modindex`` and ``search`` in a toctree (structlog's docs): ``sphinx-build -b
    html`` writes those pages and says nothing; in a subfolder they name no such page and it warns."""
    root = _written(
        tmp_path / "gen",
        {
            "docs/conf.py": MYST_ONLY,
            "docs/index.md": "# Top\n\n```{toctree}\nsub/index\ngenindex\nmodindex\nsearch\n```\n",
            "docs/sub/index.md": "# Sub\n\n```{toctree}\ngenindex\n```\n",
        },
        SPHINX_CONFIG + 'build:\n  include: ["docs/**/*.md"]\n  out: dist/d.html\n',
    )
    lines = run_mdmark("check", cwd=root).stdout.splitlines()
    assert lines == ["docs/sub/index.md:4: broken_link: toctree の項目 `genindex` に当たる文書が無いので、文書の名前を直すか、その文書を置いてください。"], lines
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr


def test_untrusted_conf_is_read_not_run_with_the_same_result(tmp_path: Path) -> None:
    """The same project, not trusted: conf.py never runs, its literal settings (extlinks, todo,
    substitutions, the custom directive, heading anchors, numfig_format) still apply, and the check
    says once how to trust it."""
    root = _project(tmp_path)
    marker = tmp_path / "marker"
    result = run_mdmark("check", "--format", "json", cwd=root, env={"MARKER": str(marker)})
    assert not marker.exists()
    issues = json.loads(result.stdout)["issues"]
    assert [(i["kind"], i["where"]) for i in issues] == [("config_value", "sphinx.conf"), ("broken_anchor", "15"), ("not_in_toctree", "")]
    assert "`mdmark trust` で信頼してください。" in issues[0]["message"] and str(root) not in issues[0]["message"]
    exported = run_mdmark("export", "docs/index.md", cwd=root, env={"MARKER": str(marker)})
    assert exported.returncode == 0, exported.stderr
    assert not marker.exists()
    page = (root / "docs" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://example.com/pull/12"' in page and "見本" in page and "Figure 1" in page
