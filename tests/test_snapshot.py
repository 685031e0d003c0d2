"""A run after an edit starts from the last run's snapshot of the workspace (mdmark.workspace.snapshot):
it parses only the edited document and answers exactly what a cold run on a fresh cache answers;
a damaged or foreign snapshot is ignored."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_stored_check import _age

from mdmark.check.collect import collect
from mdmark.project.main import Project
from mdmark.workspace.main import Workspace, fresh_workspaces
from mdmark.workspace import snapshot
from mdmark.workspace.snapshot import _delta_file, _file, _installation

CONFIG = 'docs:\n  include: ["docs/**/*.md"]\nindex: index.yaml\n'
INDEX = """\
docs:
  - id: a
    path: docs/a.md
    title: A
  - id: b
    path: docs/b.md
    title: B
    related: [a]
  - id: c
    path: docs/c.md
    title: C
"""
DOCS = {
    "a.md": "# A\n\n(label-a)=\n## 節\n\n本文。[b](b.md) と [c の節](c.md#c-節)。\n",
    "b.md": "# B\n\n{ref}`label-a` と [a](a.md#節) と [無い](missing.md)。\n",
    "c.md": "# C\n\n## C 節\n\n![図](pic.png)\n",
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "p"
    files = {"mdmark.config.yaml": CONFIG, "index.yaml": INDEX, **{f"docs/{name}": text for name, text in DOCS.items()}}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    _age(root)
    return root


def _lines(root: Path) -> tuple[list[str], Workspace]:
    """The check's lines as a new process gives them (a fresh workspace, the cache on disk), and
    that workspace."""
    with fresh_workspaces():
        project = Project.open(root)
        return [d.text_line() for d in collect(project)], project.workspace


def _cold(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        m.setenv("XDG_CACHE_HOME", str(tmp_path / f"cold-{time.monotonic_ns()}"))
        return _lines(root)[0]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


EDITS: list[tuple[str, Callable[[Path], None]]] = [
    ("content", lambda root: _replace(root / "docs" / "c.md", "![図]", "段落を足す。\n\n![図]")),
    ("title", lambda root: _replace(root / "docs" / "a.md", "# A\n", "# A 改\n")),
    ("label", lambda root: _replace(root / "docs" / "a.md", "(label-a)=", "(label-z)=")),
    ("heading", lambda root: _replace(root / "docs" / "c.md", "## C 節", "## C 章")),
    ("link target", lambda root: _replace(root / "docs" / "b.md", "[無い](missing.md)", "[有る](c.md)")),
    ("index", lambda root: _replace(root / "index.yaml", "title: C", "title: C 改")),
    ("new file", lambda root: (root / "docs" / "missing.md").write_text("# M\n", encoding="utf-8")),
    ("image", lambda root: (root / "docs" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")),
    ("removed file", lambda root: (root / "docs" / "missing.md").unlink()),
]


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "just saved"])
def test_each_edit_after_a_snapshot_answers_as_a_cold_run(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool
) -> None:
    first, opened = _lines(project)
    assert first == _cold(project, tmp_path, monkeypatch)
    assert opened.snapshot_written
    answers = {tuple(first)}
    for name, edit in EDITS:
        edit(project)
        if settled:
            _age(project)
        after, opened = _lines(project)
        assert opened.snapshot_used, name
        assert after == _cold(project, tmp_path, monkeypatch), name
        answers.add(tuple(after))
    assert len(answers) > 5  # the edits changed the answers


def test_only_the_edited_document_is_parsed(project: Path) -> None:
    _lines(project)
    _replace(project / "docs" / "a.md", "本文。", "本文を直した。")
    _age(project)
    with fresh_workspaces():
        opened = Project.open(project)
        collect(opened)
        assert opened.workspace.snapshot_used
        assert opened.pipeline.parse_count == 1


def test_the_edited_document_is_parsed_while_the_snapshot_is_read(project: Path) -> None:
    """The stored check names what changed since (a branch switch of many documents: nothing), and
    that document is parsed once, ahead, in a worker."""
    from mdmark.check import stored

    _lines(project)
    _replace(project / "docs" / "a.md", "本文。", "本文を直した。")
    _age(project)
    with fresh_workspaces():
        opened = Project.open(project)
        # Every stamp moved (_age); one content did.
        changed = stored.edited_documents(stored.changed(opened, stored.lookup(opened)) or [])
        assert project / "docs" / "a.md" in changed
        ahead = opened.pipeline.parse_ahead(changed)
        assert ahead is not None
        ahead.join()
        assert opened.pipeline.parse_count == 1
        collect(opened)
        assert opened.pipeline.parse_count == 1


@pytest.mark.parametrize("damage", ["flip", "truncate", "foreign"])
def test_a_damaged_snapshot_is_ignored(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    first, _ = _lines(project)
    with fresh_workspaces():
        opened = Project.open(project)
        snapshot = _file(opened.pipeline.cache_dir, opened.config.path, "check", _installation())  # type: ignore[arg-type]
    data = bytearray(snapshot.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01
    elif damage == "truncate":
        del data[len(data) // 2 :]
    else:  # a snapshot made with another user's key: its HMAC does not verify with ours
        data[:32] = bytes(32)
    snapshot.write_bytes(bytes(data))
    _replace(project / "docs" / "a.md", "# A\n", "# A 改\n")
    _age(project)
    after, workspace = _lines(project)
    assert workspace.snapshot_read and not workspace.snapshot_used
    assert after == _cold(project, tmp_path, monkeypatch)
    assert after != first


def _snapshot_files(root: Path) -> tuple[Path, Path]:
    with fresh_workspaces():
        opened = Project.open(root)
        base = _file(opened.pipeline.cache_dir, opened.config.path, "check", _installation())  # type: ignore[arg-type]
    return base, _delta_file(base)


def test_an_edit_writes_a_delta_and_a_grown_delta_the_base_again(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a run that read the snapshot, only what it made (the edited document's facts) and the
    memos that hold them are written, beside the base; a delta past its limit writes the base again.
    Each answer is a cold run's."""
    _lines(project)
    base, delta = _snapshot_files(project)
    written = base.read_bytes()
    assert not delta.exists()
    for number, (name, edit) in enumerate(EDITS):
        edit(project)
        _age(project)
        full = number % 3 == 2  # every third run: as if the delta had grown past its limit
        with monkeypatch.context() as m:
            if full:
                m.setattr(snapshot, "_delta_limit", lambda units: -1)
            after, opened = _lines(project)
        assert opened.snapshot_used, name
        assert after == _cold(project, tmp_path, monkeypatch), name
        if full:
            assert base.read_bytes() != written and not delta.exists(), name
            written = base.read_bytes()
        else:
            assert base.read_bytes() == written and delta.exists(), name


