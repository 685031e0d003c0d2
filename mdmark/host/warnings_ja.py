"""docutils, MyST and Sphinx warnings as Japanese sentences: one table, one function.

Sphinx reads documents in English, so every warning it, docutils or MyST logs is English text.
:func:`warning_sentence` turns the common ones into the one Japanese sentence (what does not
match, how to fix it) that check, export, build and the MCP tools all show; the directive, role
or option name stays as it was written, as a code span. A message no pattern knows keeps its
English text inside a Japanese sentence, with the fix its warning type suggests (an uncommon
extension's own warning is better shown than lost).

The patterns match the first line of a message (:func:`mdmark.host.session._warning_of` keeps only
that line); tests/test_warnings_ja.py holds each one to the message the installed docutils/MyST/
Sphinx really writes.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

Fields = dict[str, str]


@dataclass(frozen=True)
class Entry:
    """One kind of message: its pattern (searched in the message) and the sentence it becomes."""

    pattern: re.Pattern[str]
    sentence: Callable[[Fields], str]


def _entry(pattern: str, sentence: str | Callable[[Fields], str]) -> Entry:
    make = sentence if callable(sentence) else sentence.format_map
    return Entry(re.compile(pattern), make)


def _names(raw: str) -> str:
    """``['a', 'b']`` (a Python list as docutils/MyST print it) as ```a`・`b```."""
    found = re.findall(r"'([^']*)'|\"([^\"]*)\"", raw)
    names = [a or b for a, b in found]
    return "・".join(f"`{n}`" for n in names) if names else f"`{raw.strip()}`"


def _path(raw: str) -> str:
    """A file path from a message: unquoted, and only its name when Sphinx made it absolute (the
    user wrote it relative; the absolute form shows this machine's folders)."""
    path = raw.strip().strip("'\"").rstrip(".")
    return posixpath.basename(path.replace("\\", "/")) if path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) else path


def _option_keys(fields: Fields) -> str:
    allowed = fields.get("allowed")
    choice = f"使えるのは {_names(allowed)} です" if allowed and allowed.strip("[] ") else "このディレクティブはオプションを取りません"
    return (
        f"ディレクティブ `{fields['directive']}` に知らないオプション {_names(fields['keys'])} があるので、"
        f"オプションの名前を直すか消してください（{choice}）。"
    )


def _arguments(fields: Fields) -> str:
    need, given = fields["need"], fields["given"]
    return (
        f"ディレクティブ `{fields['directive']}` には引数が {need} 個要るのに {given} 個なので、"
        f"`{{{fields['directive']}}}` の後に引数を {need} 個書いてください。"
    )


def _too_many(fields: Fields) -> str:
    most = fields["most"]
    rule = "引数を取らない" if most == "0" else f"引数は {most} 個まで"
    return (
        f"ディレクティブ `{fields['directive']}` は{rule}なのに {fields['given']} 個あるので、"
        "余る引数を消すか本文に移してください。"
    )


def _header(fields: Fields) -> str:
    start, end = int(fields["from"]), int(fields["to"])
    return (
        f"見出しのレベルが H{start} から H{end} へ飛んでいるので、H{start + 1} にするなど 1 段ずつ下げてください。"
    )


