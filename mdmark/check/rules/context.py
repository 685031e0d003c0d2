"""The one input of every check rule: everything a run needs, read once before any rule runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from mdmark.config.main import Config
from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.util.files import Stamp, display, resolved_many, shown_under
from mdmark.index.model import Doc, Index, index_from_text, load_index
from mdmark.project.main import Project
from mdmark.util.globs import match_files

if TYPE_CHECKING:
    from mdmark.check.rules.reuse import Layout, Reuse
    from mdmark.references.main import Model

FactsFn = Callable[[list[Path]], list[DocFacts]]


@dataclass(frozen=True)
class Document:
    """A document to check: the index's (in index order), then the docs set's others (by path)."""

    path: Path
    #: ``path`` as diagnostics name it: relative to the config folder.
    file: str
    facts: DocFacts
    #: Matched by the config's ``docs`` but not in the index (only when the config has an index).
    unindexed: bool


@dataclass(frozen=True)
class CheckContext:
    project: Project
    #: The git ref ``--base`` names, and the files changed since it (None without ``--base``).
    base: str | None
    changed: frozenset[Path] | None
    #: None when the config names no index or its file is missing (a config_value drift).
    index: Index | None
    documents: tuple[Document, ...]
    #: Facts of every document read (the checked ones and those the reference model needed).
    facts: Mapping[Path, DocFacts]
    model: Model
    #: The resolved file of each document of the index, by ``id()`` of its entry: resolved once.
    doc_files: Mapping[int, Path]
    #: What the last check in this process left that still holds (a plain check of the files on
    #: disk only): see :mod:`mdmark.check.rules.reuse`. Its model is this context's, or it is unused.
    reuse: Reuse | None = None
    #: The settled stat stamps of the documents' files (by path as a string), taken before they
    #: were read: what a stored answer keeps for them without a ``stat`` of its own.
    stamps: Mapping[str, Stamp] = dataclasses.field(default_factory=dict)

    def reusing(self) -> Reuse | None:
        """:attr:`reuse` when it belongs to this context (not to one a single document was swapped into)."""
        reuse = self.reuse
        return reuse if reuse is not None and reuse.model is self.model else None

    def doc_file(self, doc: Doc) -> Path:
        """:meth:`Index.doc_file` of an entry of this run's index, without resolving it again."""
        return self.doc_files[id(doc)]

    @property
    def config(self) -> Config:
        return self.project.config

    @property
    def root(self) -> Path:
        return self.project.root

    @property
    def index_file(self) -> str:
        """The index as diagnostics name it (relative to the config folder)."""
        assert self.index is not None
        return display(self.index.path, self.root)

    def in_index(self, where: str, kind: DriftKind, message: str) -> Diagnostic:
        """A drift of the index at key path ``where``, on that key's line."""
        index = self.index
        assert index is not None
        line = index.yaml.line_of(where) if index.yaml is not None else None
        return Diagnostic(self.index_file, where, kind, message, line)


def build_context(
    project: Project,
    base: str | None,
    facts_fn: FactsFn | None,
    progress: Callable[[int, int], None] | None = None,
    texts: Mapping[Path, str] | None = None,
) -> CheckContext:
    """Read what the rules look at, in the order whose failures stop the check (exit code 2):
    the git ref first (a bad ref means no check at all), then the index, then the documents.

    ``texts``: the content of some files (by resolved path) instead of what is on disk — the
    index or documents an editor has not saved (the language server checks its buffers)."""
    changed: frozenset[Path] | None = None
    if base is not None:
        from mdmark.util.gitbase import changed_files

        changed = frozenset(changed_files(project.root, base))
    index_path = project.config.index_path
    # An index that cannot be read as YAML raises here: exit 2, like the config.
    index_text = texts.get(index_path.resolve()) if texts is not None and index_path is not None else None
    index: Index | None
    if index_path is not None and index_text is not None:
        index = index_from_text(index_path, project.root, index_text, project.workspace)
    else:
        index = load_index(index_path, project.root, project.workspace) if index_path is not None and index_path.is_file() else None
    if facts_fn is None and not texts:
        return _reusing_context(project, base, changed, index, progress)
    doc_files = dict(zip(map(id, index.docs), index.doc_files(), strict=True)) if index is not None else {}
    paths, unindexed = _document_paths(project, index, doc_files)
    if facts_fn is None and texts:
        pipeline = project.pipeline
        facts_fn = lambda todo: pipeline.facts_many(todo, texts=texts)  # noqa: E731
        first = pipeline.facts_many(paths, progress, texts=texts)
    else:
        # Documents outside the source folder too: they come back with an error to report.
        first = facts_fn(paths) if facts_fn is not None else project.pipeline.facts_many(paths, progress)
    fetch: FactsFn = facts_fn if facts_fn is not None else project.facts_for
    known: dict[Path, DocFacts] = dict(zip(paths, first, strict=True))
    model = project.reference_model(fetch, known, paths)
    documents = tuple(Document(p, shown_under(p, project.root), known[p], p in unindexed) for p in paths)
    return CheckContext(
        project, base, changed, index, documents, MappingProxyType(known), model, MappingProxyType(doc_files)
    )


