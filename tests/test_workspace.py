"""The workspace: one per project, holding what mdmark keeps between calls."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mdmark.config.main import MarkdownSettings
from mdmark.index.model import load_index
from mdmark.project.main import Project
from mdmark.util.memo import Memo
from mdmark.workspace.main import workspace_for

INDEX = "version: 1\ndocs:\n  - id: a\n    path: a.md\n    title: A\n"


def test_one_workspace_per_project_folder_links_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert workspace_for(real) is workspace_for(tmp_path / "link")
    assert workspace_for(real) is not workspace_for(tmp_path)


def test_the_project_and_its_pipeline_come_from_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(INDEX, encoding="utf-8")
    project = Project.open(tmp_path)
    assert project.workspace is workspace_for(tmp_path)
    assert project.pipeline is Project.open(tmp_path).pipeline
    assert project.workspace.pipelines() == [project.pipeline]
    other = project.workspace.pipeline(tmp_path, MarkdownSettings(heading_anchors=2))
    assert other is not project.pipeline and len(project.workspace.pipelines()) == 2


def test_the_index_model_is_reused_while_its_file_is_unchanged(tmp_path: Path) -> None:
    index_file = tmp_path / "index.yaml"
    index_file.write_text(INDEX, encoding="utf-8")
    first = load_index(index_file, tmp_path, workspace_for(tmp_path))
    assert load_index(index_file, tmp_path, workspace_for(tmp_path)) is first
    index_file.write_text(INDEX.replace("title: A", "title: B"), encoding="utf-8")
    changed = load_index(index_file, tmp_path, workspace_for(tmp_path))
    assert changed is not first and changed.docs[0].title == "B"


def test_the_parsed_yaml_comes_back_from_the_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process (a new workspace) reads a big index from the user's cache, not the YAML parser."""
    from mdmark.workspace.main import Workspace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    text = INDEX + "".join(f"  - id: d{i}\n    path: d{i}.md\n    title: 文書 {i}\n" for i in range(50))
    calls: list[int] = []

    def parse() -> object:
        from mdmark.config.yamlio import parse_yaml

        calls.append(1)
        return parse_yaml(text, "index.yaml")

    one = Workspace(tmp_path).parsed_yaml(text, parse)  # type: ignore[arg-type]
    two = Workspace(tmp_path).parsed_yaml(text, parse)  # type: ignore[arg-type]
    assert calls == [1]
    assert (two.data, two.lines, two.duplicate_keys) == (one.data, one.lines, one.duplicate_keys)


def test_a_warm_check_reads_no_yaml_and_does_not_import_the_parser(tmp_path: Path) -> None:
    """The config comes from the user's cache of parsed YAML too (it is read before the project's
    workspace is known): a check of an unchanged project in a new process never loads PyYAML."""
    import subprocess
    import sys

    root = tmp_path / "p"
    root.mkdir()
    (root / "mdmark.config.yaml").write_text("index: index.yaml\ndocs:\n  include: ['*.md']\n", encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "a.md").write_text("# 文書A\n", encoding="utf-8")
    run = "import sys; from mdmark.cli.main import main; main(['check']); print('yaml' in sys.modules)"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "MDMARK_RESIDENT": "0"}
    loaded = [
        subprocess.run([sys.executable, "-c", run], cwd=root, env=env, capture_output=True, text=True, timeout=120).stdout.split()[-1]
        for _ in range(2)
    ]
    assert loaded == ["True", "False"]


