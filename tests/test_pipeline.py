"""The pipeline with a real Sphinx 9 application: re-reading, several source folders in one
process, warnings landing in the right document, unreadable input, the process-wide registry."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mdmark.config.main import MarkdownSettings
from mdmark.core.errors import MdmarkError
from mdmark.pipeline.pipeline import Pipeline
from mdmark.util.globs import CACHE_DIR_NAME
from mdmark.workspace.main import workspace_for
from mdmark.project.main import Project


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_rereading_a_changed_document_in_the_same_process(tmp_path: Path) -> None:
    doc = write(tmp_path / "a.md", "# 一\n\n## 節\n\n```{nodir}\n```\n\n[b](b.md#x)\n")
    write(tmp_path / "b.md", "# B\n")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    first = pipe.facts(doc)
    assert [h.title for h in first.headings] == ["一", "節"]
    assert [(w.line, w.type) for w in first.warnings] == [(5, "myst.directive_unknown")]
    write(doc, "# 二\n\n本文。\n\n{norole}`x`\n")
    second = pipe.facts(doc)
    assert [h.title for h in second.headings] == ["二"]
    # nothing of the first version survives: no old anchors, links or warnings
    assert second.anchors == ["二", "id1"]
    assert second.links == []
    assert [(w.line, w.type) for w in second.warnings] == [(5, "myst.role_unknown")]
    # and the first version again (still cached in the disk-less pipeline? no: evicted) parses cleanly
    write(doc, "# 一\n\n## 節\n\n```{nodir}\n```\n\n[b](b.md#x)\n")
    third = pipe.facts(doc)
    assert third == first
    assert pipe.parse_count == 3


def test_two_source_folders_in_one_process_keep_their_warnings(tmp_path: Path) -> None:
    """Sphinx's logging is global to the process; each read must still report into its own document."""
    a = Pipeline(tmp_path / "a", MarkdownSettings())
    b = Pipeline(tmp_path / "b", MarkdownSettings())
    doc_a = write(tmp_path / "a" / "x.md", "# A\n\n```{only_in_a}\n```\n")
    doc_b = write(tmp_path / "b" / "x.md", "# B\n\ntext\n\n{only_in_b}`r`\n")
    for _ in range(2):  # interleaved, and again after both apps exist
        fa = a.facts(doc_a)
        fb = b.facts(doc_b)
        assert [(w.line, w.message) for w in fa.warnings] == [(3, "Unknown directive type: 'only_in_a'")]
        assert [(w.line, w.message) for w in fb.warnings] == [(5, 'Unknown interpreted text role "only_in_b".')]
        write(doc_a, doc_a.read_text(encoding="utf-8") + "\n")
        write(doc_b, doc_b.read_text(encoding="utf-8") + "\n")
    assert a.app is not b.app


def test_threads_share_one_pipeline(tmp_path: Path) -> None:
    """The MCP server calls the pipeline from several threads; SPHINX_LOCK serialises the reads."""
    docs = [write(tmp_path / f"d{i}.md", f"# 題 {i}\n\n```{{bad{i}}}\n```\n") for i in range(6)]
    pipe = Pipeline(tmp_path, MarkdownSettings())
    results: dict[int, list[str]] = {}

    def work(i: int) -> None:
        facts = pipe.facts(docs[i])
        results[i] = [facts.title or "", *(w.message for w in facts.warnings)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: [f"題 {i}", f"Unknown directive type: 'bad{i}'"] for i in range(6)}


def test_collect_warnings_of_later_sphinx_work(tmp_path: Path) -> None:
    doc = write(tmp_path / "a.md", "# A\n\n[b](b.md)\n")
    write(tmp_path / "b.md", "# B\n")
    other = Pipeline(tmp_path / "other", MarkdownSettings())
    write(tmp_path / "other" / "o.md", "# O\n")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    tree = pipe.doctree(doc)
    other.facts(tmp_path / "other" / "o.md")  # the last app to set up logging is another one
    with pipe.collect_warnings() as warnings:
        from sphinx.util import logging as sphinx_logging

        sphinx_logging.getLogger("mdmark.test").warning("probe", location=("a", 3))
        pipe.app.env.apply_post_transforms(tree, "a")
    # b.md was never read, so the post-transform cannot resolve the link: that warning lands here too.
    assert [(w.line, w.message) for w in warnings] == [(3, "probe"), (3, "Unknown source document 'b'")]


