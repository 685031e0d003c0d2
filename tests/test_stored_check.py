"""A check whose inputs keep their stamps answers from the stored result (mdmark.check.stored), and
any change to an input — a document, an included file, the index, the config, a new or removed file,
a fresh edit inside the mtime tick — runs the rules again; a document just saved is kept by its content."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mdmark.check.rules as rules
from mdmark.check.collect import collect
from mdmark.project.main import Project

CONFIG = 'docs:\n  include: ["docs/**/*.md"]\nindex: index.yaml\n'
INDEX = "docs:\n  - id: a\n    path: docs/a.md\n    title: A\n"


def _age(root: Path) -> None:
    """Make every file and folder look written a minute ago (settled stamps can be stored)."""
    old = time.time() - 60
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(folder, name), (old, old))
        os.utime(folder, (old, old))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # A config folder of its own: the session's one holds trust records another test may have
    # written a moment ago, and an environment input that fresh is (rightly) not trusted by its stamp.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "docs" / "a.md").write_text("# A\n\n```{include} part.txt\n```\n\n[b](b.md)\n", encoding="utf-8")
    (root / "docs" / "part.txt").write_text("部分\n", encoding="utf-8")
    _age(root)
    return root


def _kinds(root: Path) -> list[str]:
    return [d.kind.value for d in collect(Project.open(root))]


class _RulesRan(Exception):
    pass


def _forbid_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise _RulesRan

    monkeypatch.setattr(rules, "build_context", refuse)


def test_an_unchanged_project_answers_without_running_the_rules(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _kinds(project) == ["broken_link"]
    _forbid_rules(monkeypatch)
    assert _kinds(project) == ["broken_link"]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda root: (root / "docs" / "b.md").write_text("# B\n"), id="new file"),
        pytest.param(lambda root: (root / "docs" / "part.txt").write_text("[c](c.md)\n"), id="included file"),
        pytest.param(lambda root: (root / "docs" / "a.md").write_text("# A\n"), id="document"),
        pytest.param(lambda root: (root / "index.yaml").write_text(INDEX.replace("title: A", "title: Z")), id="index"),
        pytest.param(
            lambda root: (root / "mdmark.config.yaml").write_text(CONFIG + "check:\n  disable: [broken_link]\n"),
            id="config",
        ),
        # Where a project's extensions and autodoc targets may be imported from.
        pytest.param(lambda root: os.environ.__setitem__("PYTHONPATH", str(root / "src")), id="PYTHONPATH"),
    ],
)
def test_a_changed_input_runs_the_rules_again(
    project: Path, change: Callable[[Path], object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))  # restored after the test
    assert _kinds(project) == ["broken_link"]
    change(project)
    runs = _counted_rules(monkeypatch)
    collect(Project.open(project))
    assert runs == [1]


def _write_racy(path: Path, text: str) -> None:
    """Write ``path`` with an mtime ahead of the clock: it stays within the racy window however long
    the check after it takes on a loaded machine."""
    path.write_text(text, encoding="utf-8")
    ahead = time.time() + 30
    os.utime(path, (ahead, ahead))


def _counted_rules(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    real = rules.build_context

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rules, "build_context", counted)
    return runs


def test_a_document_just_saved_is_stored_with_its_content(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pre-commit hook checks right after a save: the next check answers from the store all the same."""
    _write_racy(project / "docs" / "a.md", "# A\n")
    assert _kinds(project) == []
    _forbid_rules(monkeypatch)
    assert _kinds(project) == []


