"""``find_docs`` and ``list_tags``: the index queries (the tools' descriptions in :mod:`mdmark.tools.find_docs` and :mod:`mdmark.tools.list_tags`).

The MCP tools and ``mdmark find`` / ``mdmark tags`` call these functions with the arguments as
received; the values are checked here by the tools' declarations (:func:`tool_arguments`), so both
front-ends say the same sentence.
A markdown or toon result is a ``str``, a json result a ``dict``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.answers import answer
from mdmark.core.errors import MdmarkError
from mdmark.host.confine import inside, project_root
from mdmark.util import door
from mdmark.index.model import Doc, Index, Tag
from mdmark.workspace.relations import RelationGraph, RelationView, build_graph
from mdmark.project.main import Project
from mdmark.declare import params
from mdmark.declare.tool import (
    BRIEF_FIELDS,
    FIELDS,
    checked,
)
from mdmark.util.sentences import unknown_doc_id
from mdmark.util.text import close_names, normalize, quote_list
from mdmark.workspace.main import Workspace, resolves_to_itself

VIEW_FIELDS: dict[str, tuple[str, ...]] = {
    "brief": (),
    "standard": ("path", "aliases"),
    "full": ("path", "aliases", "related", "referenced_by"),
}
HINT = "続きがあります。tags・any_tags・text で絞るか、count_only で件数だけを確かめてください。"
#: The same advice in the words of ``mdmark find`` (its options, not the tool's argument names).
CLI_HINT = "続きがあります。--tag・--any-tag・--text で絞るか、--count-only で件数だけを確かめてください。"

_COLUMNS: dict[str, str] = {
    "id": "ID",
    "title": "題",
    "description": "概要",
    "tags": "タグ",
    "chars": "文字数",
    "path": "パス",
    "aliases": "別名",
    "related": "関連",
    "referenced_by": "被参照",
    "relations": "関係",
}


# -- shared pieces ---------------------------------------------------------------------------------


def _open_index(start: Path, config: str | None) -> tuple[Project, Index]:
    project = Project.open(start, config)
    return project, project.index()


def file_chars(workspace: Workspace, path: Path, root: Path | None = None) -> int | None:
    """Code points in a document's file, None when it is missing, unreadable or (links resolved)
    outside ``root`` (kept by the workspace while the file's stat is unchanged)."""
    if root is None or not inside(path, root):
        return None
    return workspace.file_chars(str(path), functools.partial(_count, str(path), root))


def _count(path: str, root: Path) -> int | None:
    try:
        return len(door.read_text(Path(path), root, "文書", os.path.basename(path)))
    except MdmarkError:
        return None


def _chars_of(project: Project, index: Index, docs: list[Doc]) -> dict[int, int | None]:
    """:func:`file_chars` of each document (by ``id()`` of its entry) in the project's work tree.

    ``total_chars`` counts every match: 14,000 documents resolved one by one (every folder of each
    path ``lstat``'ed) took most of a second. Under a project folder whose file tree holds no
    link (:class:`~mdmark.workspace.main.FileTree` tracks it), a normalised path resolves to
    itself, and that folder lies in the work tree: only the others are resolved."""
    root = project_root(project.root)
    workspace = project.workspace
    # The project folder (resolved) lies in its work tree ``root``.
    prefix = workspace.tree(project.root).plain_prefix()
    out: dict[int, int | None] = {}
    for doc in docs:
        text = index.doc_path_text(doc)
        if resolves_to_itself(prefix, text):
            out[id(doc)] = workspace.file_chars(text, functools.partial(_count, text, root))
        else:
            out[id(doc)] = file_chars(workspace, Path(text), root)
    return out


# -- find_docs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Filter:
    text: str | None
    tags: tuple[str, ...]
    any_tags: tuple[str, ...]
    related_to: str | None

    def digest(self) -> str:
        data = json.dumps([self.text, list(self.tags), list(self.any_tags), self.related_to], ensure_ascii=False)
        return hashlib.sha256(data.encode()).hexdigest()[:16]


def encode_cursor(offset: int, filt: _Filter) -> str:
    raw = json.dumps({"offset": offset, "filter": filt.digest()}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, filt: _Filter) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        data = None
    offset = data.get("offset") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or isinstance(offset, bool)
        or not isinstance(offset, int)
        or offset < 0
        or not isinstance(data.get("filter"), str)
    ):
        raise MdmarkError("cursor を読めないので、cursor を省いて先頭から引き直してください。")
    if data["filter"] != filt.digest():
        raise MdmarkError(
            "絞り込みの条件（text・tags・any_tags・related_to）が next_cursor を返した呼び出しと違うので、cursor を省いて先頭から引き直してください。"
        )
    return offset


