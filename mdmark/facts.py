"""What the pipeline learns from one document: the facts every front-end consumes.

* ``check`` uses the title, anchors, links, images and warnings (drift kinds title_mismatch,
  broken_link, broken_anchor, missing_image, syntax) and the plain text (alias occurrences).
* ``find_docs related_to`` / ``referenced_by`` use links between indexed documents and the plain
  text in which other documents' titles and aliases occur (:mod:`mdmark.occurrences`).
* export and build take the doctree itself (:meth:`mdmark.pipeline.Pipeline.doctree`); the facts
  give them the warnings and the heading anchors for the table of contents.

Facts are plain data (JSON round-trip) so the CLI can keep them in its on-disk cache. They record
links as written; whether a target exists is decided when they are used, so a cached parse never
goes stale when another file appears or disappears.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Sphinx/MyST warning types that a more precise drift kind reports instead of ``syntax``.
COVERED_WARNING_TYPES: frozenset[str] = frozenset(
    {"image.not_readable", "myst.xref_missing", "ref.doc", "ref.myst", "download.not_readable", "mdmark.outside_root"}
)


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int
    #: The MyST slug (``myst_heading_anchors``), or None above the configured level.
    slug: str | None
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Link:
    """A link as written. ``path`` is the target file relative to the source folder (POSIX, may start
    with ``..``), None for an in-page anchor or a URL; ``anchor`` is the part after ``#``."""

    target: str
    path: str | None
    anchor: str | None
    line: int
    text: str
    external: bool = False


@dataclass(frozen=True)
class Image:
    uri: str
    #: Relative to the source folder, None for a remote or ``data:`` image.
    path: str | None
    line: int
    remote: bool = False


@dataclass(frozen=True)
class TextRun:
    """Plain text of one source line, outside code, literals, links and math."""

    line: int
    text: str


@dataclass(frozen=True)
class TermRef:
    """A ``{term}`` role use."""

    term: str
    line: int


@dataclass(frozen=True)
class Warning:
    line: int | None
    type: str
    message: str


@dataclass
class DocFacts:
    """Facts of one document. ``error`` is set (and the rest empty) when the file could not be parsed."""

    path: str
    sha: str
    chars: int = 0
    title: str | None = None
    title_line: int | None = None
    headings: list[Heading] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    text: list[TextRun] = field(default_factory=list)
    term_refs: list[TermRef] = field(default_factory=list)
    warnings: list[Warning] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

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
            term_refs=[TermRef(**x) for x in data["term_refs"]],
            warnings=[Warning(**x) for x in data["warnings"]],
            metadata=dict(data["metadata"]),
            error=data["error"],
        )

    @property
    def syntax_warnings(self) -> list[Warning]:
        """Warnings that no more precise drift kind covers."""
        return [w for w in self.warnings if w.type not in COVERED_WARNING_TYPES]