def test_a_delta_of_another_base_or_damaged_is_ignored(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lines(project)
    base, delta = _snapshot_files(project)
    _replace(project / "docs" / "a.md", "本文。", "本文を直した。")
    _age(project)
    _lines(project)
    old = delta.read_bytes()  # a delta of the first base
    _replace(project / "docs" / "b.md", "{ref}`label-a`", "{ref}`label-q`")
    _age(project)
    with monkeypatch.context() as m:
        m.setattr(snapshot, "_delta_limit", lambda units: -1)
        _lines(project)  # a new base
    assert not delta.exists()
    delta.write_bytes(old)
    _replace(project / "docs" / "c.md", "## C 節", "## C 章")
    _age(project)
    after, opened = _lines(project)
    assert opened.snapshot_used and "label-q" in "".join(after)
    assert after == _cold(project, tmp_path, monkeypatch)
    damaged = bytearray(delta.read_bytes())
    damaged[len(damaged) // 2] ^= 0x01
    delta.write_bytes(bytes(damaged))
    _replace(project / "docs" / "a.md", "# A\n", "# A 改\n")
    _age(project)
    after, opened = _lines(project)
    assert opened.snapshot_used  # the base alone: an older state, checked again like any
    assert after == _cold(project, tmp_path, monkeypatch)


def test_the_cli_after_an_edit_prints_what_a_cold_run_prints(project: Path, tmp_path: Path) -> None:
    def cli(cache: Path) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        return subprocess.run(
            [sys.executable, "-m", "mdmark", "check"], cwd=project, env=env, capture_output=True, text=True, timeout=120
        )

    cli(tmp_path / "warm")
    _replace(project / "docs" / "b.md", "{ref}`label-a`", "{ref}`label-q`")
    warm, cold = cli(tmp_path / "warm"), cli(tmp_path / "fresh")
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert "label-q" in warm.stdout


BUILD = '\nbuild:\n  include: ["docs/**/*.md"]\n  out: dist/p.html\n'


def _built(root: Path) -> tuple[str, Workspace]:
    from mdmark.builders.build import build_site

    with fresh_workspaces():
        build_site(root)
        return (root / "dist" / "p.html").read_text(encoding="utf-8"), Project.open(root).workspace


def test_each_edit_after_a_snapshot_builds_the_page_of_a_cold_build(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (project / "mdmark.config.yaml").open("a", encoding="utf-8") as config:
        config.write(BUILD)
    _age(project)
    _built(project)
    for name, edit in EDITS:
        edit(project)
        _age(project)
        page, workspace = _built(project)
        assert workspace.snapshot_used, name
        with monkeypatch.context() as m:
            m.setenv("XDG_CACHE_HOME", str(tmp_path / f"cold-{name}"))
            cold, _ = _built(project)
        assert page == cold, name


def test_workers_are_made_ready_only_when_a_document_may_need_reading(project: Path) -> None:
    """``reading()`` (the CLI starts its worker pool there) is not called when only the index
    changed since the stored check; it is for a document's edit."""

    def calls(edit: Callable[[Path], None]) -> int:
        edit(project)  # the other files keep their stamps, as after a real edit
        called: list[int] = []
        with fresh_workspaces():
            collect(Project.open(project), reading=lambda: called.append(1))
        return len(called)

    _lines(project)
    assert calls(lambda root: _replace(root / "index.yaml", "title: C", "title: C 改")) == 0
    assert calls(lambda root: _replace(root / "docs" / "c.md", "# C", "# C 改")) == 1
    assert calls(lambda root: (root / "docs" / "new.md").write_text("# N\n", encoding="utf-8")) == 1


def test_a_deferred_list_is_the_list_it_was_written_from() -> None:
    import pickle
    import threading

    from mdmark.workspace.picklefn import DeferredList

    items = [("a", 1), ("b", 2), ("c", 3)]

    def deferred() -> DeferredList:
        return DeferredList.of_pickle(pickle.dumps(items))

    assert deferred() == items and items == deferred() and deferred() == deferred()
    assert not (deferred() != items) and deferred() != items[:2]
    assert len(deferred()) == 3 and list(deferred()) == items and deferred()[1] == ("b", 2)
    assert deferred()[1:] == items[1:] and ("c", 3) in deferred() and bool(deferred())
    assert items + deferred() == items * 2 and deferred() + deferred() == items * 2  # list's own code reads the items
    assert sorted(deferred(), reverse=True) == sorted(items, reverse=True) and repr(deferred()) == repr(items)
    assert type(pickle.loads(pickle.dumps(deferred()))) is list  # elsewhere, a plain list
    assert DeferredList(iter(items)) == items and DeferredList() == []  # made from items, as a list is
    one = deferred()
    assert one.pickled() == pickle.dumps(items)  # not read: the bytes it was made from
    one.append(("d", 4))
    assert pickle.loads(one.pickled()) == [*items, ("d", 4)]
    # Threads that reach it at once see it filled once.
    shared = deferred()
    seen: list[list[object]] = []
    threads = [threading.Thread(target=lambda: seen.append(list(shared))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [items] * 8 and shared == items
    # A document's facts through a snapshot's pickler: a list still unread is written again unread.
    from mdmark.core.facts import DocFacts
    from mdmark.workspace.picklefn import dumps, loads

    facts = loads(dumps(DocFacts(path="x.md", sha="k", headings=[("h", 1)], text=[]))).__dict__  # type: ignore[list-item]
    again = loads(dumps(DocFacts(path="x.md", sha="k", headings=facts["headings"])))
    assert facts["headings"]._blob is not None and again.headings == [("h", 1)]


def test_facts_from_a_snapshot_are_read_only_where_an_edit_needs_them(project: Path) -> None:
    from mdmark.core.facts import DocFacts
    from mdmark.workspace.picklefn import DEFERRED_FIELDS, DeferredList

    _lines(project)
    _replace(project / "docs" / "c.md", "![図]", "段落を足す。\n\n![図]")
    with fresh_workspaces():
        opened = Project.open(project)
        collect(opened)
        assert opened.workspace.snapshot_used
        memory = opened.workspace.state(opened.pipeline, "check")["facts"].items()
        # Each entry: the document's stamp and its facts.
        facts = {Path(path).name: next(p for p in entry if isinstance(p, DocFacts)) for path, entry in memory}
    unread = {
        (name, field)
        for name, one in facts.items()
        for field in DEFERRED_FIELDS
        if isinstance(getattr(one, field), DeferredList) and getattr(one, field)._blob is not None
    }
    # The plain text of the documents not edited: the names occurring in it were kept with the snapshot.
    assert {("a.md", "text"), ("b.md", "text")} <= unread, unread
    assert not isinstance(facts["c.md"].text, DeferredList)  # parsed again


def test_two_installations_taking_turns_keep_their_own_snapshots(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another ``PYTHONPATH`` is another Python environment, so another installation of mdmark (as
    an editor's mdmark and the terminal's would be): each reads the snapshot it wrote; a third's
    makes the oldest go."""

    def run(pythonpath: str) -> Workspace:
        monkeypatch.setenv("PYTHONPATH", pythonpath)
        return _lines(project)[1]

    def files() -> list[str]:
        return sorted(p.name for p in (tmp_path / "cache").rglob("snapshots/*.check.pickle"))

    first, second = tmp_path / "one", tmp_path / "two"
    assert not run("").snapshot_used
    assert not run(str(first)).snapshot_used  # a new installation: nothing of its own yet
    assert len(files()) == 2
    for pythonpath in ("", str(first), "", str(first)):
        _replace(project / "docs" / "c.md", "![図]", "段落。\n\n![図]")
        assert run(pythonpath).snapshot_used, pythonpath  # each found its own, however the other wrote
    before = files()
    run(str(second))
    after = files()
    assert len(after) == 2 and len(set(after) - set(before)) == 1, (before, after)
