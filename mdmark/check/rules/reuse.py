"""What one check keeps for the next in the same process: each document's drifts, with what they
depended on, so that after one document is edited only what that edit can change is worked out again.

A check of a thousand documents resolves every reference of every document against the whole
project. After one edit almost all of those answers still hold; this module says which do:

* a document's reference drifts (:func:`mdmark.references.problems.document_problems`) hold while its own
  facts are the same, the model's project-wide tables are the same (:func:`~mdmark.references.tracking.
  global_part` of every document, the set of documents, the configuration), the documents it looked
  at (:class:`~mdmark.references.tracking.Consulted`) show the same :func:`~mdmark.references.tracking.local_part`,
  and the paths it asked about on disk lie in a :class:`~mdmark.workspace.main.FileTree` whose entries
  are unchanged;
* a document's missing images hold while its facts and that file tree are the same;
* the index's missing documents hold while the index model and the file tree are the same;
* which documents are checked and which the reference model holds (globs, conf.py's patterns,
  resolved paths) hold while the config, conf.py's settings, the index model and the file tree are.

Each run reads the last run's :class:`LastCheck` once, works out what changed, and publishes its
own when its rules have run: a run never mixes answers of two other runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from mdmark.core.diagnostics import Diagnostic
from mdmark.core.facts import DocFacts
from mdmark.references.tracking import Consulted, global_part, local_part

if TYPE_CHECKING:
    from mdmark.index.model import Index
    from mdmark.project.main import ModelLayout, Project
    from mdmark.references.main import Model
    from mdmark.workspace.main import FileTree


class IndexRuleContext(Protocol):
    """What reusing an index rule's drifts looks at (a check context has it)."""

    @property
    def index(self) -> Index | None: ...

    @property
    def root(self) -> Path: ...


C = TypeVar("C", bound=IndexRuleContext)

#: The check's context (:class:`~mdmark.check.rules.context.CheckContext`, which imports this module).
X = TypeVar("X")

#: A rule over one document: its drifts, from the check's context, the document as shown and its facts.
DocumentRule = Callable[[X, str, DocFacts], Iterator[Diagnostic]]


def same_facts(a: DocFacts | None, b: DocFacts | None) -> bool:
    """Whether two facts are of the same content: the same object, or the same parse key (the
    document's bytes, path, settings and conf.py) and the same included files."""
    if a is b:
        return True
    if a is None or b is None or a.error is not None or b.error is not None:
        return False
    return a.sha == b.sha and a.deps == b.deps


@dataclass(frozen=True)
class Layout:
    """Which documents a check reads, decided from paths alone (see the module's docstring)."""

    #: Compared to decide reuse: the file tree's version, the config's document settings, conf.py's.
    key: tuple[Hashable, ...]
    index: Index | None
    info: Any
    paths: tuple[Path, ...]
    #: Each of ``paths`` as diagnostics name it.
    shown: tuple[str, ...]
    unindexed: frozenset[Path]
    doc_files: Mapping[int, Path]
    #: None when conf.py's settings could not be read (the check then fails as it would anyway).
    model: ModelLayout | None

    def holds(self, key: tuple[Hashable, ...], index: Index | None, info: Any) -> bool:
        return self.key == key and self.index is index and self.info == info

    def __getstate__(self) -> dict[str, Any]:
        # Pickled in a workspace snapshot: ``doc_files`` is keyed by ``id()`` of the index's entries,
        # which the copies another process reads have not; kept in index order instead.
        state = dict(self.__dict__)
        docs = self.index.docs if self.index is not None else []
        state["doc_files"] = [self.doc_files.get(id(doc)) for doc in docs]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        index = state["index"]
        files = state["doc_files"]
        docs = index.docs if index is not None else []
        if len(files) != len(docs):
            raise ValueError("a layout that does not match its index")
        state["doc_files"] = MappingProxyType({id(doc): file for doc, file in zip(docs, files, strict=True) if file is not None})
        self.__dict__.update(state)


@dataclass(frozen=True)
class Entry:
    """One document's drifts of one rule and what they depended on."""

    facts: DocFacts
    result: tuple[Diagnostic, ...]
    consulted: Consulted | None = None
    #: Paths on disk were asked about: True when the file tree covers them all (the answer holds
    #: while it is unchanged), False when it does not (never reused).
    disk: bool | None = None


@dataclass(frozen=True)
class LastCheck:
    """A check's parts, published for the next run (never changed once published)."""

    layout: Layout | None
    tree: int | None
    by_name: Mapping[str, DocFacts | None]
    model_inputs: tuple[object, ...]
    problems: Mapping[str, Entry]
    images: Mapping[str, Entry]
    missing_docs: tuple[Index, int, tuple[Diagnostic, ...]] | None
    #: The drifts of the rules that read the index model only, with the model and the root.
    index_rules: tuple[Index | None, Path, Mapping[Callable[..., Any], tuple[Diagnostic, ...]]]
    model: Model


def last_check(project: Project) -> LastCheck | None:
    found = project.workspace.last_runs.get(_key(project))
    return found if isinstance(found, LastCheck) else None


def _key(project: Project) -> tuple[str, str, str]:
    return ("check", str(project.root), str(project.config.path))


