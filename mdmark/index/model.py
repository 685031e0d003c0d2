"""``index.yaml``: the one schema and the model of docs, terms and tags (the guide page ``write-index``).

:func:`index_problems` is the validator that ``check``, ``update_index`` and the Sphinx extension
share; its problems read ``{場所}: {内容}`` with places such as ``docs[3].related[0].type``.
:func:`load_index` builds the model leniently: an item that breaks the schema is reported and left
out, the rest is usable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Protocol

from mdmark.declare.fields import Builder, declared, key, record_of, text_or_record
from mdmark.declare.schema import Bool, Choice, ListOf, Problem, Record, Str, validate
from mdmark.config.yamlio import YamlDoc, load_yaml, parse_yaml
from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.core.errors import MdmarkError
from mdmark.util.files import display, resolved, resolved_many
from mdmark.util.text import normalize


class IndexStore(Protocol):
    """Where a project keeps its index models between calls (the workspace, a layer above, is one):
    the model kept while its file's stat is unchanged, parsed YAML by its content."""

    def index(self, path: Path, shown: str, load: Callable[[], Index]) -> Index: ...

    def parsed_yaml(self, text: str, parse: Callable[[], YamlDoc]) -> YamlDoc: ...


RELATION_TYPES: tuple[str, ...] = ("requires", "references", "replaces", "part_of", "change_together")

#: How a relation reads from its target's side (find_docs ``relations`` of direction incoming).
REVERSE_TYPES: dict[str, str] = {
    "requires": "required_by",
    "references": "referenced_by",
    "replaces": "replaced_by",
    "part_of": "has_part",
    "change_together": "change_together",
}

_names = ListOf(Str(non_empty=True))


# The index is declared once, by the dataclasses below: each key is a field whose metadata
# (mdmark.declare.fields.key) holds its spec, whether it is required and its help; the schema
# (INDEX_SCHEMA and the records of its items), the model built from a file and the key tables of
# the guide page ``index`` all come from them. Other fields (``where``, ``*_at``) record where
# a value was found. An entry of a list that breaks the schema is left out; the rest is kept.


@dataclass(frozen=True)
class TagRef:
    """A tag of a document: its name, or ``{name, main}``."""

    #: What a tag written as a string is, in sentences.
    TEXT_FORM: ClassVar[str] = "タグの名前"

    name: str = field(metadata=key(Str(non_empty=True), "タグの名前（語彙の別名でもよい）", required=True))
    main: bool = field(default=False, metadata=key(Bool(), "この文書の主題のタグなら true。`find_docs` でこのタグを渡すと上に並ぶ"))
    where: str = ""

    @classmethod
    def from_text(cls, text: str, where: str) -> TagRef:
        return cls(text, False, where)


@dataclass(frozen=True)
class Relation:
    """A ``related`` entry. A string entry has ``type`` and ``when`` None and ``written_as_string``."""

    TEXT_FORM: ClassVar[str] = "文書の ID"

    to: str = field(metadata=key(Str(non_empty=True), "関連する文書の ID", required=True))
    type: str | None = field(
        default=None, metadata=key(Choice(choices=RELATION_TYPES, what="関係の種類"), "下の 5 つのどれか", required=True)
    )
    when: str | None = field(
        default=None,
        metadata=key(Str(non_empty=True), "どんなときにこの関連をたどるか（例: 公開 API を変えたとき）", required=True),
    )
    paths: tuple[str, ...] = field(
        default=(), metadata=key(_names, "関連に属する、文書でないファイル（ソースなど）のパターン。索引のファイルからの相対パス")
    )
    where: str = ""
    written_as_string: bool = False

    @classmethod
    def from_text(cls, text: str, where: str) -> Relation:
        return cls(text, None, None, (), where, written_as_string=True)