def _related_entry(rel: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"to": rel.to, "type": rel.type, "when": rel.when}
    if rel.paths:
        entry["paths"] = list(rel.paths)
    return entry


def _unknown_tag_warning(index: Index, name: str, for_cli: bool = False) -> str:
    known = [t.name for t in index.tags] + [a for t in index.tags for a in t.aliases]
    close = close_names(name, known)
    # Aliases are suggested through their vocabulary name: that is the name to write.
    names: list[str] = []
    for candidate in close:
        canonical = index.canonical_tag(candidate)
        if canonical not in names:
            names.append(canonical)
    tail = f"近いタグ: {quote_list(names)}" if names else "近いタグも無い"
    lookup = "`mdmark tags`" if for_cli else "list_tags"
    return f"タグ `{name}` は索引のタグの語彙に無く、そのまま引いた（{tail}）ので、{lookup} で語彙を確かめてください。"


def find_docs(
    start: Path,
    *,
    text: Any = None,
    tags: Any = None,
    any_tags: Any = None,
    related_to: Any = None,
    limit: Any = None,
    cursor: Any = None,
    view: Any = None,
    include: Any = None,
    exclude: Any = None,
    count_only: Any = None,
    format: Any = None,
    config: Any = None,
    for_cli: bool = False,
) -> str | dict[str, Any]:
    """Documents of the index that meet every given condition (see the tool's description in :mod:`mdmark.tools.find_docs`).

    ``for_cli``: the markdown form speaks to a shell user (``--include path``, ``--cursor X``), not
    to an MCP client (``include: ["path"]``, ``next_cursor``); the data is the same."""
    args = checked(params.FIND_DOCS, text=text, tags=tags, any_tags=any_tags, related_to=related_to, limit=limit, cursor=cursor,
        view=view, include=include, exclude=exclude, count_only=count_only, format=format, config=config,
    )
    text_arg: str | None = args["text"]
    tag_args: list[str] = args["tags"] or []
    any_args: list[str] = args["any_tags"] or []
    related_arg: str | None = args["related_to"]
    page_size: int = args["limit"]
    cursor_arg: str | None = args["cursor"]
    include_fields: list[str] = args["include"] or []
    exclude_fields: list[str] = args["exclude"] or []
    counting: bool = args["count_only"]
    fmt: str = args["format"]

    project, index = _open_index(start, args["config"])

    if related_arg is not None and index.doc(related_arg) is None:
        raise MdmarkError(unknown_doc_id("related_to", related_arg, [d.id for d in index.docs]))

    want_tags = [index.tag_key(t) for t in tag_args]
    want_any = [index.tag_key(t) for t in any_args]
    filt = _Filter(
        normalize(text_arg) if text_arg is not None else None,
        tuple(dict.fromkeys(want_tags)),
        tuple(dict.fromkeys(want_any)),
        related_arg,
    )
    offset = _decode_cursor(cursor_arg, filt) if cursor_arg is not None else 0

    warnings: list[str] = []
    if index.has_tags:
        for name in dict.fromkeys([*tag_args, *any_args]):
            if index.tag(name) is None:
                warnings.append(_unknown_tag_warning(index, name, for_cli))

    fields = [f for f in FIELDS if (f in VIEW_FIELDS[args["view"]] or f in include_fields) and f not in exclude_fields]
    needs_graph = related_arg is not None or ("referenced_by" in fields and not counting)
    graph: RelationGraph | None = build_graph(
        index, project.root, project.workspace.stamped_facts(project.pipeline).facts_many, project.pipeline.parse_key, project.workspace
    ) if needs_graph else None

    relations = graph.relations_of(related_arg) if graph is not None and related_arg is not None else None
    matched = _matched(index, filt, tag_args, any_args, relations)
    chars = _chars_of(project, index, matched)
    result = _page(index, matched, chars, offset, page_size, filt, counting, warnings)
    if not counting:
        result["omitted"] = [{"field": f, "how": f'include: ["{f}"]'} for f in FIELDS if f not in fields]
        page = matched[offset : offset + page_size]
        result["docs"] = [_row(doc, chars[id(doc)], fields, graph, relations) for doc in page]
    return answer(result, fmt, lambda data: render_find_markdown(data, fields, related_arg, for_cli=for_cli))



