"""YAML loading that keeps where every key stands, so diagnostics can name a line as well as a key path."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mdmark.errors import MdmarkError
from mdmark.files import read_text


@dataclass
class YamlDoc:
    """A parsed YAML file: its data, its text, and the 1-based line of every key path (``docs[1].path``)."""

    data: Any
    text: str
    lines: dict[str, int] = field(default_factory=dict)
    #: Key paths that a mapping wrote twice (YAML keeps the last one silently).
    duplicate_keys: list[str] = field(default_factory=list)

    def line_of(self, where: str) -> int | None:
        """The line of ``where`` or of its closest recorded parent."""
        probe = where
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""
        return None


def _walk(node: yaml.Node, path: str, lines: dict[str, int], dups: list[str]) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            if key in seen:
                dups.append(child)
            seen.add(key)
            lines.setdefault(child, key_node.start_mark.line + 1)
            _walk(value_node, child, lines, dups)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = f"{path}[{i}]"
            lines.setdefault(child, item.start_mark.line + 1)
            _walk(item, child, lines, dups)


def parse_yaml(text: str, shown: str) -> YamlDoc:
    """Parse YAML text; a syntax error is one sentence naming the line."""
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = (exc.problem or "").strip()
        raise MdmarkError(
            f"`{shown}` の {line} 行目を YAML として読めません（{problem}）。その行の字下げや記号を直してください。",
            exit_code=2,
        ) from None
    except yaml.YAMLError as exc:
        raise MdmarkError(
            f"`{shown}` を YAML として読めません（{exc}）。ファイルの書き方を直してください。", exit_code=2
        ) from None
    lines: dict[str, int] = {}
    dups: list[str] = []
    if node is not None:
        _walk(node, "", lines, dups)
    return YamlDoc(data=data, text=text, lines=lines, duplicate_keys=dups)


def load_yaml(path: Path, shown: str) -> YamlDoc:
    """Read and parse a YAML file; unreadable files and syntax errors raise with exit code 2."""
    try:
        text = read_text(path, shown)
    except MdmarkError as exc:
        raise MdmarkError(exc.message, exit_code=2) from None
    return parse_yaml(text, shown)
