"""What the pipeline learns from one document: the facts every front-end consumes.

* ``check`` uses the title, anchors, labels, targets, toctrees, links, images and warnings (drift
  kinds title_mismatch, broken_link, broken_anchor, missing_image, syntax); never the plain text.
* ``find_docs related_to`` / ``referenced_by`` use links between indexed documents and the plain
  text in which other documents' titles and aliases occur (:mod:`mdmark.index.occurrences`).
* export and build take the doctree itself (:meth:`mdmark.pipeline.pipeline.Pipeline.doctree`); the facts
  give them the warnings and the heading anchors for the table of contents.

Facts are plain data (JSON round-trip) so the CLI can keep them in its on-disk cache. They record
links as written; whether a target exists is decided when they are used, so a cached parse never
goes stale when another file appears or disappears.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

from mdmark.util.files import Stamp, stamp_from_json

#: Bump when what the facts hold (or how they are extracted) changes, so cached facts are not reused.
FACTS_VERSION = "24"

#: Sphinx/MyST warning types that a more precise drift kind reports instead of ``syntax``: mdmark
#: resolves references and toctree entries itself, against the documents that exist when the
#: parse is used (a cached parse does not know the documents added since).
#: The warning type of a directive or role of an extension held until the user trusts conf.py
#: (:mod:`mdmark.host.held_markup`); its message is the extension's name.
UNCHECKED_WARNING = "mdmark.unchecked"

COVERED_WARNING_TYPES: frozenset[str] = frozenset(
    {
        "image.not_readable",
        "myst.xref_missing",
        "ref.doc",
        "ref.myst",
        "download.not_readable",
        "toc.not_readable",
        "toc.excluded",
        "toc.empty_glob",
        "toc.duplicate_entry",
        "mdmark.outside_root",
        # A block of an extension held until trust: counted into the one trust notice.
        "mdmark.unchecked",
    }
)


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int
    #: The MyST slug (``myst_heading_anchors``), or None above the configured level.
    slug: str | None
    ids: tuple[str, ...] = ()
    #: From an ``{include}``d file: ``line`` is a line of that file, not of this document.
    included: bool = False

    @property
    def anchor(self) -> str | None:
        """The id a link to this heading uses: its slug when the section carries it (readable URLs),
        else its first id."""
        if self.slug is not None and (self.slug in self.ids or not self.ids):
            return self.slug
        return self.ids[0] if self.ids else None


@dataclass(frozen=True)
class Link:
    """A reference as written. ``path`` is the target file relative to the source folder (POSIX, may
    start with ``..``), None for an in-page anchor, a label or a URL; ``anchor`` is the part after ``#``.

    ``role`` says how it is resolved (:mod:`mdmark.references.resolve`): ``link`` (a file or URL), ``myst-doc``
    (a Markdown link MyST read as a document: ``doc`` is its docname), ``myst`` (a Markdown link to
    a label, a document or an object), ``download``, or a Sphinx role (``ref``, ``numref``, ``doc``,
    ``term``, ``eq``, ``any``, ``keyword``, ``py:class``…) with ``target`` as the role received it.
    """

    target: str
    path: str | None
    anchor: str | None
    line: int
    text: str
    external: bool = False
    role: str = "link"
    doc: str | None = None
    #: Whether the reference has text of its own (else the target's title or number is shown).
    explicit: bool = True
    #: An id of this very page that MyST fell back on (``[t](#x)`` with ``x`` a heading too deep
    #: for ``heading_anchors`` but present as an id).
    local_id: str | None = None
    #: A domain role's context where it stands (``py:module``, ``py:class``…: the module and class
    #: directives before it) and whether it was written "specific" (``.Thing``): how the domain
    #: looks its name up (``PythonDomain.find_obj``'s search modes).
    module: str | None = None
    scope: str | None = None
    specific: bool = False


@dataclass(frozen=True)
class Label:
    """A label other documents can reference: ``(name)=``, a named directive, a heading with a label."""

    name: str
    id: str
    #: The section title or caption ("" for a label of something without one: ``{ref}`` needs text).
    title: str
    #: ``{numref}`` type of what it labels (figure, table, code-block, section), None when not numbered.
    figtype: str | None = None


@dataclass(frozen=True)
class Target:
    """Something else references land on: a glossary term (``domain`` std, ``type`` term), an equation
    (math), or a domain object (``py:function``…)."""

    domain: str
    type: str
    name: str
    id: str
    number: str | None = None


@dataclass(frozen=True)
class TocEntry:
    """One line of a toctree as written. ``kind``: ``doc`` (``target`` is a docname), ``glob``
    (``target`` is a docname pattern), ``url`` or ``self``."""

    line: int
    written: str
    kind: str
    target: str
    title: str | None = None


@dataclass(frozen=True)
class Toctree:
    line: int
    entries: tuple[TocEntry, ...]
    caption: str | None = None
    maxdepth: int = -1
    hidden: bool = False
    numbered: int = 0
    titlesonly: bool = False
    #: ``:reversed:``: the entries, globs expanded, in reverse order (as Sphinx does).
    reversed: bool = False
    name: str | None = None


@dataclass(frozen=True)
class Image:
    uri: str
    #: Relative to the source folder, None for a remote or ``data:`` image.
    path: str | None
    line: int
    remote: bool = False
    #: From an ``{include}``d file: ``line`` is a line of that file, not of this document.
    included: bool = False


@dataclass(frozen=True)
class TextRun:
    """Plain text of one source line, outside code, literals, links and math."""

    line: int
    text: str


@dataclass(frozen=True)
class Warning:
    line: int | None
    type: str
    message: str
    #: The file Sphinx names for it (absolute), when that is not the document itself: a warning
    #: of ``{include}``d text is Sphinx's at the included file and line.
    source: str | None = field(default=None, compare=False)


#: The fields of :class:`DocFacts` that are lists of flat records.
_RECORD_LISTS = ("headings", "links", "images", "text", "labels", "targets", "warnings")


@dataclass
class DocFacts:
    """Facts of one document. ``error`` is set (and the rest empty) when the file could not be parsed."""

    path: str
    #: The content key of these facts: equal keys mean equal facts (memos of what is derived from
    #: them use it). The pipeline's is its cache key (:func:`mdmark.pipeline.pipeline.cache_key`: the bytes,
    #: settings, conf.py and mdmark's version); inside a Sphinx build, the bytes' SHA-256.
    sha: str
    chars: int = 0
    title: str | None = None
    title_line: int | None = None
    headings: list[Heading] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    text: list[TextRun] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    toctrees: list[Toctree] = field(default_factory=list)
    #: Numbered things (figures, tables, code blocks) in document order: (figtype, their ids).
    figures: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    #: Files the document pulled in ({include}, {literalinclude}, images), relative to the source
    #: folder, with their size and mtime when it was parsed: a change to one re-parses it.
    deps: list[tuple[str, Stamp]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: What a notebook glued (myst-nb's ``glue``), as the reading left it for other documents'
    #: ``{glue}`doc::key``` references: key → mime type → data.
    glue: dict[str, dict[str, str]] = field(default_factory=dict)
    error: str | None = None
    #: Where the document's text shows what stopped its reading, when a line does.
    error_line: int | None = None

    @property
    def content_key(self) -> str:
        """``sha`` and the stamps of the files the document included: what derived results (the
        names occurring in it, relation graphs) are keyed by, since ``sha`` covers its own bytes only."""
        if not self.deps:
            return self.sha
        return f"{self.sha}:{hashlib.sha256(repr(self.deps).encode()).hexdigest()[:16]}"

    def to_json(self) -> dict[str, Any]:
        """The facts as JSON data (what :func:`dataclasses.asdict` gives, several times faster:
        every document's facts are written to the cache and sent back from the workers)."""
        data = dict(vars(self))
        for name in _RECORD_LISTS:
            data[name] = [dict(vars(item)) for item in data[name]]
        data["toctrees"] = [{**vars(t), "entries": [dict(vars(e)) for e in t.entries]} for t in self.toctrees]
        data["metadata"] = copy.deepcopy(self.metadata)
        data["glue"] = {key: dict(bundle) for key, bundle in self.glue.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocFacts:
        return cls(
            path=data["path"],
            sha=data["sha"],
            chars=data["chars"],
            title=data["title"],
            title_line=data["title_line"],
            headings=[Heading(**{**h, "ids": tuple(h["ids"])}) for h in data["headings"]],
            anchors=list(data["anchors"]),
            links=[Link(**x) for x in data["links"]],
            images=[Image(**x) for x in data["images"]],
            text=[TextRun(**x) for x in data["text"]],
            labels=[Label(**x) for x in data["labels"]],
            targets=[Target(**x) for x in data["targets"]],
            toctrees=[
                Toctree(**{**t, "entries": tuple(TocEntry(**e) for e in t["entries"])}) for t in data["toctrees"]
            ],
            figures=[(str(a), tuple(str(i) for i in b)) for a, b in data["figures"]],
            warnings=[Warning(**x) for x in data["warnings"]],
            deps=[(str(rel), stamp_from_json(stamp)) for rel, stamp in data["deps"]],
            metadata=dict(data["metadata"]),
            glue={str(key): dict(bundle) for key, bundle in data.get("glue", {}).items()},
            error=data["error"],
            error_line=data.get("error_line"),
        )

    @property
    def syntax_warnings(self) -> list[Warning]:
        """Warnings that no more precise drift kind covers."""
        return [w for w in self.warnings if w.type not in COVERED_WARNING_TYPES]
