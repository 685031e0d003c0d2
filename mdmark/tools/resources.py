"""The MCP resources of ``mdmark serve``: documents by index id, one section of a document, the
guide's pages and the project's drift list; and the completion of the templates' variables.

Nothing here knows about MCP transports: the server adapter (:mod:`mdmark.server.app`) turns
:data:`TEMPLATES` and :func:`listed` into protocol types, hands :func:`read` a URI and
:func:`complete` a template's variable, and answers a :class:`ResourceError` as an MCP error with
its one Japanese sentence.

A URI never names a file. Its variables are looked up where the tools look them up: a document's
id in the project's index only (never as a path, so ``..``, an absolute path or an encoded slash
is just an id the index does not have), a guide page's name in the guide's index. The file the
index names is then read by :func:`mdmark.queries.read_doc.read_doc`, with the confinement (the
project's root, no link out of it) and the bounds (50,000 characters) of the ``read_doc`` tool.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from mdmark.core.errors import MdmarkError
from mdmark.util.sentences import close_note, unknown_doc_id
from mdmark.util.text import normalize, quote_list

if TYPE_CHECKING:
    from mdmark.index.model import Index

SCHEME = "mdmark://"
DOC_TEMPLATE = SCHEME + "docs/{id}"
SECTION_TEMPLATE = SCHEME + "docs/{id}/sections/{anchor}"
GUIDE_PREFIX = SCHEME + "guide/"
CHECK_URI = SCHEME + "check"

#: A longer URI names nothing mdmark has (ids and anchors are short); it is refused unread.
MAX_URI_CHARS = 2_000
#: A longer id, anchor or page name is refused unread (none of the index's is this long).
MAX_NAME_CHARS = 256
#: The most values one ``completion/complete`` answer may hold (the MCP specification's limit).
MAX_COMPLETIONS = 100
#: Resources per ``resources/list`` page (the rest follow with ``nextCursor``). Large, so that a
#: knowledge base of a thousand documents is one page: whether a client follows the cursor for
#: its ``@`` list is the client's affair.
PAGE_SIZE = 2_000


class ResourceError(Exception):
    """A URI or variable mdmark cannot answer; the message is one Japanese sentence.

    ``not_found`` tells the adapter to answer the specification's "resource not found" (-32002)
    rather than "invalid params"."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.not_found = not_found


@dataclass(frozen=True)
class Entry:
    """One resource (``uri``) or resource template (``uri`` holds the template) as the lists show it."""

    uri: str
    name: str
    title: str
    description: str
    mime: str


TEMPLATES: tuple[Entry, ...] = (
    Entry(
        DOC_TEMPLATE,
        "doc",
        "設計文書（索引の ID）",
        "索引の ID の文書の Markdown（read_doc で全体を読むのと同じ本文。画像は Markdown のまま）。"
        "id は索引の docs の id で、ID か題の書き出しで補完できる。50,000 文字を超える文書は節（sections）で読む。",
        "text/markdown",
    ),
    Entry(
        SECTION_TEMPLATE,
        "doc_section",
        "設計文書の節（ID とアンカー）",
        "索引の ID の文書の 1 つの節（下の節を含む）の Markdown（read_doc の section と同じ）。"
        "anchor は outline のアンカーか見出しの文で、文書の ID を決めたあとに補完できる。",
        "text/markdown",
    ),
)


def _project_needed() -> ResourceError:
    return ResourceError(
        "この接続では読むプロジェクトが決まっていないので、stdio では mdmark serve --stdio --project で作業のフォルダを渡し、"
        "HTTP では URL の ?project= か X-Mdmark-Project ヘッダーに作業のフォルダの絶対パスを入れてください。"
    )


# -- the lists ----------------------------------------------------------------------------------


def doc_uri(doc_id: str, anchor: str | None = None) -> str:
    """The URI of a document (or one of its sections); variables are percent-encoded whole."""
    uri = SCHEME + "docs/" + quote(doc_id, safe="")
    return uri if anchor is None else uri + "/sections/" + quote(anchor, safe="")


def _guide_entries() -> list[Entry]:
    from mdmark.guide.reader import guide_entries

    return [
        Entry(GUIDE_PREFIX + quote(e.name, safe=""), f"guide/{e.name}", f"使い方集: {e.title}", e.description, "text/markdown")
        for e in guide_entries()
    ]


def _check_entry() -> Entry:
    return Entry(
        CHECK_URI,
        "check",
        "いまのずれの一覧",
        '作業のフォルダの設定・索引・文書のずれの一覧（check のツールの答えと同じ JSON の {"issues": [...]}）。',
        "application/json",
    )