#: The messages mdmark knows, most specific first (the first match wins).
CATALOG: tuple[Entry, ...] = (
    # -- directives ----------------------------------------------------------------------------
    _entry(
        r"^Unknown directive type:? [\"'](?P<name>[^\"']+)[\"']",
        "知らないディレクティブ `{name}` があるので、名前を直すか、そのディレクティブの拡張を有効にしてください。",
    ),
    _entry(
        r"^[\"']?(?P<directive>[\w:.-]+)[\"']?: Unknown option keys?: (?P<keys>\[[^\]]*\]|'[^']*'|\"[^\"]*\")"
        r"(?: \(allowed: (?P<allowed>\[[^\]]*\])\))?",
        _option_keys,
    ),
    _entry(
        r"^[\"']?(?P<directive>[\w:.-]+)[\"']?: Invalid option value for [\"'](?P<option>[^\"']+)[\"']: (?P<value>.*?)(?::|$)",
        "ディレクティブ `{directive}` のオプション `{option}` の値 `{value}` が正しくないので、その書式に合う値に直してください。",
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: (?P<need>\d+) argument\(s\) required, (?P<given>\d+) supplied",
        _arguments,
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: maximum (?P<most>\d+) argument\(s\) allowed, (?P<given>\d+) supplied",
        _too_many,
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: (?:[Nn]o content permitted|[Hh]as content, but none permitted)",
        "ディレクティブ `{directive}` は本文を取らないので、本文を消すか別の段落にしてください。",
    ),
    _entry(
        r"^[\"']?(?P<directive>[\w:.-]+)[\"']?: Splitting content across first line and body, when an options block is present",
        "ディレクティブ `{directive}` の本文を 1 行目とオプションの後に分けて書いているので、本文はオプションの後の行にまとめてください。",
    ),
    _entry(
        r"^The [\"'](?P<directive>[^\"']+)[\"'] directive may not be used within (?:topics|sidebars|body elements)",
        "ディレクティブ `{directive}` は箇条書き・表・ほかのディレクティブの中には置けないので、節の直下に移してください。",
    ),
    _entry(
        r"^All children of an? [\"'](?P<parent>[^\"']+)[\"'] should be [\"'](?P<child>[^\"']+)[\"']",
        "ディレクティブ `{parent}` の中身はすべて `{child}` でなければならないので、ほかの本文を `{child}` の中に移してください。",
    ),
    _entry(
        r"^The parent of an? [\"'](?P<child>[^\"']+)[\"'] should be an? [\"'](?P<parent>[^\"']+)[\"']",
        "ディレクティブ `{child}` は `{parent}` の中にしか置けないので、`{parent}` の中に移してください。",
    ),
    _entry(
        r"^Invalid directive argument: (?P<detail>.+)",
        "ディレクティブの引数がそのディレクティブの求める形でない（sphinx-design の言葉で「{detail}」）ので、引数を直してください。",
    ),
    _entry(
        r"^Insufficient data supplied \((?P<rows>\d+) row\(s\)\); no data remaining for table body, "
        r"required by [\"'](?P<directive>[^\"']+)[\"'] directive",
        "ディレクティブ `{directive}` の表に見出しの行（`:header-rows:`）のほかの行が無いので、本文の行を足すか `:header-rows:` を減らしてください。",
    ),
    _entry(
        r"^glossary terms? must not be separated by empty lines",
        "用語集（`glossary`）の用語の行の間に空行があるので、1 つの項目の用語の行は続けて書いてください。",
    ),
    _entry(
        r"^glossary term must be preceded by empty line",
        "用語集（`glossary`）の用語の前に空行が無いので、項目と項目の間に空行を入れてください。",
    ),
    _entry(
        r"^duplicate term description of (?P<term>.+), other instance in (?P<other>\S+)",
        "用語 `{term}` の説明が `{other}` にもあるので、片方を消すか用語の名前を変えてください。",
    ),
    _entry(
        r"^Content block expected for the [\"'](?P<directive>[^\"']+)[\"'] directive; none found",
        "ディレクティブ `{directive}` の本文が空なので、本文を書いてください。",
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: Content block expected, but none found",
        "ディレクティブ `{directive}` の本文が空なので、本文を書いてください。",
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: Invalid options (?:format|YAML)",
        "ディレクティブ `{directive}` のオプションの書き方（`:名前: 値` の行か YAML）が崩れているので、書き直してください。",
    ),
    _entry(
        r"^Error parsing content block for the [\"'](?P<directive>[^\"']+)[\"'] directive",
        lambda f: (
            "ディレクティブ `list-table` の本文が 2 段の箇条書きになっていないので、行ごとに `* -` で始まる箇条書きにしてください。"
            if f["directive"] == "list-table"
            else f"ディレクティブ `{f['directive']}` の本文がそのディレクティブの求める形になっていないので、本文の書き方を直してください。"
        ),
    ),
    _entry(
        r"^Error in [\"'](?P<directive>[^\"']+)[\"'] directive:?",
        "ディレクティブ `{directive}` の引数かオプションが正しくないので、その書き方を直してください。",
    ),
    # -- included files ----------------------------------------------------------------------------
    _entry(
        r"^Problems with [\"'](?P<directive>[^\"']+)[\"'] directive path",
        "ディレクティブ `{directive}` が読むファイルが無いか読めないので、パスを直すかファイルを置いてください。",
    ),
    _entry(
        r"^(?:Directive )?[\"']?(?P<directive>[\w:.-]+)[\"']?: File could not be read: (?P<path>.*)",
        lambda f: f"ディレクティブ `{f['directive']}` が読むファイル `{_path(f['path'])}` が無いか読めないので、パスを直すかファイルを置いてください。",
    ),
    _entry(
        r"^Include file (?P<path>.+?) not found or reading it failed",
        lambda f: f"ディレクティブ `literalinclude` が読むファイル `{_path(f['path'])}` が無いか読めないので、パスを直すかファイルを置いてください。",
    ),
    _entry(
        r"^Directive [\"'](?P<directive>[^\"']+)[\"']: file not found: (?P<path>.+)",
        lambda f: f"ディレクティブ `{f['directive']}` が読むファイル `{_path(f['path'])}` が無いので、パスを直すかファイルを置いてください。",
    ),
    _entry(
        r"^Too many autonumbered footnote references",
        "脚注の参照に当たる脚注の定義が無いので、`[^名前]: …` の定義を書くか参照を消してください。",
    ),
    # -- roles ----------------------------------------------------------------------------
    _entry(
        r"^Unknown interpreted text role [\"'](?P<name>[^\"']+)[\"']",
        "知らないロール `{name}` があるので、ロールの名前を直すか、そのロールの拡張を有効にしてください。",
    ),
    _entry(
        r"^Unknown target name: [\"'](?P<name>[^\"']+)[\"']",
        "参照先 `{name}` がどこにも無いので、名前を直すか参照先を書いてください。",
    ),
    # -- headings ----------------------------------------------------------------------------
    _entry(r"^Non-consecutive header level increase; H(?P<from>\d) to H(?P<to>\d)", _header),
    _entry(
        r"^Document headings start at H(?P<level>\d), not H1",
        "文書の最初の見出しが H{level} なので、# の 1 つの H1 から始めてください。",
    ),
    # -- labels, targets, footnotes ------------------------------------------------------------
    _entry(
        r"^Duplicate (?:explicit|implicit)? ?target name: [\"'](?P<name>[^\"']+)[\"']",
        "ラベル `{name}` が 2 つあるので、片方の名前を変えてください。",
    ),
    _entry(
        r"^duplicate label (?P<name>\S+), other instance in (?P<other>\S+)",
        "ラベル `{name}` が `{other}` にもあるので、片方の名前を変えてください。",
    ),
    _entry(
        r"^[Dd]uplicate (?:footnote )?definition[^'\"]*[\"'](?P<name>[^\"']+)[\"']",
        "定義 `{name}` が 2 つあるので、片方を消すか名前を変えてください。",
    ),
    _entry(
        r"^[Ff]ootnote reference [\[\"']?\^?(?P<name>[^\]\"']+)[\]\"']? (?:not found|has no definition)",
        "脚注 `{name}` の定義が無いので、`[^{name}]: …` の定義を書くか参照を消してください。",
    ),
    _entry(
        r"^Footnote \[(?P<name>[^\]]+)\] is not referenced",
        "脚注 `{name}` はどこからも参照されていないので、参照を書くか定義を消してください。",
    ),
    # -- substitutions, math, markup -----------------------------------------------------------------
    _entry(
        r"^Substitution error:?\s*(?:\w+Error: )?(?:'(?P<name>[^']+)' is undefined)?",
        lambda f: (
            f"置き換え `{f['name']}` が設定に無いので、設定の markdown.substitutions に足すか名前を直してください。"
            if f.get("name")
            else "置き換え（{{ … }}）を組み立てられないので、設定の markdown.substitutions と書き方を直してください。"
        ),
    ),
    _entry(
        r"^Undefined substitution referenced: [\"'](?P<name>.*)[\"']\.?$",
        "置き換え `{name}` が設定に無いので、設定の markdown.substitutions に足すか名前を直してください。",
    ),
    _entry(
        r"^(?:Math|math) (?:block|role)?.*(?:error|could not be parsed)",
        "数式の TeX を読めないので、括弧の対応など TeX の書き方を直してください。",
    ),
    _entry(
        r"^Inline (?P<what>emphasis|strong|literal|interpreted text or phrase reference) start-string without end-string",
        "強調・コード・ロールの始めの記号に閉じる記号が無いので、閉じるか `\\` で記号を逃がしてください。",
    ),
    _entry(
        r"^Document or section may not begin with a transition",
        "文書や節が区切り線（---）で始まっているので、区切り線を消すか前に本文を書いてください。",
    ),
    _entry(
        r"^Invalid (?:context|heading slug)",
        "その行の MyST の書き方が崩れているので、直してください。",
    ),
    _entry(
        r"^Local file reference (?:does not exist|not found|cannot be resolved)?:? ?['\"]?(?P<path>[^'\"]*)['\"]?",
        "リンク先のファイル `{path}` が無いので、パスを直すかファイルを置いてください。",
    ),
    _entry(
        r"^(?:Strikethrough|strikethrough) is (?:currently )?only supported",
        "取り消し線（~~ ~~）は HTML でしか出せないので、取り消し線を使わないでください。",
    ),
    # -- sphinx-design --------------------------------------------------------------------------
    _entry(
        r"card header/footer separators are deprecated",
        "カードの見出しと脚注を分ける `^^^`・`+++` は古い書き方なので、`card-header`・`card-footer` "
        "のディレクティブに書き換えてください（そのままにするなら conf.py の suppress_warnings に "
        "`design.card_legacy` を足してください）。",
    ),
)

