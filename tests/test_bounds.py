"""Bounded by construction outside the workers (issue 37, item 5): each reproduction's small case,
run through the library (the hostile corpus runs the large ones through every front-end)."""

from __future__ import annotations

import os
from pathlib import Path

from mdmark.host import patches


def _tree(root: Path) -> None:
    for rel in ("index.md", "a/b.md", "a/c.rst", "a/_skip/d.md", "e/f.md", "e/g.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# t\n", encoding="utf-8")


def test_document_finder_lists_what_sphinx_lists_without_links(tmp_path: Path) -> None:
    from sphinx.util.matching import get_matching_files

    _tree(tmp_path)
    args = (tmp_path, ["**"], ["a/_skip", "**/*.txt"])
    assert list(patches._matching_files(*args)) == list(get_matching_files(*args))


def test_document_finder_follows_no_folder_link(tmp_path: Path) -> None:
    """Three links ``x -> .`` made Sphinx's walk 3^40 folders; a link to ``/`` listed the machine."""
    _tree(tmp_path / "docs")
    for name in ("x", "y", "z"):
        os.symlink(".", tmp_path / "docs" / name)
    os.symlink("/", tmp_path / "docs" / "root")
    os.symlink("../outside.md", tmp_path / "docs" / "file-link.md")
    found = list(patches._matching_files(tmp_path / "docs", ["**"], ["**/*.rst", "**/*.txt"]))
    assert sorted(found) == ["a/_skip/d.md", "a/b.md", "e/f.md", "file-link.md", "index.md"]


# -- the static reading of conf.py ------------------------------------------------------------------


def _conf(tmp_path: Path, text: str) -> Path:
    conf = tmp_path / "conf.py"
    conf.write_text(text, encoding="utf-8")
    return conf


def test_static_conf_reading_is_bounded_in_work(tmp_path: Path) -> None:
    """Values that grow back after each bound (a dict of itself, reset to UNREAD at the size
    bound) cost the reading its work budget: refused with a reason, nothing of it used."""
    from mdmark.host.static_conf import TOO_MUCH_WORK, read_conf

    bomb = 'extensions = ["myst_parser"]\na = {"k": 1}\n' + "a = {'x': a, 'y': a}\n" * 1700
    assert read_conf(_conf(tmp_path, bomb)) == read_conf(_conf(tmp_path, bomb))
    found = read_conf(_conf(tmp_path, bomb))
    assert found.problem == TOO_MUCH_WORK and found.values == {}
    long_string = 'a = "' + "x" * 100_000 + '"\n' + "b = a + a\n" * 1000
    assert read_conf(_conf(tmp_path, long_string)).problem == TOO_MUCH_WORK


def test_static_conf_values_are_shared_not_aliased(tmp_path: Path) -> None:
    """Reading a name copies nothing; a change in place changes that name only (as before), and a
    list appended to itself holds its old value, not itself."""
    from mdmark.host.static_conf import read_conf

    text = (
        'a = ["x"]\nb = a\na.append("y")\na.append(a)\nd = {"k": a}\nd["self"] = d\n'
        'extensions = ["myst_parser"]\nextensions += ["sphinx_design"]\n'
        + "c = [a, a]\n" * 3
    )
    values = read_conf(_conf(tmp_path, text)).values
    assert values["b"] == ["x"]
    assert values["a"] == ["x", "y", ["x", "y"]]
    assert values["d"] == {"k": values["a"], "self": {"k": values["a"]}}
    assert values["extensions"] == ["myst_parser", "sphinx_design"]


# -- substitutions: an operation budget, string methods through Jinja's sandboxed formatter ---------


def test_substitutions_format_and_replace_in_the_sandbox() -> None:
    from mdmark.host import sandbox

    context = {"name": "mdmark", "version": "1.2"}
    assert sandbox.render("'{} {}'.format(name, version)", context) == "mdmark 1.2"
    assert sandbox.render("name.replace('md', 'MD')", context) == "MDmark"
    assert sandbox.render("name.upper() ~ version.split('.')[0]", context) == "MDMARK1"
    for expression in ("'{0.__class__}'.format(name)", "('x' * 1000).replace('x', 'y' * 1000)", "'{0}{0}{0}'.format('x' * 90000)"):
        try:
            sandbox.render(expression, context)
        except sandbox.Refusal:
            continue
        raise AssertionError(expression)