def test_a_same_tick_edit_of_a_document_just_saved_is_seen(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a file system whose stamps do not move within a tick, a second edit keeps the stamp: the
    document's content key, stored for a racy document, tells."""
    import mdmark.check.stored as stored

    monkeypatch.setattr(stored, "stat_stamp", lambda info: (info.st_dev, info.st_ino, info.st_size, 0, 0))
    doc = project / "docs" / "a.md"
    _write_racy(doc, "# A\n\n[b](b.md)\n")
    assert _kinds(project) == ["broken_link"]
    _write_racy(doc, "# A\n\n[a](a.md)\n")  # the same size
    runs = _counted_rules(monkeypatch)
    assert _kinds(project) == []
    assert runs == [1]


def test_a_fresh_edit_of_another_input_is_never_stored(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An index or an included file written within the mtime tick could change again without its stamp changing."""
    _write_racy(project / "docs" / "part.txt", "別の部分\n")
    assert _kinds(project) == ["broken_link"]
    _forbid_rules(monkeypatch)
    with pytest.raises(_RulesRan):
        _kinds(project)


def test_base_is_never_answered_from_the_stored_result(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _kinds(project) == ["broken_link"]
    _forbid_rules(monkeypatch)
    with pytest.raises(_RulesRan):
        collect(Project.open(project), base="HEAD")


def test_an_answer_with_an_unreadable_document_is_not_kept(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document that could not be read may have met a worker's bound that the next run does not."""
    (project / "docs" / "b.md").write_bytes(b"# \xff\xfe\n")
    _age(project)
    assert "syntax" in _kinds(project)
    _forbid_rules(monkeypatch)
    with pytest.raises(_RulesRan):
        _kinds(project)


def test_a_folder_whose_names_stay_answers_from_the_store(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mdmark build`` replaces its page (a new file renamed over the old one) just before a check,
    and an editor's swap file comes and goes: the folders' stamps move, their names do not."""
    out = project / "dist"
    out.mkdir()
    (out / "docs.html").write_text("<p>old</p>", encoding="utf-8")
    _age(project)
    assert _kinds(project) == ["broken_link"]
    (out / "page.tmp").write_text("<p>new</p>", encoding="utf-8")
    os.replace(out / "page.tmp", out / "docs.html")
    (project / "docs" / ".a.md.swp").write_text("swap", encoding="utf-8")
    (project / "docs" / ".a.md.swp").unlink()
    ahead = time.time() + 30  # the folders stay racy however long the lookup takes on a loaded machine
    for folder in (out, project / "docs"):
        os.utime(folder, (ahead, ahead))
    _forbid_rules(monkeypatch)
    assert _kinds(project) == ["broken_link"]


def test_a_file_made_while_the_check_runs_keeps_the_answer_from_being_stored(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check may or may not have seen a document written while it ran: its answer is not kept."""
    import mdmark.check.stored as stored

    real = stored.begin

    def then_a_new_document(p: Project) -> dict[str, str]:
        listed = real(p)
        (project / "docs" / "b.md").write_text("# B\n", encoding="utf-8")
        _age(project)  # settled stamps: only the names tell
        return listed

    monkeypatch.setattr(stored, "begin", then_a_new_document)
    collect(Project.open(project))
    monkeypatch.setattr(stored, "begin", real)
    runs = _counted_rules(monkeypatch)
    collect(Project.open(project))
    assert runs == [1]


def test_an_edited_mdmark_does_not_answer_from_an_older_ones_store(project: Path, tmp_path: Path) -> None:
    """An editable install keeps its version while its code changes: the stored answer (and the
    snapshot) are made for the code that made them."""
    import shutil
    import subprocess
    import sys

    import mdmark

    code = tmp_path / "code"
    shutil.copytree(Path(mdmark.__file__).parent, code / "mdmark", ignore=shutil.ignore_patterns("__pycache__"))
    run = (
        f"import sys; sys.path.insert(0, {str(code)!r}); import mdmark; assert mdmark.__file__.startswith({str(code)!r}), mdmark.__file__; "
        "from mdmark.cli.main import main; raise SystemExit(main(['check']))"
    )

    def stored() -> set[str]:
        return {path.name for path in (tmp_path / "cache").rglob("checks/*/*") if path.is_file()}

    def check() -> None:
        result = subprocess.run([sys.executable, "-c", run], cwd=project, capture_output=True, text=True, timeout=120)
        assert result.returncode == 1 and "broken_link" in result.stdout, result.stdout + result.stderr

    check()
    first = stored()
    check()
    assert stored() == first and len(first) == 1  # the same mdmark answers from its store
    edited = code / "mdmark" / "check" / "stored.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    check()
    assert len(stored() - first) == 1, stored()


def test_a_servers_answer_reaches_the_disk_for_the_next_process(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a workspace that answered before (a server's), the stored answer is written by a thread
    of its own after the check returns: a terminal's check in a new process still answers from it."""
    import threading

    import mdmark.workspace.main
    from mdmark.util.memo import Memo

    assert _kinds(project) == ["broken_link"]
    (project / "docs" / "a.md").write_text("# A\n\n[b](c.md)\n", encoding="utf-8")
    _age(project)
    assert _kinds(project) == ["broken_link"]  # the same workspace: written later
    for thread in threading.enumerate():
        if thread.name == "mdmark-stored-check":
            thread.join()
    monkeypatch.setattr(mdmark.workspace.main, "_WORKSPACES", Memo(16))  # a new process's
    _forbid_rules(monkeypatch)
    found = collect(Project.open(project))
    assert [d.kind.value for d in found] == ["broken_link"] and "c.md" in found[0].message


def test_the_workspaces_file_tree_lists_what_a_walk_lists(project: Path) -> None:
    """The names of each folder (what a stored answer keeps per folder) and a Sphinx project's
    sources, from the workspace's file tree as from a walk of the folders: the same, before and
    after files and folders come and go."""
    from mdmark.check import stored

    opened = Project.open(project)
    assert opened.workspace.tree(opened.root).root == str(opened.root)  # the tree's listing is used

    def both() -> tuple[object, object]:
        listed, sources = stored._listing(opened, True)
        walked, found = stored._tree(opened.root, True)
        return (listed, sorted(sources)), (walked, sorted(found))

    (project / "docs" / "sub").mkdir()
    (project / "docs" / "sub" / "ext.py").write_text("", encoding="utf-8")
    (project / ".git").mkdir()  # skipped: named, not walked
    (project / ".git" / "conf.py").write_text("", encoding="utf-8")
    listed, walked = both()
    assert listed == walked and any(path.endswith("ext.py") for path in listed[1])  # type: ignore[index]
    (project / "docs" / "new.md").write_text("# N\n", encoding="utf-8")
    (project / "docs" / "sub" / "ext.py").rename(project / "docs" / "sub" / "notes.txt")
    (project / "docs" / "more").mkdir()
    listed, walked = both()
    assert listed == walked
