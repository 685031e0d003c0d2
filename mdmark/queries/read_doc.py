"""``read_doc`` (``mdmark read``): a document's Markdown source with its local images, in document order.

The source is read whole, as one section (by anchor or heading text, subsections included, the
same lines :mod:`mdmark.queries.outline` reports) or as a line range. The answer is a list of blocks: the
text up to and including each image's line, then a short text naming the image and the image
itself (or its SVG text). After ``max_images`` images the rest stay in the text as written. A
remote image is never fetched and a file outside the project root is never read: a note says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.host.confine import project_root
from mdmark.queries.image_blocks import ImageBlock, load_image
from mdmark.queries.outline import Section, open_project, resolve_target, sections, span_chars
from mdmark.declare import params
from mdmark.declare.tool import checked
from mdmark.util import door
from mdmark.util.sentences import close_note
from mdmark.util.text import normalize

#: More text than this in one answer crowds out the conversation: read a section instead.
MAX_TEXT_CHARS = 50_000

_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")


@dataclass(frozen=True)
class Block:
    """One content block of the answer: ``text``, or an ``image`` (base64 ``data`` with ``mime``)."""

    kind: str
    text: str = ""
    data: str = ""
    mime: str = ""


def _line_range(value: str, count: int, shown: str) -> tuple[int, int]:
    match = _RANGE.match(value)
    if match is None:
        raise MdmarkError(f"lines の `{value}` は行の範囲として読めないので、`12-40` のように最初と最後の行の番号を渡してください。")
    first, last = int(match.group(1)), int(match.group(2))
    if first < 1 or first > last:
        raise MdmarkError(f"lines の `{value}` は最初の行が 1 以上で最後の行以下でないので、`12-40` のように渡してください。")
    if first > count:
        raise MdmarkError(f"lines の `{value}` は `{shown}` の {count} 行を超えるので、1 から {count} までの行を渡してください。")
    return first, min(last, count)


def find_section(found: list[Section], wanted: str, shown: str) -> Section:
    """The section named by an anchor (slug or id) or by its heading text (``## `` marks allowed)."""
    for section in found:
        if wanted == section.anchor or wanted in section.heading.ids:
            return section
    text = normalize(wanted.lstrip("#"))
    for section in found:
        if normalize(section.heading.title) == text:
            return section
    names = [s.anchor for s in found if s.anchor] + [s.heading.title for s in found]
    near = close_note(wanted, names, "もの")
    raise MdmarkError(
        f"section の `{wanted}` は `{shown}` の見出しのアンカーにも見出しの文にも当たらないので、"
        f"outline でアンカーを確かめて渡してください{near}。"
    )


def read_doc(
    start: Path,
    *,
    target: Any = None,
    section: Any = None,
    lines: Any = None,
    max_images: Any = None,
    config: Any = None,
) -> list[Block]:
    """The blocks of ``target`` (see the module docstring)."""
    args = checked(params.READ_DOC, target=target, section=section, lines=lines, max_images=max_images, config=config)
    section_arg: str | None = args["section"]
    lines_arg: str | None = args["lines"]
    limit: int = args["max_images"]
    if section_arg is not None and lines_arg is not None:
        raise MdmarkError("section と lines は一緒に渡せないので、節で読むなら section、行で読むなら lines の片方だけを渡してください。")
    project = open_project(start, args["config"])
    found = resolve_target(project, args["target"])
    if found.folder:
        raise MdmarkError(
            f"`{found.shown}` はフォルダで 1 つの文書ではないので、outline で文書を確かめ、その文書の ID かパスを渡してください。"
        )
    (path,) = found.files
    pipeline = project.pipeline
    facts = pipeline.facts(path)
    text = door.read_text(path, project_root(project.root), "文書", found.shown)
    source = text.splitlines(keepends=True)
    first, last = 1, len(source)
    if section_arg is not None:
        chosen = find_section(sections(facts, source), section_arg, found.shown)
        first, last = chosen.start or chosen.line, chosen.end_line
    elif lines_arg is not None:
        first, last = _line_range(lines_arg, len(source), found.shown)
    chars = span_chars(source, first, last)
    if chars > MAX_TEXT_CHARS:
        raise MdmarkError(
            f"`{found.shown}` の読む範囲（{first}-{last} 行）は {chars:,} 文字で {MAX_TEXT_CHARS:,} 文字を超えるので、"
            "outline で見出しを確かめ、section で節を選ぶか lines で行を絞って読んでください。"
        )
    root = project_root(project.root)
    return _blocks(facts, source, first, last, limit, pipeline.srcdir, root, MAX_TEXT_CHARS - chars)


def _blocks(
    facts: DocFacts, source: list[str], first: int, last: int, limit: int, srcdir: Path, root: Path, budget: int
) -> list[Block]:
    """``budget``: the characters SVG texts may add before the answer's text passes MAX_TEXT_CHARS."""
    blocks: list[Block] = []
    done = first - 1  # the last source line already in a block
    inlined = 0
    for image in facts.images:
        if image.included or not first <= image.line <= last or image.uri.startswith("data:"):
            continue  # a data: image is already all there, in the text
        if image.remote:
            note = ImageBlock(f"画像 `{image.uri}`（{image.line} 行目）は外の画像なので、読みに行きません。")
        elif image.path is None:
            continue
        elif inlined >= limit:
            continue  # beyond max_images: it stays in the text as written
        else:
            file = Path(os.path.normpath(srcdir / image.path))
            note = load_image(file, image.uri, image.line, root)
            if note.svg is not None and len(note.svg) > budget:
                note = ImageBlock(
                    f"画像 `{image.uri}`（{image.line} 行目）は SVG のテキストで、合わせると {MAX_TEXT_CHARS:,} 文字を超えるので、"
                    "返しません（section か lines で範囲を絞ると返せます）。"
                )
            if note.svg is not None:
                budget -= len(note.svg)
            if note.data is not None or note.svg is not None:
                inlined += 1
        pending = source[done : image.line]
        done = max(done, image.line)
        if pending:
            blocks.append(Block("text", "".join(pending)))
        blocks.append(Block("text", note.note))
        if note.svg is not None:
            blocks.append(Block("text", note.svg))
        elif note.data is not None and note.mime is not None:
            blocks.append(Block("image", data=note.data, mime=note.mime))
    rest = source[done:last]
    if rest or not blocks:
        blocks.append(Block("text", "".join(rest)))
    return blocks


def blocks_text(blocks: list[Block]) -> str:
    """The text blocks as the CLI prints them (image data left out; each image's note stays)."""
    parts = [block.text if block.text.endswith("\n") else block.text + "\n" for block in blocks if block.kind == "text"]
    return "".join(parts)
