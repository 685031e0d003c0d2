"""``outline`` (``mdmark outline``): the heading index of a document, an indexed id or a folder.

Every row comes from the document's facts (the doctree MyST made), so a ``#`` line inside a code
block is not a heading and the anchor is the one links and ``read_doc`` use. A section runs from
its heading to the line before the next heading of the same or a higher level; label lines
(``(name)=``) right above that heading belong to it, not to the section before.

The target rules (an id of the index, a Markdown file, a folder; confined to the starting folder
and the config folder) are shared with :mod:`mdmark.queries.read_doc`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.answers import answer
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts, Heading
from mdmark.util import door
from mdmark.util.files import display
from mdmark.workspace.main import resolves_to_itself
from mdmark.index.model import Index
from mdmark.project.main import Project
from mdmark.queries.find import _cell as table_cell
from mdmark.queries.find import _null as null_text
from mdmark.declare import params
from mdmark.declare.tool import (
    checked,
)
from mdmark.util.globs import match_files
from mdmark.util.sentences import close_note, not_markdown

_LABEL_LINE = re.compile(r"^\s*\([^()\s][^()]*\)=\s*$")


@dataclass(frozen=True)
class Target:
    """What a ``target`` argument named: the Markdown files (absolute, in order) and whether it was a folder."""

    files: list[Path]
    folder: bool
    shown: str


@dataclass(frozen=True)
class Section:
    """One heading of a document with the lines its section covers (1-based, inclusive)."""

    heading: Heading
    anchor: str | None
    line: int
    end_line: int
    #: The first line of the section's text: the heading's, or the first ``(label)=`` line above it
    #: (a label belongs to the section it labels, blank lines between included).
    start: int = 0


# -- targets ------------------------------------------------------------------------------------


def open_project(start: Path, config: str | None) -> Project:
    """The project a reading tool works in: the given or nearest config, else the defaults at ``start``."""
    return Project.for_export(start, config)


def _index_of(project: Project) -> Index | None:
    return project.index() if project.config.index_path is not None else None


def resolve_target(project: Project, target: str | None, what: str = "target") -> Target:
    """A document id of the index, a Markdown file or a folder, as files to read (see the module docstring)."""
    value = target
    if value is None or not value.strip():
        raise MdmarkError(f"{what} が空なので、文書の ID か Markdown のパスかフォルダを渡してください。")
    index = _index_of(project)
    if index is not None:
        doc = index.doc(value)
        if doc is not None:
            path = index.doc_path(doc)
            project.ensure_writable_target(path)
            return Target([path], False, value)
    path = project.resolve_arg(value)
    shown = display(path, project.start)
    if not path.exists():
        ids = [d.id for d in index.docs] if index is not None else []
        near = close_note(value, ids, "ID")
        raise MdmarkError(
            f"{what} の `{value}` は索引の文書の ID にもファイル・フォルダのパスにも当たらないので、"
            f"文書の ID か、作業のフォルダからの Markdown のパスを渡してください{near}。"
        )
    project.ensure_writable_target(path)
    if path.is_dir():
        return Target(_folder_files(project, path, index), True, shown)
    if path.suffix.lower() != ".md":
        raise MdmarkError(not_markdown(shown))
    return Target([path], False, shown)


def _folder_files(project: Project, folder: Path, index: Index | None) -> list[Path]:
    """The folder's Markdown files: indexed ones in index order, then the others by path."""
    found = [p.resolve() for p in match_files(folder, ("**/*.md",), ())]
    inside = set(found)
    ordered: list[Path] = []
    if index is not None:
        for doc in index.docs:
            path = index.doc_path(doc).resolve()
            if path in inside and path not in ordered:
                ordered.append(path)
    ordered += [p for p in found if p not in ordered]
    return ordered


def doc_ids(project: Project) -> dict[str, str]:
    """The index id of each indexed file, by its resolved path (the first id when two entries share
    a file). A path under the project folder whose file tree holds no link is its own resolved path
    (:func:`~mdmark.workspace.main.resolves_to_itself`): 14,000 entries are not resolved one by one."""
    index = _index_of(project)
    ids: dict[str, str] = {}
    if index is not None:
        prefix = project.workspace.tree(project.root).plain_prefix()
        for doc, text in zip(index.docs, index.doc_paths(), strict=True):
            ids.setdefault(text if resolves_to_itself(prefix, text) else os.path.realpath(text), doc.id)
    return ids


# -- sections -----------------------------------------------------------------------------------


def anchor_of(heading: Heading) -> str | None:
    """The anchor a link to the heading uses: its MyST slug, else its first id (an explicit label first)."""
    if heading.slug:
        return heading.slug
    return heading.ids[0] if heading.ids else None