def listed(project: Path | None, cursor: str | None = None) -> tuple[list[Entry], str | None]:
    """The listed resources and the next page's cursor: the guide's pages, then (when the
    connection has a project) its drift list and its indexed documents, :data:`PAGE_SIZE` per page."""
    offset = _offset(cursor)
    fixed = _guide_entries()
    docs: list[Entry] = []
    if project is not None:
        fixed.append(_check_entry())
        index = _index(project, required=False)
        if index is not None:
            docs = [
                Entry(doc_uri(d.id), d.id, d.title, d.description or "", "text/markdown")
                for d in index.first_docs()  # a repeated id is a drift; its first entry counts
            ]
    every = fixed + docs
    page = every[offset : offset + PAGE_SIZE]
    nxt = offset + PAGE_SIZE
    return page, (str(nxt) if nxt < len(every) else None)


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise ResourceError(f"cursor の `{cursor[:40]}` は mdmark の続きの印ではないので、前の答えの nextCursor をそのまま渡してください。")
    return int(cursor)


# -- reading ------------------------------------------------------------------------------------


def _index(project: Path, required: bool = True) -> Index | None:
    from mdmark.queries.outline import _index_of, open_project

    try:
        index = _index_of(open_project(project, None))
    except MdmarkError as exc:
        if not required:
            return None
        raise ResourceError(exc.message) from None
    return index


def _variable(raw: str, what: str, uri: str) -> str:
    try:
        value = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise ResourceError(f"URI `{_short(uri)}` の {what} が UTF-8 として読めないので、{what} を UTF-8 でパーセント符号化してください。") from None
    if not value.strip():
        raise ResourceError(f"URI `{_short(uri)}` の {what} が空なので、{what} を入れてください。")
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in value):
        raise ResourceError(f"URI の {what} `{_short(value)!r}` は制御文字を含むので、制御文字を除いてください。")
    if len(value) > MAX_NAME_CHARS:
        raise ResourceError(
            f"URI の {what} `{_short(value)}` は {len(value):,} 文字あって上限（{MAX_NAME_CHARS} 文字）を超えるので、索引にある短い {what} を渡してください。"
        )
    return value


def _short(text: str) -> str:
    return text if len(text) <= 60 else f"{text[:40]}…（{len(text):,} 文字）"


def _parts(uri: str) -> list[str]:
    if len(uri) > MAX_URI_CHARS:
        raise ResourceError(
            f"URI が {len(uri):,} 文字あって上限（{MAX_URI_CHARS:,} 文字）を超えるので、resources/list か補完で出る URI を使ってください。"
        )
    if not uri.startswith(SCHEME):
        raise ResourceError(
            f"URI `{_short(uri)}` は mdmark の資源ではないので、{SCHEME} で始まる URI（resources/list か {DOC_TEMPLATE}）を使ってください。",
            not_found=True,
        )
    rest = uri[len(SCHEME) :]
    if "?" in rest or "#" in rest or "\\" in rest:
        raise ResourceError(
            f"URI `{_short(uri)}` に ? ・ # ・ \\ が入っているので、ID やアンカーのその文字はパーセント符号化してください。"
        )
    return rest.split("/")


def _unknown(uri: str) -> ResourceError:
    return ResourceError(
        f"URI `{_short(uri)}` は mdmark の資源の形に当たらないので、{DOC_TEMPLATE}・{SECTION_TEMPLATE}・{GUIDE_PREFIX}<名前>・{CHECK_URI} のどれかにしてください。",
        not_found=True,
    )


def read(uri: str, project: Path | None) -> tuple[str, str]:
    """``(mime type, text)`` of the resource ``uri``; raises :class:`ResourceError`."""
    parts = _parts(uri)
    if parts == ["check"]:
        return "application/json", _drift(_need(project))
    if len(parts) == 2 and parts[0] == "guide":
        return "text/markdown", _guide(_variable(parts[1], "名前", uri))
    if parts[0] == "docs" and len(parts) == 2:
        return "text/markdown", _doc(_need(project), _variable(parts[1], "ID", uri), None)
    if parts[0] == "docs" and len(parts) == 4 and parts[2] == "sections":
        doc_id = _variable(parts[1], "ID", uri)
        return "text/markdown", _doc(_need(project), doc_id, _variable(parts[3], "アンカー", uri))
    raise _unknown(uri)


def _need(project: Path | None) -> Path:
    if project is None:
        raise _project_needed()
    return project