def _reusing_context(
    project: Project,
    base: str | None,
    changed: frozenset[Path] | None,
    index: Index | None,
    progress: Callable[[int, int], None] | None,
) -> CheckContext:
    """:func:`build_context` of the files on disk, with what the last check in this process left
    that still holds: which documents there are, their facts by stat, each document's drifts."""
    from mdmark.check.rules.reuse import Reuse, last_check

    last = last_check(project)
    tree = project.workspace.tree(project.root)
    version = tree.version()
    layout = _layout(project, index, version, last.layout if last is not None else None)
    stamped = project.workspace.stamped_facts(project.pipeline)
    paths = list(layout.paths)
    # Documents outside the source folder too: they come back with an error to report.
    first, stamps = stamped.facts_settled(paths, progress)
    settled = all(stamp is not None for stamp in stamps)
    known: dict[Path, DocFacts] = dict(zip(paths, first, strict=True))
    # conf.py that cannot be read fails here, after the documents were read, as without reuse.
    model_layout = layout.model if layout.model is not None else project.model_layout(paths)
    model = project.model_from(model_layout, stamped.facts_many, known)
    documents = _documents(project, layout, first)
    by_name = model.known if model.known is not None else {}
    covered = layout.key[0] is not None
    reuse = Reuse(
        project, model, index, tree, version, layout if covered else None, last, by_name, model.inputs(), settled
    )
    taken = {str(p): stamp for p, stamp in zip(paths, stamps, strict=True) if stamp is not None}
    return CheckContext(
        project, base, changed, index, documents, MappingProxyType(known), model, layout.doc_files, reuse, taken
    )


def _documents(project: Project, layout: Layout, first: list[DocFacts]) -> tuple[Document, ...]:
    """The documents of ``layout`` with their facts ``first``: the last check's entries where a
    document's facts are the very ones it had (after one edit, all but one)."""
    key = ("check-documents", str(project.root), str(project.config.path))
    last = project.workspace.last_runs.get(key)
    if isinstance(last, tuple) and last[0] is layout:
        documents = tuple(
            kept if kept.facts is facts else dataclasses.replace(kept, facts=facts)
            for kept, facts in zip(last[1], first, strict=True)
        )
    else:
        documents = tuple(
            Document(p, shown, facts, p in layout.unindexed)
            for p, shown, facts in zip(layout.paths, layout.shown, first, strict=True)
        )
    project.workspace.last_runs.put(key, (layout, documents))
    return documents


def _layout(project: Project, index: Index | None, version: int | None, last: Layout | None) -> Layout:
    """Which documents the check reads and the model holds: the last run's while the file tree,
    the config, conf.py's settings and the index model are the same (see :class:`Layout`)."""
    from mdmark.check.rules.reuse import Layout

    config = project.config
    key: tuple[Hashable, ...] = (version, str(project.root), config.docs, config.sphinx_conf, config.index_path, project.source_dir)
    try:
        info = project.conf_info()
    except MdmarkError:
        info = None  # reading the documents, then the model, say why
    if last is not None and version is not None and info is not None and last.holds(key, index, info):
        return last
    doc_files = dict(zip(map(id, index.docs), index.doc_files(), strict=True)) if index is not None else {}
    paths, unindexed = _document_paths(project, index, doc_files)
    model = project.model_layout(paths) if info is not None else None
    if model is not None:
        # The model's files as the very objects of ``paths``: looking one up then compares no paths.
        same = {p: p for p in paths}
        model = dataclasses.replace(model, files={name: same.get(f, f) for name, f in model.files.items()})
    tree = project.workspace.tree(project.root)
    every = [*paths, *doc_files.values(), *(model.files.values() if model is not None else ()), project.source_dir]
    if version is None or model is None or not all(tree.covers(str(p)) for p in every):
        key = (None, *key[1:])  # some path lies outside the tree: never reused
    shown = tuple(shown_under(p, project.root) for p in paths)
    return Layout(key, index, info, tuple(paths), shown, frozenset(unindexed), MappingProxyType(doc_files), model)


def _document_paths(project: Project, index: Index | None, doc_files: Mapping[int, Path]) -> tuple[list[Path], set[Path]]:
    paths: list[Path] = []
    indexed: set[Path] = set()
    index_files: set[Path] = set()
    if index is not None:
        for doc in index.docs:
            path = doc_files[id(doc)]
            if path.is_file() and path not in indexed:
                paths.append(path)
            indexed.add(path)
    index_files = set(indexed)
    unindexed: set[Path] = set()
    docset = project.config.docs
    conf = project.config.sphinx_conf
    # Nothing to read and nothing wrong with the config itself: say so rather than "no drift".
    if index is None and docset is None and conf is None and not project.config.diagnostics:
        raise MdmarkError(
            "設定に docs・index・sphinx.conf のどれも無く調べる文書が決まらないので、"
            "docs.include か sphinx.conf を設定に書いてください。",
            exit_code=2,
        )
    if conf is not None:
        # What sphinx-build reads (its source folder, source_suffix, exclude_patterns): the
        # Markdown documents among them are checked, besides docs.include.
        from mdmark.host.confinfo import found_documents

        srcdir = project.source_dir
        taken = set(indexed)
        try:
            info = project.conf_info()
        except MdmarkError:
            # conf.py fails: reading the documents says so, in its own sentence.
            info = None
        for docname in found_documents(srcdir, info) if info is not None else []:
            path = (srcdir / f"{docname}.md").resolve()
            if path not in taken and path.is_file():
                paths.append(path)
                taken.add(path)
        indexed = taken
    if docset is not None:
        found = match_files(project.root, docset.include, docset.exclude)
        for resolved in resolved_many(found):
            if not resolved.name.endswith(".md"):
                continue
            if resolved in indexed:
                if index is not None and resolved not in index_files:
                    unindexed.add(resolved)
                continue
            paths.append(resolved)
            indexed.add(resolved)
            if index is not None:
                unindexed.add(resolved)
    return paths, unindexed