@dataclass
class Doc:
    id: str = field(
        metadata=key(
            Str(non_empty=True),
            "文書の ID。`docs` の中で一意。`related[].to`・`terms[].docs`・`find_docs` の `related_to` が使う",
            required=True,
        )
    )
    path: str = field(metadata=key(Str(non_empty=True, path=True), "文書のファイルのパス（索引のファイルからの相対パス）", required=True))
    title: str = field(
        metadata=key(Str(non_empty=True), "文書の題。文書の最初の見出しと同じにする（違うと `title_mismatch`）", required=True)
    )
    where: str = ""
    aliases: list[str] = field(
        default_factory=list,
        metadata=key(_names, "文書のほかの呼び名。`find_docs` の `text` で引け、本文に出ると関連になる", partial=True),
    )
    description: str | None = field(default=None, metadata=key(Str(nullable=True), "1 行の概要。`find_docs` の結果に出る"))
    tags: list[TagRef] = field(
        default_factory=list,
        metadata=key(ListOf(text_or_record(TagRef)), "文書のタグ（下の「tags の要素」）", record=TagRef, whole=True, partial=True),
    )
    related: list[Relation] = field(
        default_factory=list,
        metadata=key(
            ListOf(text_or_record(Relation)), "ほかの文書への関連（下の「related の要素」）", record=Relation, whole=True, partial=True
        ),
    )
    #: Each alias with its key path (``docs[2].aliases[1]``), so check points at the list entry.
    aliases_at: list[tuple[str, str]] = field(default_factory=list, metadata={"at": "aliases"})

    @property
    def names(self) -> list[str]:
        """Title then aliases: the names an occurrence in another document's text may use."""
        return [self.title, *self.aliases]


@dataclass
class Term:
    id: str = field(metadata=key(Str(non_empty=True), "用語の ID。`terms` の中で一意", required=True))
    term: str = field(metadata=key(Str(non_empty=True), "用語", required=True))
    where: str = ""
    aliases: list[str] = field(default_factory=list, metadata=key(_names, "用語のほかの書き方", partial=True))
    definition: str | None = field(default=None, metadata=key(Str(nullable=True), "用語の定義（1〜2 文）"))
    docs: list[str] = field(
        default_factory=list,
        metadata=key(_names, "この用語を説明している文書の ID。無い ID は `unknown_doc`", partial=True),
    )
    #: Each document ID of ``docs`` with its key path (``terms[0].docs[1]``).
    docs_at: list[tuple[str, str]] = field(default_factory=list, metadata={"at": "docs"})


@dataclass
class Tag:
    name: str = field(metadata=key(Str(non_empty=True), "タグの名前。`tags` の中で一意", required=True))
    where: str = ""
    group: str | None = field(default=None, metadata=key(Str(nullable=True), "タグのグループ（`種類`・`topic` など）"))
    description: str | None = field(
        default=None,
        metadata=key(Str(nullable=True), "何に付けるか。「含める: …。含めない: …。例: …」の形が読みやすい"),
    )
    aliases: list[str] = field(
        default_factory=list,
        metadata=key(_names, "タグの別名。文書の `tags` と `find_docs` の `tags` で、別名は `name` として扱う", partial=True),
    )
    deprecated: str | None = field(
        default=None, metadata=key(Str(nullable=True, non_empty=True), "やめたタグなら、振り替え先のタグの `name`")
    )
    #: Each alias with its key path (``tags[0].aliases[1]``).
    aliases_at: list[tuple[str, str]] = field(default_factory=list, metadata={"at": "aliases"})


TAG_REF = record_of(TagRef)
RELATION = record_of(Relation)
DOC = record_of(Doc)
TERM = record_of(Term)
TAG = record_of(Tag)


def index_problems(data: Any) -> list[Problem]:
    """Every place where index data breaks the schema, in file order."""
    if data is None:
        return []
    problems = validate(INDEX_SCHEMA, data)
    if not isinstance(data, dict) and problems:
        problems = [Problem("", f"最上位は{problems[0].message}")]
    return problems


def format_problem(problem: Problem) -> str:
    """``{場所}: {内容}``; the top level is called 「索引」."""
    return f"{problem.where or '索引'}: {problem.message}"


@dataclass(frozen=True)
class DocTag:
    """One tag of a document as every query compares and shows it (:meth:`Index.tags_of`)."""

    #: What two tags are compared by: the vocabulary name the tag resolves to, else its normalised name.
    key: str
    #: The name shown: the vocabulary name, else the tag as written.
    name: str
    main: bool
    ref: TagRef


