"""argparse in Japanese, in argparse's own layout: every parser of the CLI is a :class:`JapaneseParser`.

argparse writes its fixed words ("usage:", "options:", "show this help message and exit") and
its usage errors in English through gettext, and the standard library ships no Japanese catalog.
Rather than patch argparse globally, the parser class swaps in the Japanese words: the group
titles and ``-h`` when it is made, the usage prefix through its formatter (any formatter class a
command asks for is given the Japanese prefix too), and the error line through :meth:`error`.
A subcommand added with ``add_subparsers(parser_class=JapaneseParser)`` needs nothing more.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
import unicodedata
from collections.abc import Callable
from typing import Any, NoReturn

USAGE_PREFIX = "使い方: "
POSITIONALS_TITLE = "引数"
OPTIONALS_TITLE = "オプション"
HELP_HELP = "この使い方を出して終わる"
VERSION_HELP = "バージョンを出して終わる"
ERROR_LABEL = "エラー"


def _names(text: str) -> str:
    """argparse's list of names (``'a', 'b'`` or ``a, b``) as a sentence lists names."""
    parts = [part.strip().strip("'\"") for part in text.split(",")]
    return "・".join(f"`{part}`" for part in parts if part)


def _option(text: str) -> str:
    """``-o/--out`` → ``--out``: the spelling a sentence names."""
    return text.split("/")[-1]


#: argparse's English usage errors (Python 3.11–3.13 wording) → the clause before 「ので」.
_USAGE_ERRORS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (
        re.compile(r"argument (COMMAND|ACTION): invalid choice: '?(.*?)'? \(choose from (.*)\)$"),
        lambda m: f"`{m[2]}` というコマンドは無い（{_names(m[3])} のどれか）",
    ),
    (
        re.compile(r"argument (\S+?): invalid choice: '?(.*?)'? \(choose from (.*)\)$"),
        lambda m: f"`{_option(m[1])}` に `{m[2]}` は使えない（{_names(m[3])} のどれか）",
    ),
    (re.compile(r"argument (\S+?): expected one argument$"), lambda m: f"`{_option(m[1])}` に値が無い"),
    (
        re.compile(r"argument (\S+?): expected at least one argument$"),
        lambda m: f"`{_option(m[1])}` に値が 1 つも無い",
    ),
    (
        re.compile(r"argument (\S+?): expected at most one argument$"),
        lambda m: f"`{_option(m[1])}` に値が 2 つ以上ある",
    ),
    (
        re.compile(r"argument (\S+?): invalid \S+ value: '?(.*?)'?$"),
        lambda m: f"`{_option(m[1])}` の値 `{m[2]}` が正しくない",
    ),
    (re.compile(r"argument (\S+?): ignored explicit argument '?(.*?)'?$"), lambda m: f"`{_option(m[1])}` は値 `{m[2]}` を取らない"),
    # A type function's own ArgumentTypeError, already Japanese (``値 `x` が整数ではない``).
    (re.compile(r"argument (\S+?): (値 .*)$"), lambda m: f"`{_option(m[1])}` の{m[2]}"),
    (re.compile(r"the following arguments are required: (.*)$"), lambda m: f"必須の引数 {_names(m[1])} が無い"),
    (re.compile(r"one of the arguments (.*) is required$"), lambda m: f"{_names(m[1].replace(' ', ','))} のどれかが要る"),
    (re.compile(r"unrecognized arguments: (.*)$"), lambda m: f"知らない引数 `{m[1]}` がある"),
    (
        re.compile(r"ambiguous option: (\S+) could match (.*)$"),
        lambda m: f"`{m[1]}` が {_names(m[2])} のどれか決まらない",
    ),
    (
        re.compile(r"argument (\S+?): not allowed with argument (\S+)$"),
        lambda m: f"`{_option(m[1])}` と `{_option(m[2])}` は一緒に使えない",
    ),
)


def usage_error_sentence(prog: str, message: str) -> str:
    """One Japanese sentence for an argparse usage error: what does not match, and where to look."""
    for pattern, clause in _USAGE_ERRORS:
        match = pattern.match(message)
        if match:
            return f"{clause(match)}ので、`{prog} --help` で使い方を確かめてください。"
    return f"引数が合わない（{message}）ので、`{prog} --help` で使い方を確かめてください。"


#: Characters a line must not start with (Japanese line-breaking rules, the common part).
_NO_LINE_START = set("、。，．・：；？！ー」』）］｝〉》】〕’”ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々,.:;!?)]}")
_TOKEN = re.compile(r"\s+|[\x00-\u10ff]+?(?=\s|[^\x00-\u10ff]|$)|.", re.DOTALL)


def _cells(text: str) -> int:
    """Terminal columns: East Asian wide and fullwidth characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_cells(text: str, width: int) -> list[str]:
    """Wrap by terminal columns, breaking at spaces or between Japanese characters.

    textwrap breaks only at spaces and counts every character as one column, so Japanese help
    (few spaces, two columns a character) would run past the terminal's edge.
    """
    lines: list[str] = []
    line = ""
    for token in _TOKEN.findall(text):
        if token.isspace():
            if line and _cells(line) + 1 <= width:
                line += " "
            elif line:
                lines.append(line.rstrip())
                line = ""
            continue
        if line and _cells(line) + _cells(token) > width and token[0] not in _NO_LINE_START:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


class JapaneseHelpFormatter(argparse.HelpFormatter):
    """argparse's layout with the Japanese usage prefix and wrapping by terminal columns."""

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, USAGE_PREFIX if prefix is None else prefix)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_cells(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_cells(" ".join(text.split()), width))


@functools.cache
def japanese_formatter(base: type[argparse.HelpFormatter]) -> type[argparse.HelpFormatter]:
    """``base`` (raw description, defaults shown…) with the Japanese usage prefix (one class per base)."""
    if issubclass(base, JapaneseHelpFormatter):
        return base
    return type(f"Japanese{base.__name__}", (JapaneseHelpFormatter, base), {})


class JapaneseParser(argparse.ArgumentParser):
    """An ArgumentParser whose help and usage errors are Japanese, in argparse's own layout.

    A usage error prints the usage line, then ``{prog}: エラー: {one sentence}``, and exits 2.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = japanese_formatter(kwargs.get("formatter_class", argparse.HelpFormatter))
        add_help = kwargs.pop("add_help", True)
        kwargs["add_help"] = False  # the Japanese -h is added below
        super().__init__(*args, **kwargs)
        self._positionals.title = POSITIONALS_TITLE
        self._optionals.title = OPTIONALS_TITLE
        if add_help:
            prefix = "-" if "-" in self.prefix_chars else self.prefix_chars[0]
            self.add_argument(prefix + "h", prefix * 2 + "help", action="help", help=HELP_HELP)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        if kwargs.get("action") == "version":
            kwargs.setdefault("help", VERSION_HELP)
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {ERROR_LABEL}: {usage_error_sentence(self.prog, message)}\n")
