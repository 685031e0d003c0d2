"""A small declarative schema for the YAML files (config and index), with located Japanese messages.

Both ``mdmark.config.yaml`` and ``index.yaml`` are declared with these specs, so there is one
validator and one set of sentences for ``check``, ``update_index`` and the Sphinx extension.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mdmark.util.bounds import path_problem
from mdmark.util.sentences import close_choice, close_fix


@dataclass(frozen=True)
class Problem:
    """One place where data does not fit its spec. ``unknown_key`` tells config_key from config_value."""

    where: str
    message: str
    unknown_key: bool = False


def type_name(value: Any) -> str:
    """The Japanese name of a YAML value's type, as messages show it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "真偽値"
    if isinstance(value, int):
        return "整数"
    if isinstance(value, float):
        return "小数"
    if isinstance(value, str):
        return "文字列"
    if isinstance(value, list):
        return "並び"
    if isinstance(value, dict):
        return "キーと値の組"
    return type(value).__name__


def integral(value: Any) -> int | None:
    """``value`` as an int when it is a JSON integer: ``5`` or an integral number such as ``5.0``
    (JSON Schema counts both as integers); None for anything else, booleans included."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def bounds_text(minimum: int | None, maximum: int | None) -> str:
    """``1 以上 100 以下``: the range an integer must lie in, as sentences say it."""
    return " ".join(
        part
        for part in (f"{minimum} 以上" if minimum is not None else "", f"{maximum} 以下" if maximum is not None else "")
        if part
    )


class Spec:
    """Base of every spec: ``check`` appends problems for ``value`` found at ``where``."""

    #: How a message names what is expected, e.g. 「文字列」.
    expected: str = ""

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        """What a value of this spec is, as the guide's key tables say it (「空でない文字列か null」)."""
        return self.expected

    def accepts(self, value: Any) -> bool:
        probe: list[Problem] = []
        self.check(value, "", probe)
        return not probe

    def wrong_type(self, value: Any, where: str, out: list[Problem]) -> None:
        now = type_name(value)
        now = f" {now} " if now.isascii() else now
        out.append(Problem(where, f"{spaced(self.expected)}で書いてください（いまは{now}です）。"))


def spaced(words: str) -> str:
    """A space between a name that ends in ASCII (``{name, main}``) and the Japanese after it."""
    return f"{words} " if words and words[-1].isascii() and not words[-1].isspace() else words


@dataclass
class Str(Spec):
    nullable: bool = False
    non_empty: bool = False
    expected: str = "文字列"

    #: The string names a file: refuse what no file system accepts (too long, NUL).
    path: bool = False

    def describe(self) -> str:
        return f"{'空でない' if self.non_empty else ''}文字列{'か null' if self.nullable else ''}"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if value is None and self.nullable:
            return
        if not isinstance(value, str):
            self.wrong_type(value, where, out)
        elif self.non_empty and not value.strip():
            out.append(Problem(where, "空の文字列なので、値を書いてください。"))
        elif self.path and (problem := path_problem(value)) is not None:
            out.append(Problem(where, f"パスが{problem}、短いパスにしてください。"))


@dataclass
class Bool(Spec):
    expected: str = "真偽値（true か false）"

    def describe(self) -> str:
        return "真偽値"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, bool):
            self.wrong_type(value, where, out)


@dataclass
class Int(Spec):
    minimum: int | None = None
    maximum: int | None = None
    expected: str = "整数"

    def describe(self) -> str:
        bounds = bounds_text(self.minimum, self.maximum)
        return f"{bounds}の整数" if bounds else "整数"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.wrong_type(value, where, out)
        elif (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            out.append(Problem(where, f"{value} は範囲の外なので、{bounds_text(self.minimum, self.maximum)}の整数にしてください。"))


@dataclass
class Choice(Spec):
    #: The allowed values, or a function giving them when a value is first checked (the list of
    #: another package, read only when a config uses the key).
    choices: Sequence[str] | Callable[[], Sequence[str]] = ()
    what: str = "値"
    expected: str = "文字列"

    def describe(self) -> str:
        return self.what

    def allowed(self) -> Sequence[str]:
        return self.choices() if callable(self.choices) else self.choices

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, str):
            self.wrong_type(value, where, out)
        elif value not in self.allowed():
            out.append(Problem(where, f"{self.what} `{value}` は使えないので、{close_choice(value, self.allowed())}"))


@dataclass
class Scalar(Spec):
    """Any YAML scalar (string, number, boolean), e.g. a substitution's value."""

    expected: str = "文字列か数値"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, str | int | float | bool):
            self.wrong_type(value, where, out)


@dataclass
class ListOf(Spec):
    item: Spec = field(default_factory=Str)
    #: A lone item is accepted where a list is expected (``include: docs/*.md``)? Never: be strict.
    expected: str = ""

    def __post_init__(self) -> None:
        if not self.expected:
            self.expected = f"{spaced(self.item.expected)}の並び"

    def describe(self) -> str:
        return f"{spaced(self.item.describe())}の並び"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, list):
            self.wrong_type(value, where, out)
            return
        for i, item in enumerate(value):
            self.item.check(item, f"{where}[{i}]", out)


@dataclass
class MapOf(Spec):
    """A mapping with free keys (e.g. substitutions)."""

    value: Spec = field(default_factory=Scalar)
    expected: str = "キーと値の組"

    def describe(self) -> str:
        return f"名前と{self.value.describe()}の組"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, dict):
            self.wrong_type(value, where, out)
            return
        for key, item in value.items():
            self.value.check(item, f"{where}.{key}" if where else str(key), out)


@dataclass(frozen=True)
class Key:
    spec: Spec
    required: bool = False
    help: str = ""


@dataclass
class Record(Spec):
    """A mapping with declared keys; unknown keys are problems with a close-name suggestion."""

    keys: dict[str, Key] = field(default_factory=dict)
    expected: str = "キーと値の組"

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        if not isinstance(value, dict):
            self.wrong_type(value, where, out)
            return
        for name, key in self.keys.items():
            if key.required and name not in value:
                out.append(Problem(where, f"必須のキー `{name}` が無いので、書き足してください。"))
        for name, item in value.items():
            child = f"{where}.{name}" if where else str(name)
            if name not in self.keys:
                fix = close_fix(str(name), self.keys, "キーの名前を直すか、")
                out.append(Problem(child, f"知らないキー `{name}` なので、{fix}消してください。", unknown_key=True))
                continue
            self.keys[name].spec.check(item, child, out)


@dataclass
class OneOf(Spec):
    """A value that may take one of several forms (a tag as a string or as ``{name, main}``).

    The form is picked by the YAML type, so the problems reported are those of the form the
    user evidently meant.
    """

    options: Sequence[Spec] = ()
    pick: Callable[[Any], Spec | None] | None = None
    expected: str = ""

    def check(self, value: Any, where: str, out: list[Problem]) -> None:
        chosen = self.pick(value) if self.pick else None
        if chosen is None:
            self.wrong_type(value, where, out)
        else:
            chosen.check(value, where, out)


def string_or_record(record: Record, expected: str) -> OneOf:
    """A string or a mapping of ``record``'s form."""
    text = Str(non_empty=True)

    def pick(value: Any) -> Spec | None:
        if isinstance(value, str):
            return text
        if isinstance(value, dict):
            return record
        return None

    return OneOf(options=(text, record), pick=pick, expected=expected)


def validate(spec: Spec, data: Any, where: str = "") -> list[Problem]:
    """All problems of ``data`` against ``spec`` — collected, never stopping at the first."""
    out: list[Problem] = []
    spec.check(data, where, out)
    return out