@dataclass(frozen=True)
class SeenRelation:
    """An index relation seen from one document (:meth:`Index.relations_of`).

    ``outgoing``: written by the document, ``type`` as written; ``incoming``: written by ``other``
    naming the document, ``type`` with its reverse name (``requires`` → ``required_by`` …).
    A ``related`` entry written as a string has ``type`` None either way.
    """

    direction: str
    other: Doc
    type: str | None
    when: str | None
    relation: Relation


class _Lookups:
    """What the questions of :class:`Index` look up, built once from the finished model."""

    def __init__(self, index: Index) -> None:
        #: The first document of each id: the one a relation to that id means.
        self.first: dict[str, Doc] = {}
        for doc in index.docs:
            self.first.setdefault(doc.id, doc)
        #: Vocabulary entries by exact name, then by normalised name or alias (first entry wins).
        self.exact: dict[str, Tag] = {}
        self.normal: dict[str, Tag] = {}
        for tag in index.tags:
            self.exact.setdefault(tag.name, tag)
            for name in (tag.name, *tag.aliases):
                self.normal.setdefault(normalize(name), tag)
        #: Target id -> the (first) documents writing a relation to it, with the entry, in index order.
        self.incoming: dict[str, list[tuple[Doc, Relation]]] = {}
        for source in self.first.values():
            for rel in source.related:
                if rel.to != source.id and rel.to in self.first:
                    self.incoming.setdefault(rel.to, []).append((source, rel))
        #: ``id()`` of a document of this model -> its distinct tags as (key, shown name), in
        #: written order: filled by :meth:`Index.tag_counts` as it meets them.
        self.tag_pairs: dict[int, tuple[Doc, tuple[tuple[str, str], ...]]] = {}
        #: Each tag name the documents write -> (vocabulary entry or None, key, shown name): 2,000
        #: documents with a few tags each would otherwise look every tag up again on every query.
        self.resolved: dict[str, tuple[Tag | None, str, str]] = {}
        for doc in index.docs:
            for ref in doc.tags:
                if ref.name not in self.resolved:
                    self.resolved[ref.name] = self.resolve(ref.name)
        #: :meth:`Index.doc_paths`, made on first use.
        self.paths: list[str] | None = None
        #: Each document's tag keys, by ``id()`` of its entry (tag filters ask for every document).
        self.keys: dict[int, frozenset[str]] = {
            id(doc): frozenset(self.resolved[ref.name][1] for ref in doc.tags) for doc in index.docs
        }

    def resolve(self, name: str) -> tuple[Tag | None, str, str]:
        tag = self.exact.get(name) or self.normal.get(normalize(name))
        return (tag, tag.name, tag.name) if tag is not None else (None, normalize(name), name)


