"""The parse cache: an unchanged document is never parsed twice (memory and disk), a changed one is
re-parsed alone, and the cache folder stays out of git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mdmark.pipeline import sources as sources_module
from mdmark.pipeline import limits, pool as pool_module
from mdmark.pipeline.cachestore import read_entry
from mdmark.config.main import MarkdownSettings
from mdmark.pipeline.pipeline import Pipeline
from mdmark.util.globs import CACHE_DIR_NAME
from mdmark.pipeline.limits import PARALLEL_THRESHOLD


def make_tree(root: Path, count: int) -> list[Path]:
    """``count`` linked documents with sphinx-design parts, so parallel and serial parses have work."""
    (root / "docs").mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = root / "docs" / f"doc{i:03}.md"
        nxt = (i + 1) % count
        path.write_text(
            f"# 文書 {i}\n\n"
            f"次は[文書 {nxt}](doc{nxt:03}.md#節-{nxt})、無い[ファイル](none{i}.md)。\n\n"
            f"## 節 {i}\n\n"
            "::::{tab-set}\n"
            ":::{tab-item} タブ\n"
            f"タブの中の[リンク](doc{nxt:03}.md)。\n"
            ":::\n"
            "::::\n\n"
            "```python\n"
            f"print('文書 {nxt}')\n"
            "```\n",
            encoding="utf-8",
        )
        paths.append(path)
    return paths


def test_second_run_over_unchanged_tree_parses_nothing(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 5)
    cache = tmp_path / CACHE_DIR_NAME
    first = Pipeline(tmp_path, MarkdownSettings(), cache)
    facts1 = first.facts_many(paths)
    assert first.parse_count == 5
    second = Pipeline(tmp_path, MarkdownSettings(), cache)  # a new process would start like this
    facts2 = second.facts_many(paths)
    assert second.parse_count == 0
    assert facts2 == facts1
    # and the doctrees come from the disk cache too
    tree = second.doctree(paths[0])
    assert second.parse_count == 0
    assert "文書 0" in tree.astext()


def test_changed_document_is_the_only_one_parsed_again(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 5)
    cache = tmp_path / CACHE_DIR_NAME
    Pipeline(tmp_path, MarkdownSettings(), cache).facts_many(paths)
    paths[2].write_text("# 書き換えた\n\n本文。\n", encoding="utf-8")
    again = Pipeline(tmp_path, MarkdownSettings(), cache)
    facts = again.facts_many(paths)
    assert again.parse_count == 1
    assert facts[2].title == "書き換えた"
    assert [f.title for f in facts] == ["文書 0", "文書 1", "書き換えた", "文書 3", "文書 4"]


def test_memory_cache_in_one_process(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 3)
    pipe = Pipeline(tmp_path, MarkdownSettings())  # no disk cache: the server's case
    pipe.facts_many(paths)
    pipe.facts_many(paths)
    pipe.facts(paths[0])
    pipe.doctree(paths[1])
    assert pipe.parse_count == 3
    assert not (tmp_path / CACHE_DIR_NAME).exists()


def test_settings_are_part_of_the_key(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 2)
    cache = tmp_path / CACHE_DIR_NAME
    Pipeline(tmp_path, MarkdownSettings(), cache).facts_many(paths)
    other = Pipeline(tmp_path, MarkdownSettings(heading_anchors=1), cache)
    facts = other.facts_many(paths)
    assert other.parse_count == 2
    assert [h.slug for h in facts[0].headings] == ["文書-0", None]


def test_cache_folder_is_ignored_by_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    paths = make_tree(tmp_path, 2)
    Pipeline(tmp_path, MarkdownSettings(), tmp_path / CACHE_DIR_NAME).facts_many(paths)
    cache = tmp_path / CACHE_DIR_NAME
    assert (cache / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text(encoding="utf-8").startswith("Signature: 8a477f597d28d172789f06886806bc55")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert CACHE_DIR_NAME not in status
    assert "docs/doc000.md" in status


def test_damaged_cache_entries_are_misses(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 2)
    cache = tmp_path / CACHE_DIR_NAME
    expected = Pipeline(tmp_path, MarkdownSettings(), cache).facts_many(paths)
    for entry in cache.rglob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    again = Pipeline(tmp_path, MarkdownSettings(), cache)
    assert again.facts_many(paths) == expected
    assert again.parse_count == 2
    # the re-parse repaired the entries
    for entry in cache.rglob("*.json"):
        data = read_entry(entry)
        assert data is not None
        json.loads(data)


def test_unwritable_cache_location_still_works(tmp_path: Path) -> None:
    """The cache is an optimisation: a cache path that cannot be created changes nothing."""
    paths = make_tree(tmp_path, 2)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder's parent should be", encoding="utf-8")
    pipe = Pipeline(tmp_path, MarkdownSettings(), blocker / CACHE_DIR_NAME)
    assert [f.title for f in pipe.facts_many(paths)] == ["文書 0", "文書 1"]
    assert blocker.read_text(encoding="utf-8").startswith("a file")


def test_parallel_path_gives_the_same_facts_as_the_serial_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = PARALLEL_THRESHOLD + 2
    paths = make_tree(tmp_path, count)
    monkeypatch.setattr(limits, "worker_count", lambda: 2)  # a one-core machine too
    used: list[tuple[int, int]] = []
    original = pool_module.Pool.run

    def spy(self: pool_module.Pool, pipeline: Pipeline, task: object, jobs: list[object], width: int = 1, *rest: object) -> object:
        used.append((len(jobs), width))
        return original(self, pipeline, task, jobs, width, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(pool_module.Pool, "run", spy)
    progress: list[tuple[int, int]] = []
    parallel = Pipeline(tmp_path, MarkdownSettings(), tmp_path / CACHE_DIR_NAME)
    facts_parallel = parallel.facts_many(paths, progress=lambda done, total: progress.append((done, total)))
    assert used == [(count, 2)]
    assert parallel.parse_count == count
    assert progress[0] == (0, count) and progress[-1] == (count, count)
    serial = Pipeline(tmp_path, MarkdownSettings())
    facts_serial = [serial.facts(p) for p in paths]
    assert facts_parallel == facts_serial
    # the workers' results went into the disk cache like serial ones
    fresh = Pipeline(tmp_path, MarkdownSettings(), tmp_path / CACHE_DIR_NAME)
    assert fresh.facts_many(paths) == facts_serial
    assert fresh.parse_count == 0
    assert fresh.doctree(paths[3]).astext() == serial.doctree(paths[3]).astext()


def test_same_path_twice_is_parsed_once(tmp_path: Path) -> None:
    paths = make_tree(tmp_path, 2)
    pipe = Pipeline(tmp_path, MarkdownSettings())
    facts = pipe.facts_many([paths[0], paths[1], paths[0]])
    assert [f.path for f in facts] == ["docs/doc000.md", "docs/doc001.md", "docs/doc000.md"]
    assert pipe.parse_count == 2


def test_memory_keeps_one_version_per_document(tmp_path: Path) -> None:
    """A long-running server re-parses edited documents; old versions do not pile up."""
    doc = tmp_path / "a.md"
    pipe = Pipeline(tmp_path, MarkdownSettings())
    for i in range(20):
        doc.write_text(f"# 版 {i}\n\n本文 {i}。\n", encoding="utf-8")
        assert pipe.facts(doc).title == f"版 {i}"
    assert pipe.parse_count == 20
    assert len(pipe._facts) == 1 and len(pipe._trees) == 1
    # The parses ran in a worker process: this process made no Sphinx application at all.
    assert pipe._app is None


def test_a_worker_keeps_one_version_per_document(tmp_path: Path) -> None:
    """The worker's own Sphinx environment keeps no old versions either."""
    from mdmark.pipeline.pool import run_bounded

    doc = tmp_path / "a.md"
    pool_module._POOL.close()  # one worker: the one that parses is the one asked below
    pipe = Pipeline(tmp_path, MarkdownSettings())
    for i in range(5):
        doc.write_text(f"# 版 {i}\n\n本文 {i}。\n", encoding="utf-8")
        assert pipe.facts(doc).title == f"版 {i}"
    state = run_bounded(pipe, _worker_env_state, [None])[0]
    all_docs, write_cache, pickled_cache = state
    assert set(all_docs) <= {"a"} and write_cache == 0 and pickled_cache == 0


