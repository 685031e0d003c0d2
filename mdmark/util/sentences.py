"""The sentence families mdmark says in many places, each written once.

Every error and drift is one Japanese sentence: what does not match, then how to fix it. Some
parts recur across the check rules, the queries, the index editor and the tools: the hint of a
close name, a document ID the index does not have, a file that is not Markdown, a file that cannot
be read. They are written here so that one family has one wording (and the language server's quick
fixes, which read ``近い `X``` back out of a sentence, find it the same everywhere).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mdmark.util.text import close_names, quote_list


def _spaced(word: str) -> str:
    """``word`` after a Japanese word: a space in front of a Latin word (``近い ID``, ``近い名前``)."""
    return f" {word}" if word[:1].isascii() else word


# -- close names ----------------------------------------------------------------------------------


#: Reads back the close name :func:`fix_to` put in a sentence (the language server's quick fix).
CLOSE_NAME = re.compile(r"近い `([^`]+)`")


def fix_to(close: str | Sequence[str] | None, otherwise: str, what: str = "") -> str:
    """The fix clause of a sentence ``…ので、{clause}…してください``: ``近い `x` に直すか、`` (or, with
    ``what``, ``近い `x` に{what}を直すか、``; several names are listed ``a``・``b``) when a close
    candidate was found, else ``otherwise``."""
    names = [close] if isinstance(close, str) else list(close or ())
    if not names:
        return otherwise
    target = f"{what}を" if what else ""
    return f"近い {quote_list(names)} に{target}直すか、"


def close_fix(word: str, candidates: Iterable[str], otherwise: str, n: int = 1) -> str:
    """:func:`fix_to` with the candidates that look like ``word`` (:func:`close_names`)."""
    return fix_to(close_names(word, candidates, n), otherwise)


def close_note(word: str, candidates: Iterable[str], label: str = "名前", n: int = 3) -> str:
    """A parenthesis naming close candidates (``（近い名前: `a`・`b`）``, ``（近い ID: `a`）``), or ``""``."""
    close = close_names(word, candidates, n)
    return f"（近い{_spaced(label)}: {quote_list(close)}）" if close else ""


def close_choice(word: str | None, choices: Sequence[str]) -> str:
    """A value outside ``choices``: ``近い `doc` か、`doc`・`term`・`tag` のどれかにしてください。``
    (``word`` None: no close name is offered)."""
    close = close_names(word, choices, 1) if word is not None else []
    near = f"近い `{close[0]}` か、" if close else ""
    return f"{near}{quote_list(choices)} のどれかにしてください。"


# -- the index ------------------------------------------------------------------------------------


def unknown_doc_id(what: str, value: str, ids: Iterable[str]) -> str:
    """An argument ``what`` naming a document ID the index does not have."""
    near = close_note(value, ids, "ID")
    return f"{what} の `{value}` は索引の文書の ID に無いので、索引の docs の id{near or ' '}を渡してください。"


def unknown_item(key: str, item_id: str, list_key: str, ids: Iterable[str]) -> str:
    """An index item (``key`` ``ID``/``name``) not in the index's list ``list_key``."""
    near = close_note(item_id, ids, "名前" if key == "name" else key)
    return f"{key} が `{item_id}` の項目は索引の {list_key} に無いので、{list_key} にある {key}{near or ' '}を渡してください。"


# -- files ----------------------------------------------------------------------------------------


def _named(shown: str, what: str) -> str:
    return f"{what} `{shown}`" if what else f"`{shown}`"


def not_markdown(shown: str) -> str:
    """A path that names a file other than a Markdown document."""
    return f"`{shown}` は Markdown（.md）のファイルではないので、.md のファイルを指定してください。"


def missing_file(shown: str, what: str = "") -> str:
    """A file that is not there, named by the user or by a document (``what``: what names it)."""
    return f"{_named(shown, what)} が見つからないので、パスを直すかファイルを置いてください。"


def link_loop(shown: str, what: str = "") -> str:
    """A symbolic link that leads back to itself."""
    return f"{_named(shown, what)} のリンクが輪になっていて行き着くファイルが無いので、リンクを張り直すか消してください。"


def unreadable(shown: str, reason: str, what: str = "") -> str:
    """A file the operating system refused to read (``reason``: its ``strerror``)."""
    return f"{_named(shown, what)} を読めない（{reason}）ので、ファイルの権限を確かめてください。"


def not_regular(shown: str, what: str = "") -> str:
    """A FIFO, device, socket or folder where a file was expected: a FIFO would block the reader for
    ever and a device never ends, so it is not read."""
    return f"{_named(shown, what)} はふつうのファイルではない（FIFO・デバイス・ソケット・フォルダ）ので読まず、ふつうのファイルを指してください。"


def too_big(shown: str, size: int, limit: int, what: str = "") -> str:
    """A file over the size a reader accepts."""
    return f"{_named(shown, what)} は {size:,} バイトあって読める大きさ（{limit:,} バイト）を超えるので読まず、ファイルを分けるか小さくしてください。"


def included_too_much(shown: str, limit: int) -> str:
    """A document whose ``{include}`` reads, nested ones counted, pass what one document may be."""
    return (
        f"{{include}} で取り込むファイルが合わせて上限（{limit:,} バイト）を超えるので `{shown}` から先を取り込まず、"
        "同じファイルを何度も取り込んでいないか確かめて、取り込みを減らすか文書を分けてください。"
    )


def output_not_file(shown: str) -> str:
    """An output path that names a link, a folder or another special file: it is not written through."""
    return f"出力先 `{shown}` はふつうのファイルではないので、別のパスを指定してください。"


def outside_root(shown: str, what: str) -> str:
    """An embedding refused for lying outside the project root (export, build and check say the same)."""
    return f"{what} `{shown}` はプロジェクトのルートの外のファイルを指すので埋め込まず、プロジェクトの中に置いたファイルを指してください。"