@dataclass
class Index:
    """The index model. ``docs``/``terms``/``tags`` hold the items that fit the schema, in file order.

    The model is complete when :func:`build_index` returns it and never changed afterwards (the
    server shares it between calls), so the look-ups behind its questions are built on first use.
    """

    path: Path
    shown: str
    docs: list[Doc] = field(
        default_factory=list, metadata=key(ListOf(DOC), "文書", record=Doc, partial=True) | {"item": "doc"}
    )
    terms: list[Term] = field(
        default_factory=list, metadata=key(ListOf(TERM), "用語集", record=Term, partial=True) | {"item": "term"}
    )
    tags: list[Tag] = field(
        default_factory=list, metadata=key(ListOf(TAG), "タグの語彙", record=Tag, partial=True) | {"item": "tag"}
    )
    has_tags: bool = False
    problems: list[Problem] = field(default_factory=list)
    yaml: YamlDoc | None = None
    _lookups: _Lookups | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def folder(self) -> Path:
        return self.path.parent

    def __getstate__(self) -> dict[str, Any]:
        # Pickled in a workspace snapshot: the lookups are keyed by ``id()`` of the entries, which
        # another process's copies do not have; they are made again on first use.
        return {**self.__dict__, "_lookups": None}

    @property
    def _look(self) -> _Lookups:
        # Two threads may build it at once; both build the same thing and either one is kept.
        if self._lookups is None:
            self._lookups = _Lookups(self)
        return self._lookups

    def doc(self, doc_id: str) -> Doc | None:
        """The first document with ``doc_id`` (a repeated id is a drift of its own; the first one counts)."""
        return self._look.first.get(doc_id)

    def first_docs(self) -> list[Doc]:
        """The first document of each id, in index order."""
        return list(self._look.first.values())

    def doc_file(self, doc: Doc) -> Path:
        """The absolute path of a document (paths in the index are relative to the index file)."""
        return resolved(self.folder / doc.path)

    def doc_path(self, doc: Doc) -> Path:
        """The document's file as the index names it: joined to the index folder and normalised,
        links not resolved (one system call less than :meth:`doc_file`, where only the name matters)."""
        return Path(self.doc_path_text(doc))

    def doc_path_text(self, doc: Doc) -> str:
        """:meth:`doc_path` as a string (loops over every match make no ``Path``)."""
        return os.path.normpath(os.path.join(self.folder, doc.path))

    def doc_paths(self) -> list[str]:
        """Each document's path joined to the index folder and normalised (links not resolved), in
        index order: what stat-keyed reuse compares, made once per model."""
        look = self._look
        if look.paths is None:
            look.paths = [self.doc_path_text(doc) for doc in self.docs]
        return look.paths

    def doc_files(self) -> list[Path]:
        """:meth:`doc_file` of every document, in index order (each folder resolved once)."""
        return resolved_many(self.folder / doc.path for doc in self.docs)

    # -- tags ---------------------------------------------------------------------------------------

    def _resolve(self, name: str) -> tuple[Tag | None, str, str]:
        look = self._look
        return look.resolved.get(name) or look.resolve(name)

    def tag(self, name: str) -> Tag | None:
        """The vocabulary entry whose name is ``name``, else the first whose name or alias is (normalised)."""
        return self._resolve(name)[0]

    def canonical_tag(self, name: str) -> str:
        """A tag name with vocabulary aliases resolved to the vocabulary's ``name`` (else as written)."""
        return self._resolve(name)[2]

    def tag_key(self, name: str) -> str:
        """What a tag named ``name`` is compared by: its vocabulary name, else its normalised name."""
        return self._resolve(name)[1]

    def tags_of(self, doc: Doc) -> list[DocTag]:
        """The tags of ``doc`` in written order, each resolved through the vocabulary.

        This is the one rule every question about a document's tags uses: a tag that names a
        vocabulary entry or one of its aliases is that entry (:meth:`tag`), and only that one, even
        when names of several entries collide after normalisation (an ``alias_conflict`` drift).
        """
        out: list[DocTag] = []
        for ref in doc.tags:
            _, key, name = self._resolve(ref.name)
            out.append(DocTag(key, name, ref.main, ref))
        return out

    def tag_keys_of(self, doc: Doc) -> frozenset[str]:
        keys = self._look.keys.get(id(doc))
        return keys if keys is not None else frozenset(t.key for t in self.tags_of(doc))

    def docs_with_tags(self, all_of: Iterable[str] = (), any_of: Iterable[str] = ()) -> list[Doc]:
        """The documents (index order) that have every tag of ``all_of`` and, when given, one of ``any_of``."""
        want_all = {self.tag_key(n) for n in all_of}
        want_any = {self.tag_key(n) for n in any_of}
        if not want_all and not want_any:
            return list(self.docs)
        found = []
        for doc in self.docs:
            keys = self.tag_keys_of(doc)
            if want_all <= keys and (not want_any or not want_any.isdisjoint(keys)):
                found.append(doc)
        return found

    def docs_with_tag(self, name: str) -> list[Doc]:
        """The documents (index order) that have the tag ``name`` (or an alias of it)."""
        return self.docs_with_tags(all_of=(name,))

    def tag_counts(self, docs: Iterable[Doc] | None = None) -> dict[str, int]:
        """Shown tag name -> how many of ``docs`` (default: all) have it; each document counts once per tag.

        Ordered as find_docs' ``tag_counts``: more documents first, equal counts in vocabulary
        order, then the tags outside the vocabulary by name.
        """
        counts: dict[str, int] = {}
        shown: dict[str, str] = {}
        # Each document's distinct (key, shown name) pairs, made once per model: find_docs counts
        # the tags of every match on every call (14,000 documents: a tenth of a second each time).
        pairs = self._look.tag_pairs
        for doc in self.docs if docs is None else docs:
            kept = pairs.get(id(doc))
            if kept is None or kept[0] is not doc:
                distinct: dict[str, str] = {}
                for tag in self.tags_of(doc):
                    distinct.setdefault(tag.key, tag.name)
                kept = pairs[id(doc)] = (doc, tuple(distinct.items()))
            for tag_key, name in kept[1]:
                counts[tag_key] = counts.get(tag_key, 0) + 1
                shown.setdefault(tag_key, name)
        order: dict[str, int] = {}
        for i, entry in enumerate(self.tags):
            order.setdefault(entry.name, i)

        def rank(key: str) -> tuple[int, int, int, str]:
            return (-counts[key], 0 if key in order else 1, order.get(key, 0), shown[key])

        return {shown[key]: counts[key] for key in sorted(counts, key=rank)}

    # -- relations ----------------------------------------------------------------------------------

    def relations_of(self, doc_id: str) -> list[SeenRelation]:
        """The index relations of the document ``doc_id`` between it and other indexed documents.

        Outgoing first (the entries it writes, in written order), then incoming (the entries other
        documents write naming it: sources in index order, each in written order, with the
        reverse type). Only the first document of each id counts, on both sides; relations to
        itself or to an id the index does not have are left out (``check`` reports the latter).
        """
        look = self._look
        doc = look.first.get(doc_id)
        if doc is None:
            return []
        out = [
            SeenRelation("outgoing", look.first[rel.to], rel.type, rel.when, rel)
            for rel in doc.related
            if rel.to != doc.id and rel.to in look.first
        ]
        out += [
            SeenRelation("incoming", source, REVERSE_TYPES[rel.type] if rel.type else None, rel.when, rel)
            for source, rel in look.incoming.get(doc.id, ())
        ]
        return out

    def schema_diagnostics(self, config_root: Path) -> list[Diagnostic]:
        file = display(self.path, config_root)
        return [
            Diagnostic(file, p.where, DriftKind.INDEX_SCHEMA, p.message, self.yaml.line_of(p.where) if self.yaml else None)
            for p in self.problems
        ]


