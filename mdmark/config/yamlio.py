"""YAML loading that keeps where every key stands, so diagnostics can name a line as well as a key path."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.core.errors import MdmarkError
from mdmark.util.files import read_text

if TYPE_CHECKING:
    # Imported where it is used: a run whose YAML comes from the parse cache never loads PyYAML.
    import yaml


@dataclass
class YamlDoc:
    """A parsed YAML file: its data, its text, and the 1-based line of every key path (``docs[1].path``)."""

    data: Any
    text: str
    lines: dict[str, int] = field(default_factory=dict)
    #: Key paths that a mapping wrote twice (YAML keeps the last one silently).
    duplicate_keys: list[str] = field(default_factory=list)
    #: The line of each repeated key (its second writing), by key path.
    duplicate_lines: dict[str, int] = field(default_factory=dict)

    def line_of(self, where: str) -> int | None:
        """The line of ``where`` or of its closest recorded parent."""
        probe = where
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""
        return None

    def to_json(self) -> dict[str, Any] | None:
        """The document as JSON data, None when its data is more than JSON holds (dates, binary,
        non-string keys): such a file is parsed again instead of being cached."""
        if not _json_pure(self.data):
            return None
        return {
            "data": self.data,
            "text": self.text,
            "lines": self.lines,
            "duplicate_keys": self.duplicate_keys,
            "duplicate_lines": self.duplicate_lines,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> YamlDoc:
        return cls(data["data"], data["text"], data["lines"], data["duplicate_keys"], data["duplicate_lines"])


def _json_pure(value: Any) -> bool:
    """Whether ``value`` comes back from JSON as it is (iteratively: the nesting is bounded, the width is not)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or type(item) in (str, int, bool):
            continue
        if type(item) is float:
            if not math.isfinite(item):
                return False
            continue
        if type(item) is list:
            stack.extend(item)
            continue
        if type(item) is dict:
            if not all(type(k) is str for k in item):
                return False
            stack.extend(item.values())
            continue
        return False
    return True


def _walk(
    node: yaml.Node, path: str, lines: dict[str, int], dups: list[str], dup_lines: dict[str, int] | None = None
) -> None:
    import yaml
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            if key in seen:
                dups.append(child)
                if dup_lines is not None:
                    dup_lines.setdefault(child, key_node.start_mark.line + 1)
            seen.add(key)
            lines.setdefault(child, key_node.start_mark.line + 1)
            _walk(value_node, child, lines, dups, dup_lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = f"{path}[{i}]"
            lines.setdefault(child, item.start_mark.line + 1)
            _walk(item, child, lines, dups, dup_lines)


#: Values a YAML file may stand for once its aliases (``*name``) are expanded, beyond the values it
#: writes out: a few kilobytes of nested aliases ("billion laughs") would otherwise stand for
#: billions of values.
MAX_EXPANDED_NODES = 200_000
#: Deeper nesting than this is refused before anything recurses into it.
MAX_DEPTH = 64


def guard_node(root: yaml.Node | None, shown: str) -> None:
    """Refuse a node tree whose aliases expand past :data:`MAX_EXPANDED_NODES` or nested past :data:`MAX_DEPTH`.

    Runs on the composed nodes before construction: each distinct node is visited once (shared
    ones are counted from memory), so the check costs the size of the file, not of the expansion.
    """
    if root is None:
        return
    # Per distinct node: (values it stands for, levels of nesting it holds), aliases expanded.
    measured: dict[int, tuple[int, int]] = {}
    pending: set[int] = set()
    # An explicit stack (node, children done): no recursion on hostile input.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            pending.discard(key)
            size = 1 + sum(measured[id(c)][0] for c in children)
            height = 1 + max((measured[id(c)][1] for c in children), default=0)
            # Past the cap only through aliases: a plain index of 14,000 documents holds more
            # values than the cap, each written out; a "billion laughs" holds few distinct nodes.
            if size > MAX_EXPANDED_NODES and size > 2 * (len(measured) + 1):
                raise MdmarkError(
                    f"`{shown}` の {node.start_mark.line + 1} 行目からの別名（*名前）を展開すると値が {MAX_EXPANDED_NODES:,} 個を超えるので、別名を使わずに書いてください。",
                    exit_code=2,
                )
            if height > MAX_DEPTH:
                raise MdmarkError(
                    f"`{shown}` の {node.start_mark.line + 1} 行目からの入れ子が {MAX_DEPTH} 段より深いので、入れ子を浅くしてください。",
                    exit_code=2,
                )
            measured[key] = (size, height)
            continue
        if key in measured:
            continue
        if key in pending:
            raise MdmarkError(
                f"`{shown}` の {node.start_mark.line + 1} 行目の別名（*名前）が自分自身を含むので、別名を使わずに書いてください。",
                exit_code=2,
            )
        pending.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in measured)


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _compose_construct(loader_class: Any, text: str, shown: str = "") -> tuple[Any, yaml.Node | None]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        guard_node(node, shown)
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def _load(text: str, shown: str = "") -> tuple[Any, yaml.Node | None]:
    """Data and node tree from one parse, by libyaml when present (about 4x faster on a big index).

    A text libyaml refuses is parsed again by the pure-Python parser, whose error wording the
    messages are built on, so a broken file reads the same either way.
    """
    import yaml
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return _compose_construct(fast, text, shown)
        except yaml.YAMLError:
            pass
    return _compose_construct(yaml.SafeLoader, text, shown)


