"""``index.yaml``: the one schema and the model of docs, terms and tags (design.md section 3).

:func:`index_problems` is the validator that ``check``, ``update_index`` and the Sphinx extension
share; its problems read ``{場所}: {内容}`` with places such as ``docs[3].related[0].type``.
:func:`load_index` builds the model leniently: an item that breaks the schema is reported and left
out, the rest is usable.
"""

from __future__ import annotations


from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdmark.bounds import path_problem
from mdmark.diagnostics import Diagnostic, DriftKind
from mdmark.files import display, resolved
from mdmark.schema import Bool, Choice, Key, ListOf, Problem, Record, Str, string_or_record, validate
from mdmark.text import normalize
from mdmark.yamlio import YamlDoc, load_yaml

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

TAG_REF = Record(keys={"name": Key(Str(non_empty=True), required=True), "main": Key(Bool())})

RELATION = Record(
    keys={
        "to": Key(Str(non_empty=True), required=True),
        "type": Key(Choice(choices=RELATION_TYPES, what="関係の種類"), required=True),
        "when": Key(Str(non_empty=True), required=True),
        "paths": Key(_names),
    }
)

DOC = Record(
    keys={
        "id": Key(Str(non_empty=True), required=True),
        "path": Key(Str(non_empty=True, path=True), required=True),
        "title": Key(Str(non_empty=True), required=True),
        "aliases": Key(_names),
        "description": Key(Str(nullable=True)),
        "tags": Key(ListOf(string_or_record(TAG_REF, "タグの名前の文字列か {name, main}"))),
        "related": Key(ListOf(string_or_record(RELATION, "文書の ID の文字列か {to, type, when, paths}"))),
    }
)

TERM = Record(
    keys={
        "id": Key(Str(non_empty=True), required=True),
        "term": Key(Str(non_empty=True), required=True),
        "aliases": Key(_names),
        "definition": Key(Str(nullable=True)),
        "docs": Key(_names),
    }
)

TAG = Record(
    keys={
        "name": Key(Str(non_empty=True), required=True),
        "group": Key(Str(nullable=True)),
        "description": Key(Str(nullable=True)),
        "aliases": Key(_names),
        "deprecated": Key(Str(nullable=True, non_empty=True)),
    }
)

INDEX_SCHEMA = Record(keys={"docs": Key(ListOf(DOC)), "terms": Key(ListOf(TERM)), "tags": Key(ListOf(TAG))})

#: update_index items: the same records without the id/name key, and related entries only as objects.
ITEM_KEYS: dict[str, tuple[str, str, Record]] = {
    "doc": ("docs", "id", DOC),
    "term": ("terms", "id", TERM),
    "tag": ("tags", "name", TAG),
}


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
class TagRef:
    name: str
    main: bool
    where: str


@dataclass(frozen=True)
class Relation:
    """A ``related`` entry. A string entry has ``type`` and ``when`` None and ``written_as_string``."""

    to: str
    type: str | None
    when: str | None
    paths: tuple[str, ...]
    where: str
    written_as_string: bool = False


@dataclass
class Doc:
    id: str
    path: str
    title: str
    where: str
    aliases: list[str] = field(default_factory=list)
    description: str | None = None
    tags: list[TagRef] = field(default_factory=list)
    related: list[Relation] = field(default_factory=list)
    #: Each alias with its key path (``docs[2].aliases[1]``), so check points at the list entry.
    aliases_at: list[tuple[str, str]] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        """Title then aliases: the names an occurrence in another document's text may use."""
        return [self.title, *self.aliases]


@dataclass
class Term:
    id: str
    term: str
    where: str
    aliases: list[str] = field(default_factory=list)
    definition: str | None = None
    docs: list[str] = field(default_factory=list)
    #: Each document ID of ``docs`` with its key path (``terms[0].docs[1]``).
    docs_at: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Tag:
    name: str
    where: str
    group: str | None = None
    description: str | None = None
    aliases: list[str] = field(default_factory=list)
    deprecated: str | None = None
    #: Each alias with its key path (``tags[0].aliases[1]``).
    aliases_at: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Index:
    """The index model. ``docs``/``terms``/``tags`` hold the items that fit the schema, in file order."""

    path: Path
    shown: str
    docs: list[Doc] = field(default_factory=list)
    terms: list[Term] = field(default_factory=list)
    tags: list[Tag] = field(default_factory=list)
    has_tags: bool = False
    problems: list[Problem] = field(default_factory=list)
    yaml: YamlDoc | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent

    def doc(self, doc_id: str) -> Doc | None:
        """The first document with ``doc_id``."""
        for doc in self.docs:
            if doc.id == doc_id:
                return doc
        return None

    def doc_file(self, doc: Doc) -> Path:
        """The absolute path of a document (paths in the index are relative to the index file)."""
        return resolved(self.folder / doc.path)

    def tag(self, name: str) -> Tag | None:
        """The vocabulary entry whose name is ``name``, else the first whose alias is (normalised)."""
        for tag in self.tags:
            if tag.name == name:
                return tag
        key = normalize(name)
        for tag in self.tags:
            if normalize(tag.name) == key or any(normalize(a) == key for a in tag.aliases):
                return tag
        return None

    def canonical_tag(self, name: str) -> str:
        """A tag name with vocabulary aliases resolved to the vocabulary's ``name``."""
        tag = self.tag(name)
        return tag.name if tag else name

    def schema_diagnostics(self, config_root: Path) -> list[Diagnostic]:
        file = display(self.path, config_root)
        return [
            Diagnostic(file, p.where, DriftKind.INDEX_SCHEMA, p.message, self.yaml.line_of(p.where) if self.yaml else None)
            for p in self.problems
        ]


