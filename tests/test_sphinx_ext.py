"""The Sphinx extension ``mdmark.sphinx_ext`` in real Sphinx builds (tests/roots/test-*).

In-process builds use Sphinx's own testing fixtures (``make_app`` → ``SphinxTestApp``) on a fresh
copy of a root per test; ``-W``, ``-j`` and the guide's example run the real ``sphinx-build``.
Expected drift warnings are golden files next to their root (``expected-warnings.txt``), with the
source folder written as ``<src>``; set ``MDMARK_REGEN=1`` to rewrite them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_golden as assert_text_golden

pytest_plugins = ("sphinx.testing.fixtures",)

ROOTS = Path(__file__).resolve().parent / "roots"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def copy_root(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(ROOTS / f"test-{name}", dest, ignore=shutil.ignore_patterns("_build", "expected-*.txt"))
    return dest


@pytest.fixture
def build(make_app: Callable[..., Any], tmp_path: Path) -> Callable[..., Any]:
    """Copy a root, build it in-process and return the app (``app.warning`` holds the warnings)."""

    def run(name: str, builder: str = "html", sub: str = "", **kwargs: Any) -> Any:
        root = copy_root(name, tmp_path)
        app = make_app(builder, srcdir=root / sub if sub else root, **kwargs)
        app.build()
        return app

    return run


def warnings_of(app: Any) -> list[str]:
    return [line for line in _ANSI.sub("", app.warning.getvalue()).splitlines() if "WARNING" in line]


def mdmark_lines(text: str, root: Path) -> list[str]:
    """The ``[mdmark.*]`` warning lines with the copied root's path written as ``<src>``."""
    text = _ANSI.sub("", text)
    prefix = str(root.resolve())
    return [line.replace(prefix, "<src>") for line in text.splitlines() if "[mdmark." in line]


def assert_golden(lines: list[str], golden: Path) -> None:
    assert_text_golden("\n".join(lines) + "\n", golden)