def test_substitutions_share_one_operation_budget_per_document() -> None:
    """Small expressions that cost seconds each (``range(99999)|groupby``) are refused once the
    document's budget is spent, whatever their sizes."""
    from mdmark.host import sandbox

    budget = sandbox.Budget()
    expression = "range(99999) | groupby('real') | list | length"
    refused = 0
    for _ in range(33):
        try:
            sandbox.render(expression, {}, budget)
        except sandbox.Refusal as refusal:
            assert "計算の手間" in str(refusal)
            refused += 1
    assert refused >= 31
    assert sandbox.render("'ok'", {}) == "ok"  # a new budget for another document


def test_trusted_substitutions_see_sphinx_env(tmp_path: Path) -> None:
    from conftest import run_mdmark
    from test_sphinx_conf import _written

    root = _written(
        tmp_path / "p",
        {
            "docs/conf.py": 'extensions = ["myst_parser"]\nmyst_enable_extensions = ["substitution"]\nversion = "4.5"\n',
            "docs/index.md": "# 版\n\n版は {{ env.config.version }}、{{ '{}!'.format(env.config.version) }}。\n",
        },
    )
    done = run_mdmark("export", "docs/index.md", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "版は 4.5、4.5!。" in (root / "docs" / "index.html").read_text(encoding="utf-8")


# -- nesting, refused before parsing ------------------------------------------------------------------


def test_fence_nesting_is_measured_before_parsing() -> None:
    from mdmark.pipeline.nesting import refused

    deep = "# t\n\n" + "".join("`" * (300 - i) + "{note}\n" for i in range(300))
    assert refused(deep) == ("nesting", 3 + 40)
    assert refused("# t\n\n" + ":::{note}\n" * 100_000) == ("nesting", 3 + 40)
    # Closed fences do not add up; a code block's fences are text; a closer that fits the outer
    # fence closes what is open inside it.
    flat = "```{note}\nx\n```\n" * 1000
    assert refused(flat) is None
    code = "````markdown\n" + "```{note}\n" * 100 + "````\n"
    assert refused(code) is None
    outer = ("`````{note}\n```{tip}\n`````\n") * 100
    assert refused(outer) is None
    assert refused("# t\n\n" + "".join(f"{'`' * (50 - i)}{{note}}\n" for i in range(10))) is None


def test_headings_are_counted_before_parsing() -> None:
    """A heading is an ATX line outside code blocks (a directive's body counts); the one past the
    limit is where the document is refused."""
    from mdmark.pipeline.nesting import MAX_HEADINGS, refused

    at_limit = "# t\n" + "## h\n" * (MAX_HEADINGS - 1)
    assert refused(at_limit) is None
    assert refused(at_limit + "text\n   ###### six, three spaces in\n") == ("headings", MAX_HEADINGS + 2)
    # Not headings: a code block's lines, four spaces in, no space after the marks, seven marks.
    code = "```bash\n" + "# a comment\n" * 10 + "```\n"
    assert refused(code * 10, headings=5) is None
    assert refused("    # indented\n#tag\n####### seven\n" * 10, headings=5) is None
    assert refused(":::{note}\n## inside\n:::\n" * 6, headings=5) == ("headings", 3 * 5 + 2)
    assert refused("#\n" * 6, headings=5) == ("headings", 6)  # an empty heading is one


def test_a_document_nested_too_deep_is_one_drift_at_its_line(tmp_path: Path) -> None:
    from conftest import run_mdmark

    (tmp_path / "docs").mkdir()
    (tmp_path / "mdmark.config.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\nmarkdown:\n  extensions: [colon_fence]\n', encoding="utf-8")
    (tmp_path / "docs" / "deep.md").write_text("# 深い\n\n" + ":::{note}\n" * 5000, encoding="utf-8")
    done = run_mdmark("check", cwd=tmp_path)
    assert done.stdout.splitlines() == [
        "docs/deep.md:43: syntax: `docs/deep.md` の 43 行目でディレクティブやコードブロックの入れ子が 40 段を超えるので"
        "読まずに止めたため、入れ子を浅くするか文書を分けてください。"
    ]


def test_a_document_with_too_many_headings_is_one_drift_at_its_line(tmp_path: Path) -> None:
    from conftest import run_mdmark

    from mdmark.pipeline.nesting import MAX_HEADINGS

    (tmp_path / "docs").mkdir()
    (tmp_path / "mdmark.config.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\n', encoding="utf-8")
    (tmp_path / "docs" / "many.md").write_text("# 多い\n\n" + "## 節\n" * MAX_HEADINGS, encoding="utf-8")
    done = run_mdmark("check", cwd=tmp_path)
    line = 2 + MAX_HEADINGS
    assert done.stdout.splitlines() == [
        f"docs/many.md:{line}: syntax: `docs/many.md` の {line} 行目で見出しが 50,000 個を超えるので"
        "読まずに止めたため、文書を分けてください。"
    ]


# -- the preview's watcher --------------------------------------------------------------------------


def test_preview_watches_the_projects_own_folders_only(tmp_path: Path) -> None:
    """``docs/usr -> /usr`` added 16,000 watches outside the project, ``x -> .`` loops and a link to
    ``/`` ended the watch: the folders watched are the project's real ones, links not followed."""
    from mdmark.preview.watcher import project_folders

    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / ".git").mkdir()
    (tmp_path / "docs" / "_build").mkdir()
    os.symlink("/usr", tmp_path / "docs" / "usr")
    os.symlink("/", tmp_path / "docs" / "root")
    os.symlink(".", tmp_path / "docs" / "x")
    folders = project_folders([tmp_path, tmp_path / "docs"], frozenset({".git", "_build"}))
    assert folders == [tmp_path.resolve(), (tmp_path / "docs").resolve(), (tmp_path / "docs" / "guide").resolve()]


def test_preview_watcher_sees_saves_in_new_folders_and_beside_links(tmp_path: Path) -> None:
    import threading

    from mdmark.preview.watcher import Watcher

    (tmp_path / "docs").mkdir()
    os.symlink("/", tmp_path / "docs" / "root")
    seen: list[set[Path]] = []
    arrived = threading.Event()

    def changed(paths: set[Path]) -> None:
        seen.append(paths)
        arrived.set()

    watcher = Watcher([tmp_path], changed)
    watcher.start()
    try:
        for rel in ("docs/a.md", "docs/new/b.md"):
            target = tmp_path / rel
            for _ in range(100):  # until the watch (started or remade) sees the write
                arrived.clear()
                target.parent.mkdir(exist_ok=True)
                target.write_text("# t\n", encoding="utf-8")
                if arrived.wait(0.5) and any(target.resolve() in {p.resolve() for p in s} for s in seen):
                    break
            else:
                raise AssertionError(f"{rel} was not seen: {seen}")
    finally:
        watcher.stop()


# -- the MCP server's own sentence for arguments that are no object --------------------------------


def test_arguments_that_are_no_object_are_refused_in_japanese(tmp_path: Path) -> None:
    from test_mcp import make_project, start_server, stop_server
    from test_properties import call_tool

    from mdmark.server.app import ARGUMENTS_NOT_OBJECT

    served = start_server(tmp_path / "server", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        project = make_project(tmp_path / "project")
        for arguments in ([1, 2], "x", 3, True):
            answered, text = call_tool(served, "check", arguments)
            assert answered and text == ARGUMENTS_NOT_OBJECT, (arguments, text)
        answered, text = call_tool(served, "check", {"project_dir": str(project)})
        assert not answered and '"issues"' in text
    finally:
        assert stop_server(served) == 0, served.stderr()