def _strings(value: Any) -> list[str]:
    # Blank entries break the schema (reported there) and would match everything as a name.
    return [v for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _strings_at(value: Any, where: str) -> list[tuple[str, str]]:
    """The entries :func:`_strings` keeps, each with its key path ``<where>[j]``."""
    if not isinstance(value, list):
        return []
    return [(v, f"{where}[{j}]") for j, v in enumerate(value) if isinstance(v, str) and v.strip()]


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _doc(item: dict[str, Any], where: str) -> Doc | None:
    if not all(isinstance(item.get(k), str) and item[k].strip() for k in ("id", "path", "title")):
        return None
    if path_problem(item["path"]) is not None:  # a schema problem; no file can be looked up by it
        return None
    doc = Doc(
        id=item["id"],
        path=item["path"],
        title=item["title"],
        where=where,
        aliases=_strings(item.get("aliases")),
        description=_opt_str(item.get("description")),
        aliases_at=_strings_at(item.get("aliases"), f"{where}.aliases"),
    )
    for j, tag in enumerate(item.get("tags") or [] if isinstance(item.get("tags"), list) else []):
        if isinstance(tag, str) and tag.strip():
            doc.tags.append(TagRef(tag, False, f"{where}.tags[{j}]"))
        elif isinstance(tag, dict) and TAG_REF.accepts(tag):
            doc.tags.append(TagRef(tag["name"], bool(tag.get("main", False)), f"{where}.tags[{j}]"))
    for j, rel in enumerate(item.get("related") or [] if isinstance(item.get("related"), list) else []):
        rel_where = f"{where}.related[{j}]"
        if isinstance(rel, str) and rel.strip():
            doc.related.append(Relation(rel, None, None, (), rel_where, written_as_string=True))
        elif isinstance(rel, dict) and RELATION.accepts(rel):
            doc.related.append(Relation(rel["to"], rel["type"], rel["when"], tuple(rel.get("paths") or ()), rel_where))
    return doc


def build_index(doc: YamlDoc, path: Path, shown: str) -> Index:
    """Validate parsed index YAML and build the model from the items that fit."""
    data = doc.data
    index = Index(path=path.resolve(), shown=shown, yaml=doc, problems=index_problems(data))
    if not isinstance(data, dict):
        return index
    index.has_tags = "tags" in data
    for i, item in enumerate(data.get("docs") or [] if isinstance(data.get("docs"), list) else []):
        if isinstance(item, dict) and (model := _doc(item, f"docs[{i}]")) is not None:
            index.docs.append(model)
    for i, item in enumerate(data.get("terms") or [] if isinstance(data.get("terms"), list) else []):
        if isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get("term"), str):
            index.terms.append(
                Term(
                    id=item["id"],
                    term=item["term"],
                    where=f"terms[{i}]",
                    aliases=_strings(item.get("aliases")),
                    definition=_opt_str(item.get("definition")),
                    docs=_strings(item.get("docs")),
                    docs_at=_strings_at(item.get("docs"), f"terms[{i}].docs"),
                )
            )
    for i, item in enumerate(data.get("tags") or [] if isinstance(data.get("tags"), list) else []):
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
            index.tags.append(
                Tag(
                    name=item["name"],
                    where=f"tags[{i}]",
                    group=_opt_str(item.get("group")),
                    description=_opt_str(item.get("description")),
                    aliases=_strings(item.get("aliases")),
                    deprecated=_opt_str(item.get("deprecated")) or None,
                    aliases_at=_strings_at(item.get("aliases"), f"tags[{i}].aliases"),
                )
            )
    return index


def load_index(path: Path, config_root: Path) -> Index:
    """Read and model the index; a missing or unreadable file raises (exit 2) with one sentence.

    The model is kept by the project's :class:`~mdmark.workspace.Workspace` and reused while the
    file's stat is unchanged (the server answers every call from it), and the parsed YAML by its
    content in the user's cache: parsing YAML is most of a warm ``check``.
    """
    from mdmark.workspace import workspace_for

    shown = display(path, config_root)
    workspace = workspace_for(config_root)
    return workspace.index(path, shown, lambda: build_index(load_yaml(path, shown, workspace.parsed_yaml), path, shown))