def _matched(
    index: Index, filt: _Filter, tag_args: list[str], any_args: list[str], relations: dict[str, Any] | None
) -> list[Doc]:
    """The documents that meet every condition: index order, those whose subject tag (main) is
    one of the asked tags first."""
    matched = [
        doc
        for doc in index.docs_with_tags(tag_args, any_args)
        if (filt.text is None or text_matches(doc, filt.text)) and (relations is None or doc.id in relations)
    ]
    wanted = set(filt.tags) | set(filt.any_tags)
    if wanted:
        # Stable sort: index order within each part.
        matched.sort(key=lambda d: 0 if any(t.main and t.key in wanted for t in index.tags_of(d)) else 1)
    return matched


def _page(
    index: Index,
    matched: list[Doc],
    chars: dict[int, int | None],
    offset: int,
    page_size: int,
    filt: _Filter,
    counting: bool,
    warnings: list[str],
) -> dict[str, Any]:
    """The answer's counts, cursor and tag counts (its rows are added by the caller), in the
    contract's key order."""
    more = offset + page_size < len(matched)
    result: dict[str, Any] = {"total": len(matched)}
    if not counting:
        result["returned"] = len(matched[offset : offset + page_size])
    result["total_chars"] = sum(c for c in chars.values() if c is not None)
    if not counting:
        result["next_cursor"] = encode_cursor(offset + page_size, filt) if more else None
        result["hint"] = HINT if more else None
    result["tag_counts"] = [{"name": name, "count": count} for name, count in index.tag_counts(matched).items()]
    result["warnings"] = warnings
    return result

def text_matches(doc: Doc, needle: str) -> bool:
    """``find_docs``' ``text`` condition: ``needle`` (normalised) is in the document's title, an
    alias or its description (the language server's workspace symbols match the same way)."""
    return any(needle in normalize(s) for s in [doc.title, *doc.aliases, *([doc.description] if doc.description else [])])


def _row(
    doc: Doc,
    chars: int | None,
    fields: list[str],
    graph: RelationGraph | None,
    relations: dict[str, list[RelationView]] | None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": doc.id,
        "title": doc.title,
        "description": doc.description,
        "tags": [{"name": t.name, "main": t.main} for t in doc.tags],
        "chars": chars,
    }
    if "path" in fields:
        row["path"] = doc.path
    if "aliases" in fields:
        row["aliases"] = list(doc.aliases)
    if "related" in fields:
        row["related"] = [_related_entry(r) for r in doc.related]
    if "referenced_by" in fields:
        assert graph is not None
        row["referenced_by"] = graph.referenced_by(doc.id)
    if relations is not None:
        row["relations"] = [r.as_dict() for r in relations[doc.id]]
    return row


# -- markdown rendering ----------------------------------------------------------------------------


def _cell(value: str) -> str:
    """A table cell: pipes escaped, line breaks folded, so one row stays one line."""
    return " ".join(value.replace("\\", "\\\\").replace("|", "\\|").split())


def _null(value: Any) -> str:
    return "null" if value is None else str(value)


def relation_text(relation: dict[str, Any], related_to: str) -> str:
    """One relation in Japanese: its type (a body link or a name's occurrence has none) and which
    way it runs between ``related_to`` and the row's document."""
    kind = relation["type"] or "本文の参照"
    way = f"`{related_to}` から" if relation["direction"] == "outgoing" else f"`{related_to}` へ"
    return f"{kind}（{way}）"