def sections(facts: DocFacts, lines: list[str]) -> list[Section]:
    """Each heading of the document's own text with the lines of its section (subsections included).

    Headings an ``{include}`` brings in have no lines here: their text belongs to the section
    that holds the include.
    """
    headings = [h for h in facts.headings if not h.included and 1 <= h.line <= len(lines)]
    starts: list[int] = []
    for heading in headings:
        start = probe = heading.line
        while probe > 1 and (_LABEL_LINE.match(lines[probe - 2]) or not lines[probe - 2].strip()):
            probe -= 1
            if lines[probe - 1].strip():
                start = probe
        starts.append(start)
    found: list[Section] = []
    for i, heading in enumerate(headings):
        end = len(lines)
        for j in range(i + 1, len(headings)):
            if headings[j].level <= heading.level:
                end = starts[j] - 1
                break
        found.append(Section(heading, anchor_of(heading), heading.line, max(heading.line, end), starts[i]))
    return found


def span_chars(lines: list[str], first: int, last: int) -> int:
    """Characters of lines ``first``..``last`` (1-based, inclusive; ``lines`` keep their line ends)."""
    return sum(len(line) for line in lines[first - 1 : last])


# -- outline ------------------------------------------------------------------------------------


def _doc_row(project: Project, path: Path, facts: DocFacts, ids: dict[str, str]) -> dict[str, Any]:
    text = door.read_text(path, project.pipeline.project_root, "文書", display(path, project.root))
    lines = text.splitlines(keepends=True)
    rows = []
    for section in sections(facts, lines):
        rows.append(
            {
                "level": section.heading.level,
                "text": section.heading.title,
                "anchor": section.anchor,
                "line": section.line,
                "end_line": section.end_line,
                "chars": span_chars(lines, section.line, section.end_line),
                "images": sum(
                    1 for image in facts.images if not image.included and section.line <= image.line <= section.end_line
                ),
            }
        )
    return {
        "id": ids.get(str(path.resolve())),
        "path": display(path, project.start),
        "title": facts.title,
        "lines": len(lines),
        "chars": len(text),
        "headings": rows,
    }


def outline(start: Path, *, target: Any = None, format: Any = None, config: Any = None) -> str | dict[str, Any]:
    """The heading index of ``target`` (see the module docstring); markdown and toon as text, json as a dict."""
    args = checked(params.OUTLINE, target=target, format=format, config=config)
    fmt = args["format"]
    project = open_project(start, args["config"])
    found = resolve_target(project, args["target"])
    pipeline = project.pipeline
    ids = doc_ids(project)
    docs: list[dict[str, Any]] = []
    warnings: list[str] = []
    if found.folder:
        readable: list[Path] = []
        for path in found.files:
            try:
                pipeline.relpath(path)
            except MdmarkError as exc:
                warnings.append(exc.message)
                continue
            readable.append(path)
        for path, facts in zip(readable, pipeline.facts_many(readable), strict=True):
            if facts.error is not None:
                # One unreadable document does not hide the others of the folder.
                warnings.append(facts.error)
                continue
            docs.append(_doc_row(project, path, facts, ids))
    else:
        (path,) = found.files
        docs.append(_doc_row(project, path, pipeline.facts(path), ids))
    result: dict[str, Any] = {"docs": docs, "warnings": warnings}
    return answer(result, fmt, render_outline_markdown)


def _cell(value: Any) -> str:
    return table_cell(null_text(value))


def render_outline_markdown(result: dict[str, Any]) -> str:
    """One line per document (path, id, title, lines, chars) and a table of its headings."""
    out: list[str] = []
    if not result["docs"]:
        out.append("文書はありません。")
    for doc in result["docs"]:
        if out:
            out.append("")
        # A document the index does not list has no ID: the line says so instead of `ID null`.
        ident = f"ID {_cell(doc['id'])}" if doc["id"] is not None else "索引に無い"
        title = f"題 {_cell(doc['title'])}" if doc["title"] is not None else "見出しが無い"
        out.append(f"{doc['path']}・{ident}・{title}・{doc['lines']} 行・{doc['chars']} 文字")
        out.append("| レベル | 見出し | アンカー | 行 | 文字数 | 画像 |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for row in doc["headings"]:
            cells = [row["level"], row["text"], row["anchor"], f"{row['line']}-{row['end_line']}", row["chars"], row["images"]]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    for warning in result["warnings"]:
        out.append(f"警告: {warning}")
    return "\n".join(out) + "\n"