INDEX_SCHEMA: Record = record_of(Index)

#: update_index's kinds: kind -> (the list's key, the key that names an item, the item's record).
ITEM_KEYS: dict[str, tuple[str, str, Record]] = {
    kinds[d.attr]: (d.name, next(iter(d.spec.item.keys)), d.spec.item)
    for kinds in ({f.name: f.metadata["item"] for f in fields(Index) if "item" in f.metadata},)
    for d in declared(Index)
    if d.attr in kinds and isinstance(d.spec, ListOf) and isinstance(d.spec.item, Record)
}


def build_index(doc: YamlDoc, path: Path, shown: str) -> Index:
    """Validate parsed index YAML and build the model from the items that fit."""
    data = doc.data
    problems = index_problems(data)
    extra: dict[str, Any] = {"path": path.resolve(), "shown": shown, "yaml": doc, "problems": problems}
    index = Builder(problems).record(Index, data, "", **extra) or Index(**extra)
    index.has_tags = isinstance(data, dict) and "tags" in data
    return index


def load_index(path: Path, config_root: Path, workspace: IndexStore | None = None) -> Index:
    """Read and model the index; a missing or unreadable file raises (exit 2) with one sentence.

    With the project's :class:`~mdmark.workspace.main.Workspace` the model is kept and reused while the
    file's stat is unchanged (the server answers every call from it), and the parsed YAML by its
    content in the user's cache: parsing YAML is most of a warm ``check``.
    """
    shown = display(path, config_root)
    if workspace is None:
        return build_index(load_yaml(path, shown), path, shown)
    return workspace.index(path, shown, lambda: build_index(load_yaml(path, shown, workspace.parsed_yaml), path, shown))


def index_from_text(path: Path, config_root: Path, text: str, workspace: IndexStore | None = None) -> Index:
    """The index model of ``text`` as if it were the content of ``path`` (an editor's unsaved
    buffer); a text that is no YAML raises like :func:`load_index` (exit 2, line and column)."""
    shown = display(path, config_root)
    try:
        doc = parse_yaml(text, shown, workspace.parsed_yaml if workspace is not None else None)
    except MdmarkError as exc:
        raise MdmarkError(exc.message, exit_code=2, file=str(path.absolute()), line=exc.line, column=exc.column) from None
    return build_index(doc, path, shown)