def _worker_env_state(pipeline: Pipeline, _job: None) -> tuple[list[str], int, int]:
    env = pipeline.app.env
    return list(env.all_docs), len(env._write_doc_doctree_cache), len(env._pickled_doctree_cache)


def test_unchanged_files_are_known_by_their_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a long-running process a file whose stat is unchanged is neither read nor hashed again;
    an edited one is, and a file edited moments ago is read every time (its stat may not show the
    next edit within the same clock tick)."""
    import os
    import time

    paths = make_tree(tmp_path, 3)
    old = time.time() - 60
    for path in paths:
        os.utime(path, (old, old))
    pipe = Pipeline(tmp_path, MarkdownSettings())
    first = pipe.facts_many(paths)
    reads: list[str] = []
    real_read = sources_module.door.read_stat

    def counting(path: Path, *args: object) -> object:
        reads.append(Path(path).name)
        return real_read(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sources_module.door, "read_stat", counting)
    assert pipe.facts_many(paths) == first
    assert reads == []
    paths[1].write_text("# 直した\n", encoding="utf-8")
    again = pipe.facts_many(paths)
    assert reads == ["doc001.md"] and again[1].title == "直した" and again[0] == first[0]
    reads.clear()
    pipe.facts_many(paths)
    assert reads == ["doc001.md"]  # modified a moment ago: not trusted by its stat yet


def test_a_render_that_parses_again_reports_no_parse_warning_twice(tmp_path: Path) -> None:
    """A cold build caches HTML, not doctrees; a later render that must parse the document again
    (another page language) gives the same notes as one from a cached tree: the parse's warnings
    belong to the document's facts, not to the render."""
    from mdmark.html.render import _render

    doc = tmp_path / "a.md"
    doc.write_text("# 題\n\n```{unknowndirective}\n中身\n```\n\n本文。\n", encoding="utf-8")
    cached = Pipeline(tmp_path, MarkdownSettings())
    facts = cached.facts_many([doc])[0]
    assert [w.type for w in facts.warnings] == ["myst.directive_unknown"]
    parsed_again = Pipeline(tmp_path, MarkdownSettings())
    parsed_again.facts_many([doc], keep_trees=False)
    (tmp_path / "b.md").write_text("# 別\n", encoding="utf-8")
    parsed_again.facts_many([tmp_path / "b.md"])  # another document in between: a's tree is not at hand
    before = parsed_again.parse_count
    assert _render(parsed_again, doc, "ja").notes == _render(cached, doc, "ja").notes == []
    assert parsed_again.parse_count == before + 1


def test_write_soon_writes_only_the_last_value_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server's stored answer is written once it is idle: of several asked for in a row, the last
    reaches the disk (whenever the earlier ones' timers fire on a loaded machine), by a thread a
    process ending waits for."""
    import threading

    from mdmark.pipeline.contentcache import ContentCache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache: ContentCache[dict[str, int]] = ContentCache(
        tmp_path / "cache", ".json", lambda v: json.dumps(v).encode(), lambda b: json.loads(b)
    )
    key = "ab" * 32
    for value in range(3):
        cache.write_soon(key, {"v": value}, 0.2, "test-write-soon")
    file = cache.file(key)
    assert file is not None
    # The next test's environment by the time it is written: it is still this cache's entry.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    waiting = [t for t in threading.enumerate() if t.name == "test-write-soon"]
    assert not any(t.daemon for t in waiting)  # (all of them may have run already on a loaded machine)
    for thread in waiting:
        thread.join()
    assert not (tmp_path / "elsewhere" / "mdmark" / "key").exists()  # authenticated by this cache's key
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    data = read_entry(file)
    assert data is not None and json.loads(data) == {"v": 2}