def sphinx_build(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def body(app: Any, page: str) -> str:
    return (Path(app.outdir) / page).read_text(encoding="utf-8")


# -- drift as warnings ---------------------------------------------------------------------------


def test_drift_becomes_located_warnings(build: Callable[..., Any]) -> None:
    app = build("drift")
    assert_golden(mdmark_lines(app.warning.getvalue(), Path(app.srcdir)), ROOTS / "test-drift" / "expected-warnings.txt")


def test_check_reuses_the_doctrees_sphinx_read(build: Callable[..., Any]) -> None:
    from mdmark.workspace.main import workspace_for

    app = build("drift")
    assert any("[mdmark.broken_link]" in w for w in warnings_of(app))
    # Every document of the project was read by Sphinx: no mdmark pipeline was even made for it.
    assert workspace_for(Path(app.srcdir)).pipelines() == []


def test_documents_outside_the_srcdir_come_from_the_pipeline(build: Callable[..., Any]) -> None:
    """Config at the repository root, Sphinx in docs/: paths are the config folder's, outside docs are parsed."""
    app = build("nested", sub="docs")
    root = Path(app.srcdir).parent
    assert_golden(mdmark_lines(app.warning.getvalue(), root), ROOTS / "test-nested" / "expected-warnings.txt")


def test_incremental_build_still_reports_drift(make_app: Callable[..., Any], tmp_path: Path) -> None:
    root = copy_root("unknown-tag", tmp_path)
    first = make_app("html", srcdir=root)
    first.build()
    second = make_app("html", srcdir=root)
    second.build()
    assert "no targets are out of date" in _ANSI.sub("", second.status.getvalue())
    assert [w for w in warnings_of(second) if "[mdmark.unknown_tag]" in w]


def test_suppress_warnings_silences_one_kind(build: Callable[..., Any]) -> None:
    app = build("drift", confoverrides={"suppress_warnings": ["mdmark.unknown_tag", "mdmark.broken_link"]})
    kinds = {m.group(1) for w in warnings_of(app) if (m := re.search(r"\[mdmark\.(\w+)\]$", w))}
    assert "unknown_tag" not in kinds and "broken_link" not in kinds
    assert {"title_mismatch", "broken_anchor", "missing_image", "unknown_doc"} <= kinds


def test_dash_w_fails_on_drift_and_suppress_makes_it_pass(tmp_path: Path) -> None:
    root = copy_root("unknown-tag", tmp_path)
    failed = sphinx_build("-W", "-b", "html", str(root), str(tmp_path / "out"), cwd=tmp_path)
    assert failed.returncode != 0
    assert "index.yaml:5: WARNING: docs[0].tags[0]: タグ `設計` が索引の tags の語彙に無いので" in failed.stderr
    assert "[mdmark.unknown_tag]" in failed.stderr
    passed = sphinx_build(
        "-W", "-E", "-D", "suppress_warnings=mdmark.unknown_tag", "-b", "html", str(root), str(tmp_path / "out2"), cwd=tmp_path
    )
    assert passed.returncode == 0, passed.stderr
    assert "WARNING" not in passed.stderr


def test_parallel_build_reports_the_same_drift(tmp_path: Path) -> None:
    root = copy_root("drift", tmp_path)
    # Enough documents for Sphinx to read in parallel (it reads 5 or fewer serially).
    for i in range(1, 9):
        (root / f"p{i}.md").write_text(f"# P{i}\n\n[x](gone{i}.md)\n", encoding="utf-8")
    serial = sphinx_build("-b", "html", str(root), str(tmp_path / "serial"), cwd=tmp_path)
    parallel = sphinx_build("-j", "2", "-b", "html", str(root), str(tmp_path / "parallel"), cwd=tmp_path)
    assert serial.returncode == 0 and parallel.returncode == 0, parallel.stderr
    assert re.search(r"reading sources\.\.\. \[ *\d+%\] \S+ \.\. \S+", parallel.stdout)
    expected = mdmark_lines(serial.stderr, root)
    got = mdmark_lines(parallel.stderr, root)
    assert len(expected) == 26
    # Directive warnings come from the read processes (their order may vary); the check's come last, in order.
    assert sorted(got) == sorted(expected)
    assert [x for x in got if "[mdmark.directive]" not in x] == [x for x in expected if "[mdmark.directive]" not in x]


# -- a clean project -------------------------------------------------------------------------------


def test_clean_project_builds_without_warnings(build: Callable[..., Any]) -> None:
    app = build("clean")
    assert warnings_of(app) == []
    # The config's markdown settings reach MyST because conf.py sets none of them.
    assert app.config.myst_enable_extensions == ["colon_fence", "deflist", "tasklist", "dollarmath", "substitution", "attrs_inline"]
    assert app.config.myst_heading_anchors == 3


def test_setup_declares_parallel_safety_and_version(build: Callable[..., Any]) -> None:
    from mdmark import __version__

    app = build("clean")
    ext = app.extensions["mdmark.sphinx_ext"]
    assert ext.version == __version__
    assert ext.parallel_read_safe is True and ext.parallel_write_safe is True
    assert {"myst_parser", "sphinx_design"} <= set(app.extensions)


def test_related_directive_lists_outgoing_and_incoming_relations(build: Callable[..., Any]) -> None:
    app = build("clean")
    arch = body(app, "arch.html")
    assert (
        '<li class="mdmark-outgoing"><p><a class="reference internal" href="cli.html"><span class="doc">CLI</span></a> '
        '<code class="mdmark-relation-type docutils literal notranslate"><span class="pre">references</span></code> — '
        '<span class="mdmark-when">CLI の引数を説明するとき</span></p></li>'
    ) in arch
    cli = body(app, "cli.html")
    assert re.search(r'mdmark-incoming.*href="arch.html".*referenced_by.*CLI の引数を説明するとき', cli)
    assert re.search(r'mdmark-incoming.*href="api.html".*required_by.*CLI から呼ぶとき', cli)
    api = body(app, "api.html")
    # change_together written on both sides is listed once.
    assert api.count('href="arch.html"><span class="doc">アーキテクチャ</span>') == 1


def test_docs_directive_renders_a_table_by_tags(build: Callable[..., Any]) -> None:
    app = build("clean")
    index = body(app, "index.html")
    tables = re.findall(r'<table class="mdmark-docs.*?</table>', index, re.S)
    assert len(tables) == 2
    ids = [re.findall(r'<span class="pre">(\w+)</span></code></p></td>', t) for t in tables]
    assert ids == [["arch", "cli", "api"], ["arch", "api"]]
    assert "<td><p>全体の構成と依存の向き</p></td>" in tables[0]
    # Tags link to their tag pages; the main tag is bold.
    assert '<strong><a class="mdmark-tag mdmark-main-tag reference internal" href="mdmark/tags/%E8%A8%AD%E8%A8%88.html">' in tables[0]


def test_tag_pages_and_tag_index(build: Callable[..., Any]) -> None:
    app = build("clean")
    out = Path(app.outdir)
    assert sorted(p.name for p in (out / "mdmark" / "tags").iterdir()) == sorted(
        ["index.html", "MCP.html", "topic-api.html", "入口.html", "設計.html"]
    )
    page = body(app, "mdmark/tags/設計.html")
    assert "<h1>タグ: 設計</h1>" in page
    assert '<p class="mdmark-tag-description">設計を説明する文書</p>' in page
    assert re.findall(r"<td><code>(\w+)</code></td>", page) == ["arch", "cli", "api"]
    assert '<a class="reference internal" href="../../arch.html">アーキテクチャ</a>' in page
    assert '<a class="reference internal" href="topic-api.html">topic:api</a>' in page
    tags = body(app, "mdmark/tags/index.html")
    assert "<h2>種類</h2>" in tags and "<h2>グループなし</h2>" in tags
    assert '<a class="reference internal" href="MCP.html">MCP</a>（1） — MCP のツール' in tags
    assert (out / "_static" / "mdmark.css").is_file()


def test_term_roles_resolve_to_the_generated_glossary(build: Callable[..., Any]) -> None:
    app = build("clean")
    arch = body(app, "arch.html")
    assert '<a class="reference internal" href="mdmark/glossary.html#term-project-dir"><span class="xref std std-term">作業のフォルダ</span></a>' in arch
    # Case-insensitive like Sphinx's own glossary: {term}`drift` finds the term "Drift".
    assert 'href="mdmark/glossary.html#term-drift"' in arch
    # An alias resolves to its term.
    assert 'href="mdmark/glossary.html#term-project-dir"><span class="xref std std-term">project_dir</span>' in body(app, "api.html")
    glossary = body(app, "mdmark/glossary.html")
    assert '<dt id="term-project-dir">作業のフォルダ</dt><dt class="mdmark-alias">project_dir</dt>' in glossary
    assert '説明している文書: <a class="reference internal" href="../arch.html">アーキテクチャ</a>' in glossary


def test_glossary_directive_defines_the_terms_in_a_document(build: Callable[..., Any]) -> None:
    app = build("glossary")
    assert warnings_of(app) == []
    index = body(app, "index.html")
    assert re.search(r'href="words.html#term-\w+"><span class="xref std std-term">索引</span>', index)
    assert 'href="words.html#term-index-file"><span class="xref std std-term">Index File</span>' in index
    words = body(app, "words.html")
    assert '<dl class="glossary mdmark-glossary">' in words
    assert "文書の一覧と関係を書いた YAML。" in words
    # The project defines every term itself: no generated glossary page.
    assert not (Path(app.outdir) / "mdmark" / "glossary.html").exists()


def test_non_html_builder_uses_plain_text_for_tags(build: Callable[..., Any]) -> None:
    app = build("clean", builder="text")
    text = (Path(app.outdir) / "index.txt").read_text(encoding="utf-8")
    assert '| "arch"       | アーキテクチャ           | 全体の構成と依存の向き               | **設計**, MCP            |' in text
    assert not (Path(app.outdir) / "mdmark").exists()
    # No generated glossary outside HTML: {term} needs a {mdmark-glossary} there (Sphinx says so).
    assert [w for w in warnings_of(app) if "[ref.term]" in w] and not [w for w in warnings_of(app) if "[mdmark" in w]


def test_changed_index_rereads_pages_that_show_it(make_app: Callable[..., Any], tmp_path: Path) -> None:
    root = copy_root("clean", tmp_path)
    make_app("html", srcdir=root).build()
    index_file = root / "index.yaml"
    index_file.write_text(index_file.read_text(encoding="utf-8").replace("コマンドの使い方", "コマンドの全部"), encoding="utf-8")
    app = make_app("html", srcdir=root)
    app.build()
    assert "<td><p>コマンドの全部</p></td>" in body(app, "index.html")


# -- configuration ---------------------------------------------------------------------------------


def test_project_myst_options_are_kept(build: Callable[..., Any]) -> None:
    app = build("myst-options")
    assert app.config.myst_enable_extensions == ["colon_fence"]
    assert app.config.myst_heading_anchors == 1
    # conf.py does not set substitutions: the config's apply.
    assert app.config.myst_substitutions == {"product": "mdmark"}
    index = body(app, "index.html")
    assert 'class="admonition note"' in index


def test_explicit_config_that_does_not_exist_stops_the_build(make_app: Callable[..., Any], tmp_path: Path) -> None:
    from sphinx.errors import ConfigError

    root = copy_root("clean", tmp_path)
    with pytest.raises(ConfigError, match="設定ファイル `nope.yaml` が見つからないので"):
        make_app("html", srcdir=root, confoverrides={"mdmark_config": "nope.yaml"})


def test_without_a_config_directives_say_why(build: Callable[..., Any]) -> None:
    app = build("noconfig")
    warnings = warnings_of(app)
    assert len(warnings) == 1
    assert "index.md:3: WARNING: {mdmark-docs} を表示できません:" in warnings[0]
    assert warnings[0].endswith("[mdmark.directive]")


def test_guide_example_builds_with_dash_w(tmp_path: Path) -> None:
    """The conf.py example of the guide page ``extension``."""
    root = copy_root("guide-example", tmp_path)
    out = tmp_path / "html"
    result = sphinx_build("-W", "-b", "html", str(root / "docs"), str(out), cwd=root)
    assert result.returncode == 0, result.stderr
    assert (out / "mdmark" / "tags" / "設計.html").is_file()
    assert 'href="mdmark/glossary.html#term-drift"' in (out / "arch.html").read_text(encoding="utf-8")


def test_dirhtml_gets_the_pages_too(build: Callable[..., Any]) -> None:
    app = build("clean", builder="dirhtml")
    out = Path(app.outdir)
    assert (out / "mdmark" / "tags" / "設計" / "index.html").is_file()
    assert 'href="mdmark/tags/設計/"' in (out / "index.html").read_text(encoding="utf-8")
    assert 'href="../mdmark/glossary/#term-project-dir"' in (out / "arch" / "index.html").read_text(encoding="utf-8")


def test_unreadable_index_is_one_warning_not_a_crash(make_app: Callable[..., Any], tmp_path: Path) -> None:
    root = copy_root("clean", tmp_path)
    (root / "index.yaml").write_text("docs: [\n", encoding="utf-8")
    app = make_app("html", srcdir=root)
    app.build()
    warnings = warnings_of(app)
    check = [w for w in warnings if w.endswith("[mdmark.check]")]
    assert len(check) == 1 and "`index.yaml` の 1 行 8 文字目が YAML として読めない（閉じないままファイルが終わった）" in check[0]
    # Each directive that needs the index says so where it stands.
    directive = [w for w in warnings if w.endswith("[mdmark.directive]")]
    assert directive and all("を表示できません" in w for w in directive)
    assert not (Path(app.outdir) / "mdmark").exists()


def test_related_directive_with_a_doc_id_shows_that_document(build: Callable[..., Any]) -> None:
    app = build("clean")
    index = body(app, "index.html")
    related = re.findall(r'<div class="mdmark-related docutils container">(.*?)</div>', index, re.S)
    assert len(related) == 1
    assert re.findall(r'href="(\w+)\.html"><span class="doc">[^<]+</span></a> <code[^>]*><span class="pre">(\w+)</span>', related[0]) == [
        ("arch", "change_together"),
        ("cli", "requires"),
    ]


def test_command_line_myst_override_is_kept(build: Callable[..., Any]) -> None:
    app = build("clean", confoverrides={"myst_heading_anchors": 2})
    assert app.config.myst_heading_anchors == 2
    assert app.config.myst_enable_extensions == ["colon_fence", "deflist", "tasklist", "dollarmath", "substitution", "attrs_inline"]


def test_mdmark_check_false_turns_the_check_off(build: Callable[..., Any]) -> None:
    app = build("drift", confoverrides={"mdmark_check": False})
    kinds = {w.rsplit("[", 1)[-1] for w in warnings_of(app) if "[mdmark." in w}
    assert kinds == {"mdmark.directive]"}


def test_ref_labels_reach_the_generated_pages(build: Callable[..., Any]) -> None:
    app = build("clean")
    arch = body(app, "arch.html")
    assert '<a class="reference internal" href="mdmark/tags/index.html"><span class="std std-ref">タグ</span></a>' in arch
    assert 'href="mdmark/tags/%E8%A8%AD%E8%A8%88.html"><span class="std std-ref">設計の文書</span>' in arch
    assert 'href="mdmark/tags/topic-api.html"><span class="std std-ref">タグ: topic:api</span>' in arch
    assert 'href="mdmark/glossary.html"><span class="std std-ref">用語集</span>' in arch


def test_a_document_where_a_page_would_go_is_kept(make_app: Callable[..., Any], tmp_path: Path) -> None:
    root = copy_root("clean", tmp_path)
    (root / "mdmark").mkdir()
    (root / "mdmark" / "glossary.md").write_text("# 自分の用語集\n", encoding="utf-8")
    app = make_app("html", srcdir=root, confoverrides={"suppress_warnings": ["toc.not_included"]})
    app.build()
    assert [w for w in warnings_of(app) if "[mdmark.pages]" in w] == [
        "WARNING: 文書 `mdmark/glossary` と mdmark が作るページの名前が重なるので、conf.py の mdmark_pages で別のフォルダを指定してください。 [mdmark.pages]"
    ]
    assert "自分の用語集" in body(app, "mdmark/glossary.html")
    # Terms are then not pointed at that document: Sphinx says they are not in a glossary.
    assert [w for w in warnings_of(app) if "term not in glossary: '作業のフォルダ'" in w]


def test_mdmark_pages_none_turns_the_pages_off(build: Callable[..., Any]) -> None:
    app = build("glossary", confoverrides={"mdmark_pages": None})
    assert not (Path(app.outdir) / "mdmark").exists()
    # The project's own {mdmark-glossary} still defines the terms.
    assert warnings_of(app) == []
