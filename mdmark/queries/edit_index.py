"""``update_index``: replace, add or remove one item of the index (the tool's description in :mod:`mdmark.tools.update_index`).

The file is edited as text, by the span the item takes in the YAML (from the node marks), so
comments, key order, quoting and every other item stay byte-identical; only the new item is
rendered, in the list's own style (block items at the list's dash column, flow items inline).
The whole resulting index passes the shared schema (:func:`mdmark.index.model.index_problems`) before
anything is written, and the write is atomic (temp file + replace) under a lock held across
read-modify-write: a lock file next to the index (``fcntl.flock``, other processes) and a
per-file threading lock (other threads of the server), so concurrent writers never lose an update.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from mdmark.declare.schema import Key, ListOf, OneOf, Problem, Record, Spec, type_name, validate
from mdmark.config.yamlio import guard_node, parse_yaml
from mdmark.core.errors import MdmarkError
from mdmark.index.model import DOC, ITEM_KEYS, RELATION, TAG, TERM, format_problem, index_problems
from mdmark.project.main import Project
from mdmark.declare import params
from mdmark.declare.tool import checked
from mdmark.util.bounds import check_path, check_value
from mdmark.util.files import atomic_write_text, display, read_text
from mdmark.util.sentences import unknown_item

#: What a kind is called in sentences.
_KIND_NAMES: dict[str, str] = {"doc": "文書", "term": "用語", "tag": "タグの語彙"}
_WIDTH = 2**30


def _object_form(record: Record) -> str:
    """「to・type・when（と任意の paths）を持つオブジェクト」: the mapping form of ``record``, in words."""
    required = "・".join(name for name, key in record.keys.items() if key.required)
    optional = "・".join(name for name, key in record.keys.items() if not key.required)
    return f"{required}（と任意の {optional}）を持つオブジェクト" if optional else f"{required} を持つオブジェクト"


class _ObjectOnly(Spec):
    """A ``related`` entry written as a string: the index accepts it, update_index does not."""

    expected = _object_form(RELATION)

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        out.append(
            Problem(
                where,
                f"関連は {self.expected}で渡してください（いまは{type_name(value)}です）。",
            )
        )


def _strict(record: Record) -> Record:
    """``record`` with ``related`` entries accepted only as objects."""
    if "related" not in record.keys:
        return record

    def pick(value: Any) -> Spec:
        return RELATION if isinstance(value, dict) else _ObjectOnly()

    keys = dict(record.keys)
    keys["related"] = Key(ListOf(OneOf(options=(RELATION,), pick=pick, expected=_ObjectOnly.expected)))
    return Record(keys=keys)


_STRICT: dict[str, Record] = {"doc": _strict(DOC), "term": TERM, "tag": TAG}


# -- locking ----------------------------------------------------------------------------------------

_THREAD_LOCKS: dict[str, threading.Lock] = {}
_THREAD_LOCKS_GUARD = threading.Lock()


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Exclusive access to the index at ``path`` across threads and processes.

    The inter-process lock is ``flock`` on the index's folder: the index file itself is replaced
    on every write (a lock on it would guard the old inode), and a lock file would be a stray file
    in the user's repository.
    """
    key = str(path.resolve())
    with _THREAD_LOCKS_GUARD:
        thread_lock = _THREAD_LOCKS.setdefault(key, threading.Lock())
    with thread_lock:
        try:
            fd = os.open(path.resolve().parent, os.O_RDONLY)
        except OSError as exc:
            raise MdmarkError(
                f"索引のフォルダ `{path.parent}` を開けない（{exc.strerror}）ので、フォルダの権限を確かめてください。"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


# -- the library function ------------------------------------------------------------------------------


def update_index(start: Path, kind: Any, id: Any, item: Any, config: Any = None) -> dict[str, str]:
    """Replace (or add) the item ``id`` of ``kind`` with ``item``, or remove it when ``item`` is None."""
    args = checked(params.UPDATE_INDEX, kind=kind, id=id, item=item, config=config)
    kind, id, item, config = args["kind"], args["id"], args["item"], args["config"]
    check_value(id, "id")
    if item is not None:
        check_value(item, "item")
    project = Project.open(start, config)
    path = project.config.require_index()
    project.ensure_writable_target(path)
    if isinstance(item, dict) and isinstance(item.get("path"), str):
        _require_inside(project, item["path"])
    shown = display(path, project.root)
    if not path.is_file():
        try:
            read_text(path, shown)
        except MdmarkError as exc:
            raise MdmarkError(exc.message, exit_code=2) from None
    with locked(path):
        # Read inside the lock: another writer may have changed the file since this call began.
        try:
            text = read_text(path, shown)
        except MdmarkError as exc:
            raise MdmarkError(exc.message, exit_code=2) from None  # as check says it
        action, new_text = edit_index_text(text, kind, id, item, shown)
        if new_text != text:
            try:
                atomic_write_text(path, new_text)
            except OSError as exc:
                raise MdmarkError(
                    f"索引 `{shown}` を書き換えられない（{exc.strerror}）ので、ファイルとフォルダの権限を確かめてください。"
                ) from None
    return {"action": action, "index": shown}


def _require_inside(project: Project, written: str) -> None:
    """An item's ``path`` is relative to the config folder and, as written, stays inside the project
    root: an index never points at ``/etc/passwd`` or ``../../x``. (A link inside the project that
    leads out is the readers' to refuse: they read only inside the root.)"""
    from mdmark.util.roots import project_root

    check_path(written, "item の path")
    lexical = Path(os.path.normpath(project.root / written))
    if written.startswith(("/", "\\")) or Path(written).is_absolute() or not lexical.is_relative_to(
        project_root(project.root)
    ):
        raise MdmarkError(
            f"item の path `{written}` はプロジェクトの外を指す（絶対パスか `..` で外へ出る）ので、"
            "設定のフォルダからの相対パスでプロジェクトの中のファイルを指定してください。"
        )


# -- the edit (pure: text in, text out) ----------------------------------------------------------------


#: libyaml when available: the same nodes and marks (character offsets) as the pure-Python loader,
#: several times faster on an index of thousands of documents.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _compose(text: str, shown: str) -> tuple[yaml.Node | None, Any]:
    """The node tree (for the spans) and the data built from it: one parse for both."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        guard_node(node, shown)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError:
        parse_yaml(text, shown)  # raises the loader's sentence, the one check says
        raise
    finally:
        loader.dispose()
    return node, data


def _raise_problems(problems: list[Problem]) -> None:
    raise MdmarkError("\n".join(format_problem(p) for p in problems))


def _order_key(data: Any, where: str) -> tuple[int, ...]:
    """Where a problem stands in file order, so problems from two validators merge in that order."""
    out: list[int] = []
    node = data
    token = ""
    parts: list[str | int] = []
    for ch in where:
        if ch in ".[":
            if token:
                parts.append(token)
            token = ""
        elif ch == "]":
            parts.append(int(token))
            token = ""
        else:
            token += ch
    if token:
        parts.append(token)
    for part in parts:
        if isinstance(part, int) and isinstance(node, list) and part < len(node):
            out.append(part)
            node = node[part]
        elif isinstance(part, str) and isinstance(node, dict) and part in node:
            out.append(list(node).index(part))
            node = node[part]
        else:
            out.append(1 << 30)
            node = None
    return tuple(out)


def edit_index_text(text: str, kind: str, item_id: str, item: dict[str, Any] | None, shown: str = "index.yaml") -> tuple[str, str]:
    """The action and the new index text; raises with ``{場所}: {内容}`` lines when the result breaks the schema.

    An index written with CRLF line ends keeps them: the edit is made on LF text and the result
    turned back, so no LF-only line appears in a CRLF file.
    """
    if "\r\n" in text and text.count("\n") == text.count("\r\n"):
        action, new_text = _edit_index_text(text.replace("\r\n", "\n"), kind, item_id, item, shown)
        return action, new_text.replace("\n", "\r\n")
    return _edit_index_text(text, kind, item_id, item, shown)


def _edit_index_text(text: str, kind: str, item_id: str, item: dict[str, Any] | None, shown: str) -> tuple[str, str]:
    list_key, id_key, _ = ITEM_KEYS[kind]
    root, data = _compose(text, shown)
    if data is None:
        data = {}
    if not isinstance(data, dict) or not (data.get(list_key) is None or isinstance(data.get(list_key), list)):
        _raise_problems(index_problems(data))
    items: list[Any] = list(data.get(list_key) or [])
    pos = next(
        (i for i, it in enumerate(items) if isinstance(it, dict) and it.get(id_key) == item_id),
        None,
    )

    if item is None:
        if pos is None:
            ids = [it[id_key] for it in items if isinstance(it, dict) and isinstance(it.get(id_key), str)]
            raise MdmarkError(unknown_item("name" if kind == "tag" else "ID", item_id, list_key, ids))
        action = "removed"
        new_item: dict[str, Any] | None = None
        del items[pos]
    else:
        if id_key in item and item[id_key] != item_id:
            raise MdmarkError(
                f"item の {id_key} `{item[id_key]}` が引数の id `{item_id}` と違うので、item の {id_key} を省くか同じにしてください。"
            )
        new_item = {id_key: item_id, **{k: v for k, v in item.items() if k != id_key}}
        if pos is None:
            action = "added"
            pos = len(items)
            items.append(new_item)
        else:
            action = "replaced"
            items[pos] = new_item

    new_data = dict(data)
    if list_key == "tags" and not items:
        new_data.pop("tags", None)
    else:
        new_data[list_key] = items

    if new_item is not None:
        prefix = f"{list_key}[{pos}]"
        problems = [
            p for p in index_problems(new_data) if not (p.where == prefix or p.where.startswith((prefix + ".", prefix + "[")))
        ]
        problems += validate(_STRICT[kind], new_item, prefix)
        problems.sort(key=lambda p: _order_key(new_data, p.where))
    else:
        problems = index_problems(new_data)
    if problems:
        _raise_problems(problems)

    new_text = _edit(text, root, list_key, pos, new_item, new_data)
    if (_compose(new_text, shown)[1] or {}) != new_data:
        # The span edit must mean exactly the data validated above; anything else is a bug, never written.
        raise MdmarkError(
            f"`{shown}` の書き方を保ったまま書き換えられなかったので、索引を直接直してください（mdmark の不具合として報告してください）。"
        )
    return action, new_text


# -- span editing ----------------------------------------------------------------------------------------


def _node_end(node: yaml.Node) -> int:
    """Where the node's own text ends (block collections end at their last descendant, not the next token)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _node_end(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _node_end(node.value[-1])
    return int(node.end_mark.index)


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    """The index after the newline that ends the line holding ``index`` (or the end of the text)."""
    if index > 0 and text[index - 1] == "\n":
        return index
    nl = text.find("\n", index)
    return len(text) if nl == -1 else nl + 1


def _block_item_span(text: str, node: yaml.Node) -> tuple[int, int, int]:
    """(start of the dash's line, end of the item's last line, dash column) of a block sequence item."""
    i = int(node.start_mark.index) - 1
    while i >= 0 and text[i] in " \t\r\n":
        i -= 1
    dash = i if i >= 0 and text[i] == "-" else int(node.start_mark.index)
    start = _line_start(text, dash)
    return start, _line_end(text, _node_end(node)), dash - start


class _Dumper(yaml.SafeDumper):
    """Indents nested block sequences under their key, as hand-written indexes do."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line text (a definition, a description) reads best as a literal block.
    style = "|" if "\n" in value.strip("\n") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def _dump(item: dict[str, Any], flow: bool | None) -> str:
    return str(yaml.dump(item, Dumper=_Dumper, allow_unicode=True, sort_keys=False, default_flow_style=flow, width=_WIDTH))


def _render_block(item: dict[str, Any], column: int) -> str:
    # Short lists of scalars stay on one line (`aliases: [a, b]`), the item itself is a block mapping.
    body = _dump(item, None)
    if body.startswith("{"):
        body = _dump(item, False)
    lines = body.splitlines()
    pad = " " * column
    out = [f"{pad}- {lines[0]}"] + [f"{pad}  {line}" if line else "" for line in lines[1:]]
    return "\n".join(out) + "\n"


def _render_flow(item: dict[str, Any]) -> str:
    return _dump(item, True).strip()


def _ensure_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _default_column(root: yaml.Node | None) -> int:
    """The dash column new lists use: that of an existing block list, else 2."""
    if isinstance(root, yaml.MappingNode):
        for _, value in root.value:
            if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
                return int(value.value[0].start_mark.column) - 2 if value.value[0].start_mark.column >= 2 else 0
    return 2


def _edit(
    text: str, root: yaml.Node | None, list_key: str, pos: int, item: dict[str, Any] | None, new_data: dict[str, Any]
) -> str:
    if root is not None and (not isinstance(root, yaml.MappingNode) or root.flow_style):
        # A flow-style top level (`{docs: [...]}`) has no layout worth keeping: write it out in block style.
        return str(yaml.safe_dump(new_data, allow_unicode=True, sort_keys=False, width=_WIDTH))
    pair = None
    if isinstance(root, yaml.MappingNode):
        for key_node, value_node in root.value:
            if key_node.value == list_key:
                pair = (key_node, value_node)
    column = _default_column(root)
    if pair is None:
        assert item is not None  # removing needs an existing item
        return _ensure_newline(text) + f"{list_key}:\n" + _render_block(item, column)
    key_node, value = pair
    colon_end = text.index(":", int(key_node.end_mark.index)) + 1

    if isinstance(value, yaml.ScalarNode):  # `docs:` or `docs: null` — an empty list
        assert item is not None
        head = text[:colon_end] + text[int(value.end_mark.index) :]
        line_end = _line_end(head, colon_end)
        head = _ensure_newline(head[:line_end]) if line_end == len(head) else head
        line_end = _line_end(head, colon_end)
        return head[:line_end] + _render_block(item, column) + head[line_end:]

    assert isinstance(value, yaml.SequenceNode)
    nodes = value.value
    if value.flow_style:
        if item is None:
            node = nodes[pos]
            if len(nodes) == 1:
                if list_key == "tags":
                    start = _line_start(text, int(key_node.start_mark.index))
                    return text[:start] + text[_line_end(text, int(value.end_mark.index)) :]
                return text[: int(value.start_mark.index)] + "[]" + text[int(value.end_mark.index) :]
            if pos < len(nodes) - 1:
                return text[: int(node.start_mark.index)] + text[int(nodes[pos + 1].start_mark.index) :]
            return text[: int(nodes[pos - 1].end_mark.index)] + text[int(node.end_mark.index) :]
        rendered = _render_flow(item)
        if pos < len(nodes):
            node = nodes[pos]
            return text[: int(node.start_mark.index)] + rendered + text[int(node.end_mark.index) :]
        if not nodes:
            close = int(value.end_mark.index) - 1
            return text[:close] + rendered + text[close:]
        end = int(nodes[-1].end_mark.index)
        return text[:end] + ", " + rendered + text[end:]

    if item is None:
        start, end, _ = _block_item_span(text, nodes[pos])
        if len(nodes) == 1:
            if list_key == "tags":
                return text[: _line_start(text, int(key_node.start_mark.index))] + text[end:]
            return text[:colon_end] + " []" + text[colon_end:start] + text[end:]
        return text[:start] + text[end:]
    if pos < len(nodes):
        start, end, col = _block_item_span(text, nodes[pos])
        return text[:start] + _render_block(item, col) + text[end:]
    _, end, col = _block_item_span(text, nodes[-1])
    head = _ensure_newline(text[:end])
    return head + _render_block(item, col) + text[end:]