@dataclass
class Reuse:
    """One check's view of the last one: what changed since, and what this run keeps."""

    project: Project
    model: Model
    index: Index | None
    tree: FileTree
    version: int | None
    layout: Layout | None
    last: LastCheck | None
    by_name: Mapping[str, DocFacts | None]
    model_inputs: tuple[object, ...]
    #: Every document's stat was old enough to stand for its content (else the answer is not stored).
    settled: bool
    problems: dict[str, Entry] = field(default_factory=dict)
    images: dict[str, Entry] = field(default_factory=dict)
    missing_docs: tuple[Index, int, tuple[Diagnostic, ...]] | None = None
    index_rules: dict[Callable[..., Any], tuple[Diagnostic, ...]] = field(default_factory=dict)
    #: Filled by :meth:`__post_init__`: whether the project-wide tables are the last run's, and the
    #: documents whose :func:`local_part` changed.
    inputs_same: bool = False
    tables_same: bool = False
    local_changed: frozenset[str] = frozenset()
    #: Every input of a document's drifts but its own facts is the last run's: an entry of the
    #: very facts holds (the common case after one edit, tested first, one document at a time).
    _steady: bool = False
    _last_problems: Mapping[str, Entry] = field(default_factory=dict)
    _last_images: Mapping[str, Entry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        last = self.last
        if last is not None:
            self._last_problems, self._last_images = last.problems, last.images
        if last is None or last.model_inputs != self.model_inputs:
            return
        self.inputs_same = True
        before = last.by_name
        changed = [n for n, facts in self.by_name.items() if not same_facts(facts, before.get(n))]
        changed += [n for n in before if n not in self.by_name]
        self.tables_same = all(global_part(before.get(n)) == global_part(self.by_name.get(n)) for n in changed)
        self.local_changed = frozenset(n for n in changed if local_part(before.get(n)) != local_part(self.by_name.get(n)))
        if self.tables_same:
            self.model.adopt_tables(last.model)
        self._steady = self.tables_same and not self.local_changed and self.tree_same

    @property
    def tree_same(self) -> bool:
        return self.version is not None and self.last is not None and self.last.tree == self.version

    def _disk(self, paths: set[str] | list[str]) -> bool | None:
        if not paths:
            return None
        srcdir = str(self.project.source_dir)
        return all(self.tree.covers(os.path.normpath(os.path.join(srcdir, p))) for p in paths)

    def _holds(self, entry: Entry, facts: DocFacts) -> bool:
        if self._steady and entry.facts is facts and entry.disk is not False:
            return True  # what the tests below conclude, without comparing the facts
        if not self.inputs_same or not same_facts(entry.facts, facts):
            return False
        if entry.disk is False or (entry.disk and not self.tree_same):
            return False
        consulted = entry.consulted
        if consulted is not None:
            if not self.tables_same:
                return False
            if self.local_changed and (consulted.every or not consulted.docs.isdisjoint(self.local_changed)):
                return False
        return True

    def document_problems(self, file: str, facts: DocFacts, rule: DocumentRule[X], ctx: X) -> tuple[Diagnostic, ...]:
        """The reference drifts of one document: the last run's while they hold, else ``rule``'s."""
        last = self._last_problems.get(file)
        if last is not None and self._holds(last, facts):
            self.problems[file] = last
            return last.result
        with self.model.track() as consulted:
            result = tuple(rule(ctx, file, facts))
        self.problems[file] = Entry(facts, result, consulted, self._disk(consulted.paths))
        return result

    def missing_images(self, file: str, facts: DocFacts, rule: DocumentRule[X], ctx: X) -> tuple[Diagnostic, ...]:
        """The missing images of one document."""
        last = self._last_images.get(file)
        if last is not None and self._holds(last, facts):
            self.images[file] = last
            return last.result
        result = tuple(rule(ctx, file, facts))
        paths = [image.path for image in facts.images if not image.remote and image.path is not None]
        self.images[file] = Entry(facts, result, None, self._disk(paths))
        return result

    def index_missing_docs(self, index: Index, make: Callable[[], list[Diagnostic]]) -> tuple[Diagnostic, ...]:
        """The index's missing documents: the last run's while the index model and the file tree are.
        Only with a reused layout (every document's file lies in the tree)."""
        last = self.last.missing_docs if self.last is not None else None
        if last is not None and last[0] is index and self.tree_same and last[1] == self.version:
            self.missing_docs = last
            return last[2]
        result = tuple(make())
        if self.layout is not None and self.version is not None:
            self.missing_docs = (index, self.version, result)
        return result

    def index_rule(self, rule: Callable[[C], Iterator[Diagnostic]], ctx: C) -> tuple[Diagnostic, ...]:
        """The drifts of a rule that reads the index model only: the last run's while the index
        model (the same object: its file kept its stat) and the config folder are the same."""
        last = self.last.index_rules if self.last is not None else None
        if last is not None and last[0] is ctx.index and last[1] == ctx.root and rule in last[2]:
            result = last[2][rule]
        else:
            result = tuple(rule(ctx))
        self.index_rules[rule] = result
        return result

    def publish(self) -> None:
        """Keep this run's parts for the next run."""
        self.project.workspace.last_runs.put(
            _key(self.project),
            LastCheck(
                self.layout,
                self.version,
                self.by_name,
                self.model_inputs,
                self.problems,
                self.images,
                self.missing_docs,
                (self.index, self.project.root, self.index_rules),
                self.model,
            ),
        )