#: Sphinx/MyST warning types with a fix more precise than "correct the notation on that line", for
#: messages no entry of :data:`CATALOG` knows.
SYNTAX_FIXES: dict[str, str] = {
    "myst.directive_unknown": "ディレクティブの名前を直すか、その拡張を有効にしてください",
    "myst.directive_parse": "ディレクティブの引数・オプション・本文の書き方を直してください",
    "myst.directive_option": "ディレクティブのオプションを直してください",
    "myst.directive_body": "ディレクティブの本文を直してください",
    "myst.role_unknown": "ロールの名前を直してください",
    "myst.header": "見出しのレベルを 1 段ずつ下げてください",
    "myst.substitution": "設定の markdown.substitutions に置き換えを足すか、参照の名前を直してください",
    "myst.duplicate_def": "重なっている定義を 1 つにしてください",
    "myst.ref": "参照の書き方を直してください",
    "myst.footnote": "脚注の参照と定義を合わせてください",
    "myst.strikethrough": "取り消し線の書き方を直してください",
    "myst.html": "HTML の書き方を直してください",
}


def translated(message: str) -> str | None:
    """The catalog's Japanese sentence for a message's first line, or None when no entry knows it."""
    first = _first_line(message)
    for entry in CATALOG:
        match = entry.pattern.search(first)
        if match is not None:
            fields = {k: v.strip() for k, v in match.groupdict().items() if v is not None}
            return entry.sentence(fields)
    return None


def warning_sentence(message: str, type_: str) -> str:
    """The one sentence for a docutils/MyST/Sphinx warning: the catalog's, or the message quoted
    inside a Japanese sentence with the fix its type suggests."""
    known = translated(message)
    if known is not None:
        return known
    fix = SYNTAX_FIXES.get(type_, "その行の MyST の書き方を直してください")
    return f"記法の誤りがある（ライブラリの言葉で「{_first_line(message).rstrip('。')}」）ので、{fix}。"


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0].strip() if stripped else ""