def test_yaml_that_json_cannot_hold_is_parsed_every_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dates and non-string keys would come back changed from JSON: such a file is not cached on disk."""
    from mdmark.config.yamlio import parse_yaml
    from mdmark.workspace.main import Workspace

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    text = "when: 2026-12-01\n1: one\n"
    calls: list[int] = []

    def parse() -> object:
        calls.append(1)
        return parse_yaml(text, "x.yaml")

    Workspace(tmp_path).parsed_yaml(text, parse)  # type: ignore[arg-type]
    doc = Workspace(tmp_path).parsed_yaml(text, parse)  # type: ignore[arg-type]
    assert calls == [1, 1] and 1 in doc.data


def test_file_counts_follow_the_files_stat(tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("あいう", encoding="utf-8")
    workspace = workspace_for(tmp_path)
    assert workspace.file_chars(doc, lambda: len(doc.read_text(encoding="utf-8"))) == 3
    doc.write_text("あいうえお", encoding="utf-8")
    later = time.time() + 5
    os.utime(doc, (later, later))
    assert workspace.file_chars(doc, lambda: len(doc.read_text(encoding="utf-8"))) == 5


def test_memo_keeps_the_newest_entries_up_to_its_limit() -> None:
    memo: Memo[int, str] = Memo(3)
    for i in range(5):
        memo.put(i, str(i))
    assert [memo.get(i) for i in range(5)] == [None, None, "2", "3", "4"]
    assert memo.get_or_make(9, lambda: "nine") == "nine" and len(memo) == 3


def related_to(root: Path, doc_id: str) -> list[str]:
    """The ids ``find_docs(related_to=doc_id)`` answers, in order."""
    from mdmark.queries.find import find_docs

    found = find_docs(root, related_to=doc_id, format="json")
    assert isinstance(found, dict)
    return [d["id"] for d in found["docs"]]


def test_the_relation_graph_follows_edits_of_documents_and_of_what_they_include(tmp_path: Path) -> None:
    """The graph is reused while every file keeps its stat; an edited document, or an edited file a
    document includes, is seen at the next call — also when the edit is older than the racy window."""
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(
        "version: 1\ndocs:\n"
        + "".join(f"  - id: {d}\n    path: {d}.md\n    title: 文書{d.upper()}\n" for d in ("a", "b", "c")),
        encoding="utf-8",
    )
    for d in ("a", "b", "c"):
        (tmp_path / f"{d}.md").write_text(f"# 文書{d.upper()}\n\n本文。\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("# 文書A\n\n```{include} part.txt\n```\n", encoding="utf-8")
    (tmp_path / "part.txt").write_text("何も指さない。\n", encoding="utf-8")

    def age_everything() -> None:
        old = time.time() - 60
        for path in tmp_path.iterdir():
            os.utime(path, (old, old))

    age_everything()
    assert related_to(tmp_path, "c") == []
    assert related_to(tmp_path, "c") == []  # the reused graph
    (tmp_path / "b.md").write_text("# 文書B\n\n[C へ](c.md)\n", encoding="utf-8")
    age_everything()
    assert related_to(tmp_path, "c") == ["b"]
    (tmp_path / "part.txt").write_text("[C へ](c.md)\n", encoding="utf-8")
    age_everything()
    assert related_to(tmp_path, "c") == ["a", "b"]


def test_the_relation_graph_follows_the_parse_settings(tmp_path: Path) -> None:
    """A changed setting changes what documents say (here a substitution names another document)
    without any document or the index changing: the reused graph is not reused then."""
    def configure(who: str) -> None:
        (tmp_path / "mdmark.config.yaml").write_text(
            f"index: index.yaml\nmarkdown:\n  extensions: [substitution]\n  substitutions:\n    who: {who}\n",
            encoding="utf-8",
        )

    configure("文書C")
    (tmp_path / "index.yaml").write_text(
        "version: 1\ndocs:\n"
        + "".join(f"  - id: {d}\n    path: {d}.md\n    title: 文書{d.upper()}\n" for d in ("b", "c")),
        encoding="utf-8",
    )
    (tmp_path / "b.md").write_text("# 文書B\n\n{{ who }}を見る。\n", encoding="utf-8")
    (tmp_path / "c.md").write_text("# 文書C\n\n本文。\n", encoding="utf-8")
    old = time.time() - 60
    for path in tmp_path.iterdir():
        os.utime(path, (old, old))

    assert related_to(tmp_path, "c") == ["b"]
    configure("なにか")
    assert related_to(tmp_path, "c") == []


def _age(root: Path) -> None:
    """Every file and folder under ``root`` changed lately made an hour old: stats that stand for
    their content (the others keep their stat, so what is unchanged looks unchanged)."""
    old = time.time() - 3600
    for folder, dirs, files in os.walk(root):
        for path in [folder, *(os.path.join(folder, name) for name in [*dirs, *files])]:
            if os.stat(path).st_mtime > old + 60:
                os.utime(path, (old, old))


def _edits(root: Path) -> list[tuple[str, Callable[[], object]]]:
    a, b, c = root / "docs/a.md", root / "docs/sub/b.md", root / "docs/sub/c.md"

    def append(path: Path, text: str) -> None:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def replace(path: Path, old: str, new: str) -> None:
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    def atomic(path: Path, text: str) -> None:
        temp = path.with_suffix(".tmp")
        temp.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
        os.replace(temp, path)

    return [
        ("a sentence", lambda: append(a, "\n一文を足した。\n")),
        ("a heading another document links to", lambda: append(b, "\n## 新しい節\n\n本文。\n")),
        ("the link's heading renamed", lambda: replace(b, "## 新しい節", "## 別の節")),
        ("a label and a reference to it", lambda: append(a, "\n(new-label)=\n## ラベルの節\n\n{ref}`new-label`\n")),
        ("the label removed", lambda: replace(a, "(new-label)=\n", "")),
        ("a label another document refers to", lambda: append(root / "docs/index.md", "\n(later-label)=\n## 後の節\n")),
        ("another document's title mentioned", lambda: append(c, "\n目次に戻る。\n")),
        ("a link dropped that the index also relates", lambda: replace(a, "[B の節](sub/b.md#新しい節)", "B の節")),
        ("a link to a document added", lambda: append(c, "\n[A](../a.md)\n")),
        ("an image that is missing", lambda: append(c, "\n![図](pic.png)\n")),
        ("the image put in place", lambda: (root / "docs/sub/pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")),
        ("the image removed", lambda: (root / "docs/sub/pic.png").unlink()),
        ("a link to a file", lambda: append(c, "\n[表](table.csv)\n")),
        ("the file put in place", lambda: (root / "docs/sub/table.csv").write_text("a,b\n", encoding="utf-8")),
        ("saved by rename", lambda: atomic(a, "\nもう一文。\n")),
        ("a document no index lists", lambda: (root / "docs/sub/new.md").write_text("# 新\n\n本文。\n", encoding="utf-8")),
        ("a toctree entry for it", lambda: replace(root / "docs/index.md", "sub/c\n", "sub/c\nsub/new\n")),
        ("a document deleted", lambda: c.unlink()),
        ("the index retitles one", lambda: replace(root / "index.yaml", "title: 文書A", "title: 文書A2")),
        ("the index relates an unknown document", lambda: replace(root / "index.yaml", "related: [b]", "related: [zz]")),
    ]


def _project(root: Path) -> None:
    (root / "docs/sub").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text('index: index.yaml\ndocs:\n  include: ["docs/**/*.md"]\n', encoding="utf-8")
    docs = {
        "docs/index.md": "# 目次\n\n```{toctree}\na\nsub/b\nsub/c\n```\n",
        "docs/a.md": "# 文書A\n\n[B の節](sub/b.md#新しい節) と {ref}`b-label` と {ref}`later-label` と 文書C。\n",
        "docs/sub/b.md": "# 文書B\n\n(b-label)=\n## 節\n\n[A](../a.md) を見る。\n",
        "docs/sub/c.md": "# 文書C\n\n[ない](#どこにも無い) と {doc}`b`。\n",
    }
    for rel, text in docs.items():
        (root / rel).write_text(text, encoding="utf-8")
    (root / "index.yaml").write_text(
        "docs:\n"
        + "".join(
            f"  - id: {name}\n    path: {rel}\n    title: {title}\n" + ("    related: [b]\n" if name == "a" else "")
            for name, rel, title in (("index", "docs/index.md", "目次"), ("a", "docs/a.md", "文書A"),
                                     ("b", "docs/sub/b.md", "文書B"), ("c", "docs/sub/c.md", "文書C"))
        ),
        encoding="utf-8",
    )  # fmt: skip


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "just-saved"])
def test_a_check_after_each_edit_is_the_check_of_a_fresh_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool
) -> None:
    """The server's check after an edit reuses what the edit cannot change (mdmark.check.rules.reuse):
    after every kind of edit it says exactly what a check in a new workspace says — also when the
    edited files' stats are too recent to stand for their content (an agent checks right after saving)."""
    import mdmark.workspace.main
    from mdmark.check.collect import collect
    from mdmark.check.rules import build_context, run
    from mdmark.check.rules.reuse import last_check

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "project"
    _project(root)
    _age(root)

    def fresh() -> list[dict[str, str]]:
        # A new workspace, and the rules run (not the stored answer the reusing check just kept).
        monkeypatch.setattr(mdmark.workspace.main, "_WORKSPACES", Memo(16))
        try:
            return [d.as_dict() for d in run(build_context(Project.open(root), None, None))]
        finally:
            monkeypatch.undo()
            monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    kept = [d.as_dict() for d in collect(Project.open(root))]
    before = last_check(Project.open(root))
    assert before is not None
    for what, edit in _edits(root):
        edit()
        if settled:
            _age(root)
        project = Project.open(root)
        found = [d.as_dict() for d in collect(project)]
        assert found == fresh(), what
        if what == "a sentence":
            # Only the edited document's references were resolved again; the name tables (no
            # label or target changed) are the last run's.
            after = last_check(project)
            assert after is not None
            assert after.problems["docs/sub/b.md"] is before.problems["docs/sub/b.md"]
            assert after.problems["docs/a.md"] is not before.problems["docs/a.md"]
            assert after.model.names is before.model.names
        if what == "a label and a reference to it":
            after = last_check(project)
            assert after is not None and after.model.names is not before.model.names
        kept = found
    assert any(d["kind"] == "unindexed_doc" for d in kept)


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "just-saved"])
def test_related_to_after_each_edit_is_the_answer_of_a_fresh_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool
) -> None:
    """find_docs related_to keeps each unchanged document's links and name occurrences; after every
    kind of edit it answers what a new workspace answers (also right after the save)."""
    from mdmark.workspace.relations import RelationGraph

    import mdmark.workspace.main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "project"
    _project(root)
    _age(root)

    def answers() -> list[object]:
        from mdmark.queries.find import find_docs

        counts = find_docs(root, include=["referenced_by"], format="json")
        return [counts, *(related_to(root, doc_id) for doc_id in ("index", "a", "b"))]

    def fresh() -> list[object]:
        monkeypatch.setattr(mdmark.workspace.main, "_WORKSPACES", Memo(16))
        try:
            return answers()
        finally:
            monkeypatch.undo()
            monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def graph() -> RelationGraph:
        kept = [v[4] for _k, v in Project.open(root).workspace.stamped.items() if isinstance(v[4], RelationGraph)]
        assert len(kept) == 1
        return kept[0]

    if not settled:
        os.utime(root / "docs/sub/c.md")  # the first answer too comes right after a save
    answers()
    for what, edit in _edits(root):
        before = graph()
        edit()
        if settled:
            _age(root)
        assert answers() == fresh(), what
        if what == "a sentence":
            # Only the edited document's body relations were worked out again.
            assert graph().body["b"] is before.body["b"]