def _guide(name: str) -> str:
    from mdmark.guide.reader import read_guide

    try:
        (text,) = read_guide([name])
    except MdmarkError as exc:
        raise ResourceError(exc.message, not_found=True) from None
    return text.removeprefix(f"# {name}\n\n")


def _doc(project: Path, doc_id: str, anchor: str | None) -> str:
    from mdmark.queries.read_doc import read_doc

    index = _index(project)
    if index is None:
        raise ResourceError(
            "作業のフォルダの設定に index が無いので、文書を ID で読むには設定に index（例: `index: index.yaml`）を書いてください。"
        )
    if index.doc(doc_id) is None:
        raise ResourceError(unknown_doc_id("URI", doc_id, [d.id for d in index.docs]), not_found=True)
    try:
        # max_images 0: a resource is text; every local image stays in the Markdown as written.
        blocks = read_doc(project, target=doc_id, section=anchor, max_images=0)
    except MdmarkError as exc:
        raise ResourceError(exc.message) from None
    return "".join(block.text for block in blocks if block.kind == "text")


def _drift(project: Path) -> str:
    from mdmark.check.collect import check

    try:
        return json.dumps(check(project), ensure_ascii=False)
    except MdmarkError as exc:
        raise ResourceError(exc.message) from None


# -- request shapes -----------------------------------------------------------------------------


def malformed_request(method: str, params: Mapping[str, Any]) -> str | None:
    """The one sentence for a ``resources/read`` or ``completion/complete`` whose values are not
    the strings the protocol names, else None (other methods: None)."""
    if method == "resources/read" and not isinstance(params.get("uri"), str):
        return f"resources/read の uri が文字列ではないので、読む資源の URI（{DOC_TEMPLATE} の形など）を文字列で渡してください。"
    if method == "completion/complete":
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, Mapping) or not isinstance(ref.get("uri", ref.get("name")), str):
            return '補完の ref が {"type": "ref/resource", "uri": テンプレート} の形ではないので、その形で渡してください。'
        if not isinstance(argument, Mapping) or not all(isinstance(argument.get(k), str) for k in ("name", "value")):
            return '補完の argument が {"name": 変数の名前, "value": 打った文字} の形ではないので、どちらも文字列で渡してください。'
    return None


# -- completion ---------------------------------------------------------------------------------


def complete(template: str, argument: str, value: str, context: dict[str, str] | None, project: Path | None) -> tuple[list[str], int]:
    """The values of ``argument`` of ``template`` that begin with ``value`` (at most
    :data:`MAX_COMPLETIONS`) and how many there are in all.

    ``id``: the ids whose id, title or an alias begins with ``value`` (case and width folded, so a
    Japanese title's first characters find its id), ids first. ``anchor``: the anchors of the
    document ``context`` names whose anchor or heading text begins with ``value``.
    """
    if template not in (DOC_TEMPLATE, SECTION_TEMPLATE):
        raise ResourceError(
            f"`{_short(template)}` は mdmark の資源のテンプレートではないので、{DOC_TEMPLATE} か {SECTION_TEMPLATE} を渡してください。",
            not_found=True,
        )
    wanted = ["id"] if template == DOC_TEMPLATE else ["id", "anchor"]
    if argument not in wanted:
        raise ResourceError(
            f"テンプレート {template} に変数 `{argument}` は無いので、{quote_list(wanted)} のどれかを補完してください{close_note(argument, wanted)}。"
        )
    if project is None:
        return [], 0
    index = _index(project, required=False)
    if index is None:
        return [], 0
    typed = normalize(value).casefold()
    if argument == "id":
        docs = index.first_docs()
        by_id = [d.id for d in docs if normalize(d.id).casefold().startswith(typed)]
        by_name = [
            d.id
            for d in docs
            if d.id not in by_id and any(normalize(n).casefold().startswith(typed) for n in d.names)
        ]
        found = by_id + by_name
    else:
        doc_id = (context or {}).get("id")
        if doc_id is None or index.doc(doc_id) is None:
            return [], 0
        found = _anchors(project, doc_id, typed)
    return found[:MAX_COMPLETIONS], len(found)


def _anchors(project: Path, doc_id: str, typed: str) -> list[str]:
    from mdmark.queries.outline import outline

    try:
        answer = outline(project, target=doc_id, format="json")
    except MdmarkError:
        return []
    assert isinstance(answer, dict)
    out: list[str] = []
    for doc in answer["docs"]:
        for heading in doc["headings"]:
            anchor = heading["anchor"]
            if anchor is None or anchor in out:
                continue
            if normalize(anchor).casefold().startswith(typed) or normalize(heading["text"]).casefold().startswith(typed):
                out.append(anchor)
    return out
