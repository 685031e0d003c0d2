"""Limits on what callers hand in: path lengths, nesting depth, text no file can hold.

Without them a 300-character file name, a 100k-character ``config`` or a ``--item`` nested 5,000
deep surfaced as an internal error (``File name too long``, ``RecursionError``); with them each
is one sentence saying what is too long or too deep.
"""

from __future__ import annotations

from typing import Any

from mdmark.core.errors import MdmarkError

#: Bytes of a whole path (Linux PATH_MAX) and of one of its names (NAME_MAX).
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
#: Nesting of a JSON value (an item, a tool argument): an index item is three levels deep.
MAX_VALUE_DEPTH = 32
#: Characters of one string argument of a tool.
MAX_STRING_CHARS = 100_000


def _short(text: str) -> str:
    return text if len(text) <= 60 else f"{text[:40]}…（{len(text):,} 文字）"


def path_problem(text: str) -> str | None:
    """Why ``text`` cannot name a file (a clause ending in ので), or None when it can."""
    if "\x00" in text:
        return "NUL 文字を含むので"
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "UTF-8 にできない文字を含むので"
    if len(data) > MAX_PATH_BYTES:
        return f" {len(data):,} バイトあってパスの上限（{MAX_PATH_BYTES:,} バイト）を超えるので"
    longest = max((len(part) for part in data.split(b"/")), default=0)
    if longest > MAX_NAME_BYTES:
        return f" {longest:,} バイトの名前を含みファイル名の上限（{MAX_NAME_BYTES} バイト）を超えるので"
    return None


def check_path(text: str, what: str) -> None:
    """Refuse a path argument no file system accepts, with one sentence."""
    problem = path_problem(text)
    if problem is not None:
        raise MdmarkError(f"{what} `{_short(text)}` は{problem}、短いパスを指定してください。")


def value_problem(value: Any, what: str) -> str | None:
    """The sentence for a JSON value nested too deep or holding text no file can store, else None.

    Walks with an explicit stack: the value may be deeper than Python's recursion limit.
    """
    stack: list[tuple[Any, int, str]] = [(value, 1, what)]
    while stack:
        current, depth, where = stack.pop()
        if depth > MAX_VALUE_DEPTH:
            return f"{what} の入れ子が {MAX_VALUE_DEPTH} 段より深いので、入れ子を浅くしてください。"
        if isinstance(current, str):
            if len(current) > MAX_STRING_CHARS:
                return f"{where} の文字列が {len(current):,} 文字あって上限（{MAX_STRING_CHARS:,} 文字）を超えるので、短くしてください。"
            try:
                current.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = f"\\u{ord(current[exc.start]):04x}"
                return f"{where} に UTF-8 にできない文字（{bad}）が入っているので、その文字を消してください。"
        elif isinstance(current, dict):
            for key, item in current.items():
                stack.append((key, depth + 1, where))
                stack.append((item, depth + 1, f"{where} の `{_short(str(key))}`"))
        elif isinstance(current, list):
            stack.extend((item, depth + 1, where) for item in current)
    return None


def check_value(value: Any, what: str) -> None:
    """Raise :func:`value_problem`'s sentence, if any."""
    problem = value_problem(value, what)
    if problem is not None:
        raise MdmarkError(problem)