def test_parse_uses_the_hashed_text_not_a_later_version_on_disk(tmp_path: Path) -> None:
    """Sphinx reads the file itself; the pipeline hands it the text it hashed (an editor may save
    in between), so a cache entry always matches its key."""
    write(tmp_path / "a.md", "# On disk\n")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    tree, _ = pipe.application().read("a", "# Hashed\n")
    assert tree.astext() == "Hashed"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bin.md", b"# a\x00b\n", "`bin.md` はテキストではなくバイナリのファイルなので、Markdown か YAML のテキストのファイルを指定してください。"),
        ("bad.md", b"# ok\n\n\xff\xfe\n", "`bad.md` の 3 行目が UTF-8 として読めないので、ファイルを UTF-8 で保存し直してください。"),
        ("notes.txt", b"# text\n", "`notes.txt` は Markdown（.md）のファイルではないので、.md のファイルを指定してください。"),
    ],
)
def test_unreadable_documents_come_back_with_an_error(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    (tmp_path / name).write_bytes(content)
    good = write(tmp_path / "good.md", "# Good\n")
    pipe = Pipeline(tmp_path, MarkdownSettings())
    facts = pipe.facts_many([tmp_path / name, good])
    assert facts[0].error == message
    assert facts[1].title == "Good" and facts[1].error is None
    with pytest.raises(MdmarkError) as info:
        pipe.facts(tmp_path / name)
    assert info.value.message == message


def test_missing_and_outside_documents(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    write(tmp_path / "outside.md", "# O\n")
    pipe = Pipeline(src, MarkdownSettings())
    missing, outside = pipe.facts_many([src / "gone.md", tmp_path / "outside.md"])
    assert missing.error == "`gone.md` が見つからないので、パスを直すかファイルを置いてください。"
    assert outside.error is not None and "の外にあるので" in outside.error


def test_bom_and_crlf_keep_lines(tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_bytes("\ufeff# 題\r\n\r\n本文の[リンク](b.md)。\r\n".encode())
    facts = Pipeline(tmp_path, MarkdownSettings()).facts(doc)
    assert facts.title == "題" and facts.title_line == 1
    assert [(link.line, link.target) for link in facts.links] == [(3, "b.md")]


def test_the_workspace_keeps_one_pipeline_per_folder_and_settings(tmp_path: Path) -> None:
    one = workspace_for(tmp_path).pipeline(tmp_path, MarkdownSettings())
    assert workspace_for(tmp_path / ".").pipeline(tmp_path / ".", MarkdownSettings()) is one
    assert workspace_for(tmp_path).pipeline(tmp_path, MarkdownSettings(heading_anchors=2)) is not one


def test_project_caches_in_the_user_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache is kept outside the work tree, per user, keyed by the project's real path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project_dir = tmp_path / "p"
    write(project_dir / "mdmark.config.yaml", "index: index.yaml\n")
    doc = write(project_dir / "docs" / "a.md", "# A\n")
    project = Project.open(project_dir / "docs")
    assert project.root == project_dir.resolve()
    [facts] = project.facts_for([doc])
    assert facts.path == "docs/a.md"
    assert project.cache_dir is not None and project.cache_dir.parent == tmp_path / "cache" / "mdmark"
    assert (project.cache_dir / ".gitignore").is_file()
    assert not (project_dir / CACHE_DIR_NAME).exists()


def test_scratch_folders_are_removed_when_the_process_ends(tmp_path: Path) -> None:
    """Sphinx writes doctree pickles into a scratch folder; a CLI run must not leave them in /tmp,
    nor must the parallel workers (which end without running finalizers)."""
    for i in range(30):
        write(tmp_path / f"d{i}.md", f"# {i}\n")
    script = (
        "import sys, os\n"
        "from pathlib import Path\n"
        "from mdmark.pipeline import pipeline as m\n"
        "from mdmark.config.main import MarkdownSettings\n"
        "os.cpu_count = lambda: 2\n"
        "p = m.Pipeline(Path(sys.argv[1]), MarkdownSettings())\n"
        "p.facts_many(sorted(Path(sys.argv[1]).glob('*.md')))\n"
        "(Path(sys.argv[1]) / 'late.md').write_text('# late')\n"
        "p.facts(Path(sys.argv[1]) / 'late.md')\n"
        "print(p._app.workdir if p._app else 'no app here')\n"
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # Every parse ran in a worker process, whose scratch folder lived under TMPDIR too.
    assert result.stdout.strip() == "no app here"
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize(
    ("rel", "pattern", "matches"),
    [
        ("docs/a.md", "docs/**/*.md", True),
        ("docs/x/y/a.md", "docs/**/*.md", True),
        ("a.md", "**/*.md", True),
        ("docs/a.md", "docs/*", True),
        ("docs/x/a.md", "docs/*", False),
        ("docs/a.md", "./docs/*.md", True),
        (".github/a.md", "./.github/*.md", True),
        ("github/a.md", "./.github/*.md", False),
        ("docs/drafts/a.md", "docs/drafts/**", True),
        ("docs/a1.md", "docs/a[0-9].md", True),
        ("docs/ab.md", "docs/a?.md", True),
        ("設計/概要.md", "設計/*.md", True),
    ],
)
def test_glob_match(rel: str, pattern: str, matches: bool) -> None:
    from mdmark.util.globs import glob_match

    assert glob_match(rel, pattern) is matches


def test_match_files_skips_caches_and_vcs(tmp_path: Path) -> None:
    from mdmark.util.globs import match_files

    for rel in ("docs/a.md", "docs/drafts/b.md", ".git/c.md", f"{CACHE_DIR_NAME}/d.md", "node_modules/e.md", "docs/f.txt"):
        write(tmp_path / rel, "# x\n")
    found = match_files(tmp_path, ("**/*.md",), ("docs/drafts/**",))
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["docs/a.md"]
    assert match_files(tmp_path, (), ()) == []


def test_a_document_that_breaks_the_parser_does_not_stop_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mdmark.pipeline import extract as extract_module
    from mdmark.pipeline import limits, pool as pool_module, zygote

    docs = [write(tmp_path / f"d{i}.md", f"# 題 {i}\n") for i in range(3)]
    real = extract_module.extract

    def failing(doctree, docname, *args, **kwargs):  # type: ignore[no-untyped-def]
        if docname == "d1":
            raise RuntimeError("extension bug")
        return real(doctree, docname, *args, **kwargs)

    monkeypatch.setattr(extract_module, "extract", failing)
    # Documents are parsed in worker processes: new ones, forked from this patched process.
    pool_module._POOL.close()
    pipe = Pipeline(tmp_path, MarkdownSettings())
    facts = pipe.facts_many(docs)
    assert [f.title for f in facts] == ["題 0", None, "題 2"]
    assert facts[1].error == "`d1.md` を読む途中で MyST・Sphinx が止まった（ライブラリの言葉で「RuntimeError: extension bug」）ので、この文書の記法を確かめてください。"
    with pytest.raises(MdmarkError):
        pipe.doctree(docs[1])
    monkeypatch.setattr(extract_module, "extract", real)
    pool_module._POOL.close()
    # the failure was not cached: once the cause is gone, the document reads
    assert pipe.facts(docs[1]).title == "題 1"


def test_worker_spec_is_the_same_after_pickling(tmp_path: Path) -> None:
    """A worker keeps its pipelines by the spec it is sent: a spec that is never equal to itself
    after pickling (a functools.partial) made every document build a new Sphinx application."""
    import pickle

    spec = Pipeline(tmp_path, MarkdownSettings()).worker_spec()
    assert pickle.loads(pickle.dumps(spec)) == pickle.loads(pickle.dumps(spec))


def test_worker_spec_changes_with_an_untrusted_conf_py(tmp_path: Path) -> None:
    """Workers and their zygote outlive an edit of conf.py; read statically (not trusted), its
    content must still be in the spec, or the edit never reaches the workers (stale drifts)."""
    conf = tmp_path / "conf.py"
    conf.write_text('extensions = ["myst_parser"]\n', encoding="utf-8")
    before = Pipeline(tmp_path, MarkdownSettings(), conf=conf).worker_spec()
    conf.write_text('extensions = ["myst_parser"]\nsuppress_warnings = ["ref.ref"]\n', encoding="utf-8")
    assert Pipeline(tmp_path, MarkdownSettings(), conf=conf).worker_spec() != before


ONCE_CONFIG = """\
docs:
  include: ["docs/**/*.md"]
sphinx:
  conf: docs/conf.py
"""


def test_conf_py_runs_once_for_every_worker_of_a_cold_check(tmp_path: Path) -> None:
    """conf.py and the extensions' setup() run in one zygote, which forks the workers: a cold check
    of enough documents for two workers runs conf.py once, and a warm check not at all."""
    from conftest import run_mdmark, trust_project

    root = tmp_path / "p"
    runs = root / "conf-runs.txt"
    write(root / "docs" / "conf.py", f'extensions = ["myst_parser"]\nopen({str(runs)!r}, "a").write("ran\\n")\n')
    write(root / "docs" / "index.md", "# 目次\n")
    for i in range(40):
        write(root / "docs" / f"d{i:02}.md", f"# 文書 {i}\n\n本文 {i}。\n")
    write(root / "mdmark.config.yaml", ONCE_CONFIG)
    trust_project(root / "mdmark.config.yaml")
    runs.unlink()  # trusting ran conf.py once, to record what it imports
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    # A process of its own, as a user's check is (a test of the process and its pool): this test's
    # process also holds the Sphinx applications and pools of the tests above, and a check run in it
    # after them was seen to run conf.py a second time.
    first = run_mdmark("check", cwd=root, env=cache, process=True)
    assert first.returncode in (0, 1), first.stderr
    assert runs.read_text(encoding="utf-8") == "ran\n"
    again = run_mdmark("check", cwd=root, env=cache, process=True)
    assert again.stdout == first.stdout
    assert runs.read_text(encoding="utf-8") == "ran\n"


class _Owner:
    """A worker object for the pool tests: made by a module-level factory, as a pipeline is."""

    def worker_spec(self) -> tuple[object, tuple[object, ...]]:
        return _make_owner, ()


def _make_owner(*, scratch: Path) -> _Owner:
    return _Owner()


def _pid_task(_owner: _Owner, job: float) -> int:
    import time

    time.sleep(job)
    return os.getpid()


def test_workers_are_replaced_after_their_share_of_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    from mdmark.pipeline import limits, pool as pool_module, zygote

    monkeypatch.setattr(zygote, "RECYCLE_TASKS", 3)
    pool = pool_module.Pool()
    try:
        # Distinct jobs: the pool runs identical ones once.
        pids = pool.run(_Owner(), _pid_task, [i / 1000 for i in range(10)], width=2)
    finally:
        pool.close()
    assert all(isinstance(pid, int) for pid in pids)
    assert max(pids.count(pid) for pid in set(pids)) <= 3
    assert len(set(pids)) >= 4


def test_a_forked_worker_past_its_wall_clock_is_killed_and_the_next_job_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The job behind one that passes the bound (handed to the same worker in advance) is not lost."""
    from mdmark.pipeline import limits, pool as pool_module, zygote

    monkeypatch.setenv(limits.WALL_ENV, "2")
    pool = pool_module.Pool()
    try:
        results = pool.run(_Owner(), _pid_task, [60.0, 0.0, 0.001], width=1)
    finally:
        pool.close()
    assert results[0] == limits.Failed("stall", "2")
    assert isinstance(results[1], int) and isinstance(results[2], int)


def _burn_task(_owner: _Owner, seconds: float) -> float:
    """Use ``seconds`` of this process's CPU time (a document that takes work, not one that blocks)."""
    import time

    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds


def test_a_worker_that_works_past_the_wall_bound_is_not_stopped_and_one_past_its_cpu_bound_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wall bound catches a worker that uses no CPU (blocked), not one a busy machine slows down:
    a task using 2.5 s of CPU finishes under a 1 s wall bound; the CPU bound is the kernel's, the
    worker's own time, and a task past it is told by that bound with its figure."""
    from mdmark.pipeline import limits, pool as pool_module, zygote

    monkeypatch.setenv(limits.WALL_ENV, "1")
    monkeypatch.setenv(limits.CPU_ENV, "1")
    pool = pool_module.Pool()
    try:
        # The CPU bound of one task is at least its figure (whole seconds, counted from the task's start).
        results = pool.run(_Owner(), _burn_task, [0.6, 30.0, 0.5], width=1)
        said = limits.limit_message("a.md", limits.Failed("cpu"))
        monkeypatch.setenv(limits.CPU_ENV, "10")
        slow = pool.run(_Owner(), _burn_task, [2.5], width=1)
    finally:
        pool.close()
    assert results == [0.6, limits.Failed("cpu"), 0.5]
    assert slow == [2.5]
    assert "CPU を上限の 1 秒" in said and said.count("。") == 1


def test_documents_with_and_without_front_matter_settings_each_read_with_their_own(tmp_path: Path) -> None:
    """One MyST parser per configuration and worker (host.patches): a document's front matter
    settings never leak into the next document, and a parse started inside a parse (an rST
    include with the MyST parser) leaves the outer document whole."""
    plain = write(tmp_path / "plain.md", "# Plain\n\nvalue {{ x }} here\n")
    first = write(tmp_path / "first.md", "---\nmyst:\n  substitutions:\n    x: FIRSTVALUE\n---\n# First\n\nvalue {{ x }} here\n")
    second = write(tmp_path / "second.md", "---\nmyst:\n  substitutions:\n    x: SECONDVALUE\n---\n# Second\n\nvalue {{ x }} here\n")
    write(tmp_path / "inner.md", "# Inner\n\ninner words\n")
    outer = write(
        tmp_path / "outer.md",
        "# Outer\n\n```{eval-rst}\n.. include:: inner.md\n   :parser: myst_parser.sphinx_\n```\n\n## After\n\ntail words\n",
    )
    pipe = Pipeline(tmp_path, MarkdownSettings(extensions=("substitution",)))
    facts = pipe.facts_many([plain, first, plain, second, first, plain, outer])

    def text(i: int) -> str:
        return " ".join(run.text for run in facts[i].text)

    assert "FIRSTVALUE" in text(1) and "SECONDVALUE" in text(3) and "FIRSTVALUE" in text(4)
    assert "VALUE" not in text(0) and "VALUE" not in text(2) and "VALUE" not in text(5)
    assert [w.type for w in facts[0].warnings] == ["myst.substitution"]
    assert [h.title for h in facts[6].headings] == ["Outer", "Inner", "After"]
    assert "tail words" in text(6) and "inner words" in text(6)


def test_the_directives_are_asked_of_a_worker_never_made_here(tmp_path: Path) -> None:
    """The language server's directive completion: a trusted conf.py's ``setup()`` runs in a worker
    (confined, bounded), never in the process that answers."""
    from conftest import trust_project

    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text("docs:\n  include: ['docs/*.md']\nsphinx:\n  conf: docs/conf.py\n", encoding="utf-8")
    (root / "docs" / "index.md").write_text("# Index\n", encoding="utf-8")
    (root / "docs" / "conf.py").write_text(
        "import os\n"
        "from docutils.parsers.rst import Directive, directives\n"
        "extensions = ['myst_parser']\n"
        "class Marked(Directive):\n"
        "    option_spec = {'colour': directives.unchanged}\n"
        "    def run(self):\n"
        "        return []\n"
        "def setup(app):\n"
        "    with open(os.path.join(os.path.dirname(__file__), 'setup-pids.txt'), 'a') as out:\n"
        "        out.write(f'{os.getpid()}\\n')\n"
        "    app.add_directive('marked', Marked)\n",
        encoding="utf-8",
    )
    assert trust_project(root / "mdmark.config.yaml").returncode == 0
    (root / "docs" / "setup-pids.txt").unlink(missing_ok=True)
    project = Project.open(root, None)
    found = project.pipeline.directives()
    assert found["marked"] == ("colour",)
    pids = (root / "docs" / "setup-pids.txt").read_text(encoding="utf-8").split()
    assert pids and str(os.getpid()) not in pids