def test_the_file_tree_moves_its_version_only_when_entries_change(tmp_path: Path) -> None:
    """What exists under a folder: an edited file (in place or saved by rename) changes nothing; a
    file added, removed or renamed, or a folder added, does; a symbolic link makes it untracked."""
    from mdmark.workspace.main import FileTree

    (tmp_path / "docs/sub").mkdir(parents=True)
    (tmp_path / "docs/a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "node_modules").mkdir()
    _age(tmp_path)
    tree = FileTree(str(tmp_path))
    first = tree.version()
    assert first is not None and tree.version() == first
    (tmp_path / "docs/a.md").write_text("# A\n\n本文。\n", encoding="utf-8")
    assert tree.version() == first
    (tmp_path / "docs/a.tmp").write_text("# A\n\n本文。\n", encoding="utf-8")
    os.replace(tmp_path / "docs/a.tmp", tmp_path / "docs/a.md")
    assert tree.version() == first
    (tmp_path / "node_modules/x.md").write_text("x", encoding="utf-8")  # not walked
    assert tree.version() == first
    assert tree.covers(str(tmp_path / "docs/sub/b.md")) and not tree.covers(str(tmp_path / "node_modules/x.md"))
    assert not tree.covers(str(tmp_path.parent / "other.md"))
    (tmp_path / "docs/sub/b.md").write_text("# B\n", encoding="utf-8")
    second = tree.version()
    assert second is not None and second != first
    (tmp_path / "docs/sub/deeper").mkdir()
    third = tree.version()
    assert third != second
    (tmp_path / "docs/sub/deeper/c.md").write_text("# C\n", encoding="utf-8")
    fourth = tree.version()
    assert fourth != third
    (tmp_path / "docs/sub/b.md").rename(tmp_path / "docs/sub/b2.md")
    assert tree.version() != fourth
    (tmp_path / "docs/link.md").symlink_to(tmp_path / "docs/a.md")
    assert tree.version() is None
    (tmp_path / "docs/link.md").unlink()
    assert tree.version() is not None