def _render_cell(field: str, row: dict[str, Any], related_to: str | None = None, for_cli: bool = False) -> str:
    value = row[field]
    if field == "tags":
        return "・".join(f"{t['name']}（主題）" if t["main"] else t["name"] for t in value)
    if field == "aliases":
        return "・".join(value)
    # The tool's markdown is the customer's contract, word for word: ``{to}（{type}）`` and
    # ``{direction} {type}`` with JSON's names (null included), as agents also read the JSON. The
    # CLI speaks to a person: relations in Japanese, nothing shown for an untyped entry.
    if field == "related":
        if not for_cli:
            return "・".join(f"{r['to']}（{_null(r['type'])}）" for r in value)
        return "・".join(f"{r['to']}（{r['type']}）" if r["type"] else r["to"] for r in value)
    if field == "relations":
        if not for_cli:
            return "・".join(f"{r['direction']} {_null(r['type'])}" for r in value)
        return "・".join(relation_text(r, related_to or "") for r in value)
    if value is None:
        return ""
    return str(value)


def render_find_markdown(
    result: dict[str, Any], fields: list[str], related_to: str | None, *, for_cli: bool = False
) -> str:
    """The markdown form of a find_docs result, line by line as the contract shows it; ``for_cli``
    names the shell's options instead of the tool's arguments."""
    lines: list[str] = []
    if "docs" in result:
        head = f"総件数 {result['total']} 件・返した件数 {result['returned']} 件・合計文字数 {result['total_chars']}"
        if not for_cli:
            head += f"・next_cursor: {_null(result['next_cursor'])}"
        elif result["next_cursor"] is not None:
            head += f"・続きは --cursor {result['next_cursor']}"
        lines.append(head)
        columns = [*BRIEF_FIELDS, *fields, *(["relations"] if related_to is not None else [])]
        lines.append("| " + " | ".join(_COLUMNS[c] for c in columns) + " |")
        lines.append("|" + "|".join(" --- " for _ in columns) + "|")
        for row in result["docs"]:
            lines.append("| " + " | ".join(_cell(_render_cell(c, row, related_to, for_cli)) for c in columns) + " |")
    else:
        lines.append(f"総件数 {result['total']} 件・合計文字数 {result['total_chars']}")
    if result["tag_counts"]:
        lines.append("タグごとの件数: " + "・".join(f"{t['name']} {t['count']}" for t in result["tag_counts"]))
    if result.get("omitted"):
        how = (lambda o: f"--include {o['field']}") if for_cli else (lambda o: o["how"])
        lines.append("省いた項目: " + "・".join(f"{o['field']}（{how(o)}）" for o in result["omitted"]))
    for warning in result["warnings"]:
        lines.append(f"警告: {warning}")
    if result.get("hint"):
        lines.append(CLI_HINT if for_cli else result["hint"])
    return "\n".join(lines) + "\n"


# -- list_tags -------------------------------------------------------------------------------------


def list_tags(start: Path, *, query: Any = None, format: Any = None, config: Any = None) -> str | dict[str, Any]:
    """The tag vocabulary with the number of documents per tag (see :mod:`mdmark.tools.list_tags`)."""
    args = checked(params.LIST_TAGS, query=query, format=format, config=config)
    query_arg: str | None = args["query"]
    fmt: str = args["format"]
    _, index = _open_index(start, args["config"])
    needle = normalize(query_arg) if query_arg is not None else None

    seen: set[str] = set()
    rows: list[dict[str, Any]] = []
    # Counted by the one rule of the queries (Index.tags_of), so that `docs` is what find_docs finds.
    counts = index.tag_counts()
    for tag in index.tags:
        if tag.name in seen:
            continue
        seen.add(tag.name)
        if needle is not None and not _tag_matches(tag, needle):
            continue
        rows.append(
            {
                "name": tag.name,
                "group": tag.group,
                "description": tag.description,
                "aliases": list(tag.aliases),
                "deprecated": tag.deprecated,
                "docs": counts.get(tag.name, 0),
            }
        )
    return answer({"tags": rows}, fmt, lambda data: render_tags_markdown(data["tags"]))


def _tag_matches(tag: Tag, needle: str) -> bool:
    haystack = [tag.name, *tag.aliases, *([tag.description] if tag.description else [])]
    return any(needle in normalize(s) for s in haystack)


def render_tags_markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| 名前 | グループ | 説明 | 別名 | 振り替え先 | 文書数 |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        cells = [
            row["name"],
            row["group"] or "",
            row["description"] or "",
            "・".join(row["aliases"]),
            row["deprecated"] or "",
            str(row["docs"]),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