#: PyYAML's wording of a problem → Japanese (what is wrong at the place it reports).
_PROBLEMS: tuple[tuple[str, str], ...] = (
    ("<stream end>", "閉じないままファイルが終わった"),
    ("expected <block end>", "字下げが前の行と合わない"),
    ("could not find expected ':'", "`キー: 値` の `:` が無い"),
    ("that cannot start any token", "字下げにタブ文字は使えない"),
    ("found unexpected end of stream", "閉じないままファイルが終わった"),
    ("mapping values are not allowed here", "ここに `キー: 値` は書けない"),
    ("expected ',' or ']'", "`[` の並びが `]` で閉じていない"),
    ("expected ',' or '}'", "`{` の組が `}` で閉じていない"),
    ("found undefined alias", "定義の無い別名（`*`）を使っている"),
)
#: PyYAML's wording of what it was reading → what is wrong, said from where it began. Only these
#: began somewhere worth naming (an indented block's start says nothing about a dedented line).
_CONTEXTS: tuple[tuple[str, str], ...] = (
    ("simple key", "{at}のキーの後に `:` が無い"),
    ("quoted scalar", "{at}で始まった引用符の文字列が閉じていない"),
    ("flow sequence", "{at}で始まった `[` の並びが `]` で閉じていない"),
    ("flow mapping", "{at}で始まった `{{` の組が `}}` で閉じていない"),
)


def _japanese(text: str, table: tuple[tuple[str, str], ...]) -> str | None:
    return next((japanese for english, japanese in table if english in text), None)


def yaml_error(exc: yaml.MarkedYAMLError, shown: str, text: str) -> MdmarkError:
    """The sentence for a YAML syntax error, at the line and column the parser reports."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else 1
    column = mark.column + 1 if mark is not None else 1
    lines = text.split("\n")
    if line > 1 and line == len(lines) and not lines[-1]:
        # The end of the file, after its last newline: name the end of the last line instead.
        line -= 1
        column = len(lines[line - 1]) + 1
    problem = (exc.problem or "").strip()
    detail = _japanese(problem, _PROBLEMS) or problem
    context = exc.context_mark
    began = _japanese(exc.context or "", _CONTEXTS)
    if context is not None and began is not None and mark is not None and context.index < mark.index:
        # The construct that broke began above (an unclosed quote or bracket): say where.
        detail = began.format(at=f"{context.line + 1} 行 {context.column + 1} 文字目")
    return MdmarkError(
        f"`{shown}` の {line} 行 {column} 文字目が YAML として読めない（{detail}）ので、その行の字下げや括弧・引用符を直してください。",
        exit_code=2,
        line=line,
        column=column,
    )


#: ``memo(text, parse)``: ``parse()``, or an earlier result for the same text.
YamlMemo = Callable[[str, Callable[[], YamlDoc]], YamlDoc]


def parse_yaml(text: str, shown: str, memo: YamlMemo | None = None) -> YamlDoc:
    """Parse YAML text; a syntax error is one sentence naming the line and column."""
    if memo is not None:
        return memo(text, lambda: parse_yaml(text, shown))
    import yaml
    try:
        data, node = _load(text, shown)
    except RecursionError:
        # Nesting libyaml refuses and the pure-Python parser cannot follow.
        raise MdmarkError(
            f"`{shown}` の入れ子が {MAX_DEPTH} 段より深いので、入れ子を浅くしてください。", exit_code=2
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise yaml_error(exc, shown, text) from None
    except yaml.YAMLError as exc:
        raise MdmarkError(
            f"`{shown}` が YAML として読めない（{exc}）ので、ファイルの書き方を直してください。", exit_code=2
        ) from None
    lines: dict[str, int] = {}
    dups: list[str] = []
    dup_lines: dict[str, int] = {}
    if node is not None:
        _walk(node, "", lines, dups, dup_lines)
    return YamlDoc(data=data, text=text, lines=lines, duplicate_keys=dups, duplicate_lines=dup_lines)


def load_yaml(path: Path, shown: str, memo: YamlMemo | None = None) -> YamlDoc:
    """Read and parse a YAML file; unreadable files and syntax errors raise with exit code 2."""
    try:
        return parse_yaml(read_text(path, shown), shown, memo)
    except MdmarkError as exc:
        raise MdmarkError(exc.message, exit_code=2, file=str(path.absolute()), line=exc.line, column=exc.column) from None


def bounds_problem(text: str, shown: str) -> str | None:
    """The sentence for YAML whose aliases or nesting pass the caps of :func:`guard_node`, else None
    (a document's front matter: MyST loads it itself, and says so when it is malformed).

    Composes nodes only, never the data: the check costs the size of the text.
    """
    import yaml
    node = None
    for loader_class in (getattr(yaml, "CSafeLoader", None), yaml.SafeLoader):
        if loader_class is None:
            continue
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            break
        except RecursionError:
            return f"`{shown}` の入れ子が {MAX_DEPTH} 段より深いので、入れ子を浅くしてください。"
        except yaml.YAMLError:
            # libyaml refuses deep nesting as an error: the pure-Python parser tells which it is.
            if loader_class is yaml.SafeLoader:
                return None
        finally:
            loader.dispose()
    try:
        guard_node(node, shown)
    except MdmarkError as exc:
        return exc.message
    return None
