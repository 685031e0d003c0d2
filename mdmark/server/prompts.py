"""The MCP prompts of ``mdmark serve``: the workflows that compose the tools.

The tools do one checked thing each; a prompt is the recipe that strings them together (write a
document, fix drift, review a change, explain a document), so an agent does not skip the index or
the check. In Claude Code each prompt is the slash command ``/mcp__plugin_mdmark_mdmark__<name>``.

Every tool a prompt text names goes through :func:`tool_call` or :func:`tool_name`, which look the
tool and its arguments up in the tool registry: a renamed tool or argument makes the rendering fail
(and the tests with it) instead of leaving a stale prompt. The registry is read at each
``prompts/get``, so ``explain_doc`` names the agent-reading tools (``outline``, ``read_doc``) as soon
as they are registered and falls back to ``find_docs`` while they are not.

The per-kind fixes of ``fix_drift`` are read from the guide page ``check`` (its table
「種類ごとの直し方」), so the prompt and the guide prescribe the same fix.

:func:`render_prompt` knows nothing of MCP; :func:`register_prompts` adds the two protocol
handlers to the low-level server.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mdmark.core.diagnostics import DRIFT_KINDS, DriftKind
from mdmark.guide.reader import guide_entries
from mdmark.tools.registry import TOOLS_BY_NAME, internal_error_message
from mdmark.declare.tool import ToolSpec
from mdmark.util.sentences import close_note
from mdmark.util.text import quote_list, terminal_safe

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

logger = logging.getLogger("mdmark.server")

#: How Claude Code names a prompt of the plugin's server as a slash command.
SLASH_PREFIX = "/mcp__plugin_mdmark_mdmark__"

Tools = Mapping[str, ToolSpec]


class PromptError(Exception):
    """A prompt name or argument the server cannot take; the message is one Japanese sentence."""


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class PromptSpec:
    """One prompt as ``prompts/list`` shows it, plus the function that writes its text."""

    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    render: Callable[[dict[str, str], Tools], str]

    @property
    def slash_command(self) -> str:
        return SLASH_PREFIX + self.name


# -- naming tools in a prompt text ----------------------------------------------------------------


def tool_name(tools: Tools, name: str) -> str:
    """```name```, after making sure the tool is registered."""
    if name not in tools:
        raise LookupError(f"prompt names the tool {name!r}, which is not registered")
    return f"`{name}`"


def tool_call(tools: Tools, name: str, arguments: Mapping[str, Any] | None = None) -> str:
    """```name {JSON}```: a call the agent can make as written (``<…>`` marks a value to fill in).

    The arguments must be the tool's own and include every required one.
    """
    tool_name(tools, name)
    spec = tools[name]
    given = dict(arguments or {})
    unknown = [key for key in given if key not in spec.properties]
    missing = [key for key in spec.required if key not in given]
    if unknown or missing:
        raise LookupError(f"prompt calls {name} with unknown {unknown} / without required {missing}")
    return f"`{name} {json.dumps(given, ensure_ascii=False)}`"


HEADER = (
    "ツールは MCP サーバー mdmark のもの（Claude Code では名前の前に mcp__plugin_mdmark_mdmark__ が付く）です。"
    "`ツール {引数}` の形の所は、その引数の JSON で呼びます。<…> は自分で埋める値です。"
    "ツールがエラーを返したら、その 1 文の直し方に従います。"
)


def _lines(*parts: str) -> str:
    return "\n".join(parts) + "\n"


# -- write_doc -----------------------------------------------------------------------------------


def split_tags(raw: str) -> list[str]:
    """Tags as one slash-command word: separated by ``,`` or ``、`` (a space would end the argument)."""
    return [tag.strip() for tag in re.split(r"[,、，]", raw) if tag.strip()]


def _write_doc(args: dict[str, str], tools: Tools) -> str:
    topic = args["topic"]
    tags = split_tags(args.get("tags", ""))
    chosen = tags or ["<選んだタグ>"]
    asked = f"利用者が挙げたタグ（{quote_list(tags)}）も語彙にあるか確かめ、別名は語彙の name に直します。" if tags else ""
    item = {
        "path": "<索引のファイルからの相対パス>",
        "title": "<文書の最初の見出しと同じ題>",
        "description": "<何について書き、何が分かるかの 1 行>",
        "tags": [{"name": "<主題のタグ>", "main": True}, "<ほかのタグ>"],
        "related": [{"to": "<土台にした文書の ID>", "type": "requires", "when": "<この関連をたどる場面>"}],
    }
    return _lines(
        f"mdmark の文書を 1 つ書き、索引に載せ、点検が通るまで仕上げてください。主題: {topic}",
        "",
        HEADER,
        "",
        "1. 書き方を読む: "
        + tool_call(tools, "read_guide", {"names": ["write-index", "notation"]})
        + "。索引の書き方（write-index）と、文書に使える記法（notation）が分かります。",
        "2. タグの語彙を見る: "
        + tool_call(tools, "list_tags", {})
        + "。タグは語彙にあるものから選び、主題のタグを 1 つ決めます。"
        + asked,
        "3. 関係する文書を探す: "
        + tool_call(tools, "find_docs", {"text": topic, "view": "full"})
        + " と "
        + tool_call(tools, "find_docs", {"any_tags": chosen, "include": ["path"]})
        + "。主題が長くて当たらないときは、短い語に分けて "
        + tool_name(tools, "find_docs")
        + " の text を替えて引き直します。next_cursor があれば、同じ条件に `cursor` を足して続きを引きます。当たった文書のファイルを読み、すでに書かれた内容は書き直さずにリンクします。",
        "4. 文書を書く: ほかの文書と同じフォルダに Markdown のファイルを作ります（設定の docs があれば、その include に当たるパス）。"
        "最初の行は `# 題` の見出し 1 つにし、記法は notation のとおりにし、関係する文書へは Markdown のリンク（[題](相手のパス)）を張ります。",
        "5. 索引に載せる: "
        + tool_call(tools, "update_index", {"kind": "doc", "id": "<新しい ID（英小文字・数字・-）>", "item": item}),
        "   - title は文書の最初の見出しと 1 文字も違えません（違うと `title_mismatch`）。",
        "   - related には、この文書が土台にする文書（`requires`・`part_of`）と参照する文書（`references`）を書きます。"
        "関連は片側だけに書きます（逆向きは "
        + tool_name(tools, "find_docs")
        + " の relations が出します）。",
        "   - `change_together` の組にするときだけは両側に書きます。相手の項目も "
        + tool_call(tools, "update_index", {
            "kind": "doc",
            "id": "<相手の ID>",
            "item": {
                "path": "<今の path>",
                "title": "<今の title>",
                "related": ["<今の related の要素を全て>", "<新しい文書への change_together の組（to・type・when）>"],
            },
        })  # fmt: skip
        + " で置き換えます（項目ごと置き換わるので、tags・aliases・description なども今の値を全て入れます。今の値は索引のファイルで確かめます）。",
        "   - 語彙に無いタグがどうしても要るときは、利用者に確かめてから、先に "
        + tool_call(tools, "update_index", {"kind": "tag", "id": "<タグの name>", "item": {"description": "含める: … 含めない: … 例: …"}})
        + " で語彙に足します。",
        "6. 点検する: "
        + tool_call(tools, "check", {})
        + "。issues が空の並びになるまで、各行の message の直し方に従って直し、"
        + tool_call(tools, "check", {})
        + " を呼び直します。点検を飛ばして終えてはいけません。",
        "7. 書いた文書のパス・ID・タグ・関連を、利用者に報告します。",
    )


# -- fix_drift -----------------------------------------------------------------------------------

#: Which tool (or which file) each kind's fix goes through; the fix itself is the guide's.

_LINK = re.compile(r"\[([^\]]+)\]\(([^)#\s]+)\.md(?:#[^)]*)?\)")


def guide_fixes() -> dict[str, str]:
    """Kind -> the fix the guide page ``check`` gives (:attr:`DriftKind.fix`), links as page names."""
    names = {entry.name for entry in guide_entries()}

    def page_name(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"{match.group(1)}（使い方集の {name}）" if name in names else match.group(1)

    return {kind.value: _LINK.sub(page_name, kind.fix) for kind in DriftKind}


def _fix_drift(args: dict[str, str], tools: Tools) -> str:
    kind = args.get("kind")
    kinds = [kind] if kind else list(DRIFT_KINDS)
    fixes = guide_fixes()
    named = {name: tool_name(tools, name) for name in ("update_index", "find_docs", "check")}
    rows = [f"   - `{k}`: {fixes[k]}。{DriftKind.of(k).agent.format(**named)}" for k in kinds]
    target = f"ずれのうち kind が `{kind}` のもの" if kind else "全てのずれ"
    only = f"kind が `{kind}` の行だけを直します（ほかの種類は直さず、最後に件数だけ伝えます）。" if kind else ""
    return _lines(
        f"mdmark の点検で見つかる{target}を、使い方集の直し方で直してください。",
        "",
        HEADER,
        "",
        "1. 点検する: "
        + tool_call(tools, "check", {})
        + "。issues の各行は file（設定のフォルダからのパス）・where（行の番号かキーのパス）・kind（ずれの種類）・message（何が合わないかと直し方の 1 文）です。"
        + only
        + "issues が空の並びなら、ずれは無いと伝えて終えます。",
        "2. 行ごとに、message と、種類ごとの次の直し方（使い方集の check。全文は "
        + tool_call(tools, "read_guide", {"names": ["check"]})
        + "）で直します:",
        *rows,
        "3. 索引は "
        + tool_call(tools, "update_index", {
            "kind": "doc",
            "id": "<where の項目の ID>",
            "item": {"path": "<今の path>", "title": "<直した title>", "tags": ["<今の tags の要素を全て>"]},
        })  # fmt: skip
        + " で直します（例は title を直すとき）。項目ごと置き換わるので、直さないキーも今の値を全て入れます。今の値は索引のファイルの where の場所で確かめてから渡します（タグの語彙は kind tag、用語は kind term）。"
        "設定ファイルと文書のファイルは直接書き換えます。記法は "
        + tool_call(tools, "read_guide", {"names": ["notation"]})
        + " で確かめます。",
        "4. 直したら "
        + tool_call(tools, "check", {})
        + " を呼び直し、直す対象の行が無くなるまで 2 と 3 を繰り返します。",
        "5. 種類を黙らせて済ませてはいけません: 設定の check.disable に種類を足して行を消すのではなく、直し方で直します。"
        "消す直し（関連・項目・リンクを消す）は、相手が本当に無くなったときだけにします。"
        "どちらに合わせるかを決められないとき（題の食い違い、名前の重なり）は、利用者に尋ねます。",
        "6. 直したずれ（file・kind・直したこと）と、残ったずれを利用者に報告します。",
    )


# -- review_change -------------------------------------------------------------------------------


def _review_change(args: dict[str, str], tools: Tools) -> str:
    base = args["base"]
    return _lines(
        f"基準 `{base}` からの変更を、mdmark の索引と文書の目で見直し、直すべき所を提案してください。",
        "",
        HEADER,
        "",
        "1. 点検する: "
        + tool_call(tools, "check", {"base": base})
        + "。基準を引けないというエラーなら、その文のとおりに ref を確かめ、利用者に尋ねます。",
        "2. kind が `missed_change_together` の行ごとに: message が、変わった側のファイルと、変わっていない組の相手を示します。"
        + tool_call(tools, "find_docs", {"related_to": "<変わった側の文書の ID>", "view": "full"})
        + " で相手の行の relations を見て、組の when（この組を一緒に直す場面）を読みます。"
        f"変わった側の差分（`git diff {base} -- <パス>`）のうち相手に響く点を説明し、相手の文書に入れる直し（どの節に何を書くか）を具体的に提案します。",
        f"3. 変わった文書を集める: `git diff --name-only {base}` と `git status --porcelain`（まだコミットしていない変更と、git が追跡していない新しいファイル）のうち、索引の文書のパスに当たるもの。"
        "索引の文書の ID とパス（索引のファイルからの相対パス）は "
        + tool_call(tools, "find_docs", {"view": "standard", "limit": 100})
        + " で見ます（next_cursor があれば、`cursor` を足して続きを引きます）。",
        "4. 変わった文書ごとに "
        + tool_call(tools, "find_docs", {"related_to": "<その文書の ID>", "view": "standard"})
        + " を呼び、関係する文書を relations（direction・type・when）と一緒に並べます。"
        "変更がその when に当たる相手ごとに、直す必要があるかと、直すならどこをどう直すかを提案します。"
        "本文のリンクと名前の出現だけの関係（type が null）は、変えた名前・見出し・パスが相手から参照されているときに挙げます。",
        "5. ほかの種類の行（`missed_change_together` 以外）も、message の直し方を添えて並べます。",
        "6. 報告: 変わった文書ごとに「変更の要点・関係する文書・提案する直し」をまとめます。"
        "ファイルと索引は、利用者が頼むまで書き換えません。",
    )


# -- explain_doc ---------------------------------------------------------------------------------

#: Argument names an agent-reading tool may use for "which document" and "which section".
_TARGET_NAMES = ("id", "doc", "target", "path", "file", "uri")
_SECTION_NAMES = ("section", "heading", "anchor")


def _pick(spec: ToolSpec, names: tuple[str, ...], *, required_first: bool) -> str | None:
    if required_first:
        required = [name for name in spec.required if name not in ("config", "format")]
        if required:
            return required[0]
    return next((name for name in names if name in spec.properties), None)


def reading_tools(tools: Tools) -> tuple[str, str | None, str | None] | None:
    """``(document argument, read_doc's document argument, read_doc's section argument)`` of the
    agent-reading tools, or None when ``outline`` is not registered (or takes no document)."""
    outline = tools.get("outline")
    if outline is None:
        return None
    target = _pick(outline, _TARGET_NAMES, required_first=True)
    if target is None:
        return None
    read_doc = tools.get("read_doc")
    if read_doc is None:
        return target, None, None
    return target, _pick(read_doc, _TARGET_NAMES, required_first=True), _pick(read_doc, _SECTION_NAMES, required_first=False)


def _explain_doc(args: dict[str, str], tools: Tools) -> str:
    doc_id = args["id"]
    reading = reading_tools(tools)
    steps = [
        "1. 関係をたどる: "
        + tool_call(tools, "find_docs", {"related_to": doc_id, "view": "full"})
        + "。ID が索引に無いというエラーなら、示された近い ID を利用者に確かめます。",
    ]
    if reading is None:
        steps.append(
            "2. 文書を読む: "
            + tool_call(tools, "find_docs", {"view": "standard", "limit": 100})
            + f" で ID が `{doc_id}` の行のパス（索引のファイルからの相対パス）を見て（無ければ next_cursor を `cursor` に渡して続きを引く）、"
            "そのファイルを読み、見出しの並びで文書の骨組みをつかみます。"
        )
    else:
        target, read_target, section = reading
        steps.append(
            "2. 見出しを見る: "
            + tool_call(tools, "outline", {target: doc_id})
            + "。見出しの並びと長さで、文書の骨組みをつかみます。"
        )
        if read_target is not None:
            read_args = {read_target: doc_id, **({section: "<最初の節の見出し>"} if section else {})}
            steps.append(
                "3. 要る所だけを読む: "
                + tool_call(tools, "read_doc", read_args)
                + "。冒頭の節と、関係の説明に要る節だけを読みます。"
            )
    n = len(steps) + 1
    steps += [
        f"{n}. 説明する: 初めて読む人に向けて、次の順に書きます。",
        "   - この文書は何についての文書で、どんな節から成るか（見出しごとに 1 行）。",
        "   - 先に読む文書: relations の direction が outgoing で type が `requires`（土台）と `part_of`（全体）の相手。",
        "   - 合わせて読む文書: `references` と `referenced_by`、type が null の関係（本文のリンクと名前の出現）。",
        "   - この文書に頼る文書: `required_by` と `has_part`。変えるときに一緒に直す文書: `change_together`。古い版と新しい版: `replaces` と `replaced_by`。",
        "   - 各相手には、題と、索引に書かれた when（その関係をたどる場面）を添えます。",
        f"{n + 1}. 最後に、次に読む文書を 3〜5 件、読む順に、理由を 1 行ずつ添えて勧めます。文書は書き換えません。",
    ]
    return _lines(f"文書 `{doc_id}` を、初めて読む人に説明してください。", "", HEADER, "", *steps)


# -- the declarations ----------------------------------------------------------------------------

PROMPTS: tuple[PromptSpec, ...] = (
    PromptSpec(
        name="write_doc",
        title="文書を書く",
        description=(
            "関係する文書とタグの語彙を先に調べ、使い方集の記法で文書を書き、update_index で索引に載せ、"
            "check が空になるまで直す手順。"
        ),
        arguments=(
            PromptArgument("topic", "書く文書の主題（空白を入れない 1 語。例: 解析のキャッシュ）", required=True),
            PromptArgument("tags", "付けたいタグ。複数は , か 、で区切る（例: 設計,性能）。省くと語彙から選ぶ"),
        ),
        render=_write_doc,
    ),
    PromptSpec(
        name="fix_drift",
        title="ずれを直す",
        description=(
            "check を呼び、ずれの種類ごとに使い方集の直し方（と使うツール）で直し、check を呼び直す手順。"
            "種類を黙らせて済ませない。"
        ),
        arguments=(PromptArgument("kind", "直すずれの種類（例: title_mismatch）。省くと全ての種類を直す"),),
        render=_fix_drift,
    ),
    PromptSpec(
        name="review_change",
        title="変更を見直す",
        description=(
            "check に base を渡して直し忘れ（missed_change_together）を説明し、変わった文書ごとに find_docs の "
            "related_to で関係する文書を並べ、直しを提案する手順。"
        ),
        arguments=(PromptArgument("base", "比べる基準の git の ref（例: origin/main）", required=True),),
        render=_review_change,
    ),
    PromptSpec(
        name="explain_doc",
        title="文書を説明する",
        description="文書の見出しの並びと関係（find_docs の related_to）から、初めて読む人に文書と次に読む文書を説明する手順。",
        arguments=(PromptArgument("id", "説明する文書の ID（索引の docs の id）", required=True),),
        render=_explain_doc,
    ),
)

PROMPTS_BY_NAME: dict[str, PromptSpec] = {prompt.name: prompt for prompt in PROMPTS}


def parse_prompt_arguments(spec: PromptSpec, arguments: Mapping[str, str] | None) -> dict[str, str]:
    """The arguments, stripped, with empty optional ones dropped; raises PromptError with one sentence."""
    given = {key: (value or "").strip() for key, value in (arguments or {}).items()}
    known = [argument.name for argument in spec.arguments]
    unknown = [key for key in given if key not in known]
    if unknown:
        named = "・".join(f"`{key}`" + close_note(key, known) for key in unknown)
        allowed = quote_list(known)
        raise PromptError(f"引数 {named} はプロンプト {spec.name} に無いので、外してください（使える引数: {allowed}）。")
    missing = [argument for argument in spec.arguments if argument.required and not given.get(argument.name)]
    if missing:
        whats = "・".join(argument.description for argument in missing)
        raise PromptError(
            f"プロンプト {spec.name} の必須の引数 {quote_list(a.name for a in missing)} が無いので、{whats}を渡してください。"
        )
    values = {key: value for key, value in given.items() if value}
    kind = values.get("kind")
    if spec.name == "fix_drift" and kind is not None and kind not in DRIFT_KINDS:
        raise PromptError(
            f"kind の `{kind}` はずれの種類に無いので、{quote_list(DRIFT_KINDS)} のどれかを渡すか、省いてください"
            f"{close_note(kind, DRIFT_KINDS)}。"
        )
    return values


#: Characters of a prompt's name and of an argument's name; of an argument's value; arguments per call.
MAX_PROMPT_NAME_CHARS = 100
MAX_PROMPT_VALUE_CHARS = 4_000
MAX_PROMPT_ARGUMENTS = 16


def _shown(text: str) -> str:
    text = terminal_safe(text)
    return text if len(text) <= 40 else f"{text[:37]}…"


def bounded_request(name: Any, arguments: Any) -> tuple[str, dict[str, str] | None]:
    """A ``prompts/get`` request's name and arguments as text of bounded length, control characters
    written as escapes; raises PromptError with one sentence for what is not (a client sends any JSON)."""
    if not isinstance(name, str):
        raise PromptError("プロンプトの名前が文字列ではないので、`write_doc` のように名前を文字列で渡してください。")
    if len(name) > MAX_PROMPT_NAME_CHARS:
        raise PromptError(
            f"プロンプトの名前が {len(name):,} 文字あって上限（{MAX_PROMPT_NAME_CHARS} 文字）を超えるので、"
            f"{quote_list(PROMPTS_BY_NAME)} のどれかを渡してください。"
        )
    if arguments is None:
        return name, None
    if not isinstance(arguments, Mapping):
        raise PromptError('プロンプトの引数が名前と値の組ではないので、{"id": "…"} のように渡してください。')
    if len(arguments) > MAX_PROMPT_ARGUMENTS:
        raise PromptError(
            f"プロンプトの引数が {len(arguments):,} 個あって上限（{MAX_PROMPT_ARGUMENTS} 個）を超えるので、要る引数だけを渡してください。"
        )
    out: dict[str, str] = {}
    for key, value in arguments.items():
        if not isinstance(key, str) or len(key) > MAX_PROMPT_NAME_CHARS:
            raise PromptError(
                f"プロンプトの引数の名前 `{_shown(str(key))}` が長すぎるか文字列ではないので、プロンプトの引数の名前を渡してください。"
            )
        if value is None:
            continue
        if not isinstance(value, str):
            raise PromptError(f"プロンプトの引数 `{_shown(key)}` の値が文字列ではないので、文字列で渡してください。")
        if len(value) > MAX_PROMPT_VALUE_CHARS:
            raise PromptError(
                f"プロンプトの引数 `{_shown(key)}` の値が {len(value):,} 文字あって上限（{MAX_PROMPT_VALUE_CHARS:,} 文字）を超えるので、短くしてください。"
            )
        out[key] = terminal_safe(value, keep_newlines=True)
    return name, out


def render_prompt(name: str, arguments: Mapping[str, str] | None, tools: Tools | None = None) -> tuple[PromptSpec, str]:
    """The prompt and its text for these arguments; raises PromptError for a name or argument it cannot take."""
    name, arguments = bounded_request(name, arguments)
    spec = PROMPTS_BY_NAME.get(name)
    if spec is None:
        raise PromptError(
            f"プロンプト `{_shown(name)}` は mdmark に無いので、{quote_list(PROMPTS_BY_NAME)} のどれかを指定してください"
            f"{close_note(name, PROMPTS_BY_NAME)}。"
        )
    values = parse_prompt_arguments(spec, arguments)
    return spec, spec.render(values, TOOLS_BY_NAME if tools is None else tools)


# -- MCP -------------------------------------------------------------------------------------------


def register_prompts(server: Server[Any]) -> None:
    """Add ``prompts/list`` and ``prompts/get`` to the low-level server (HTTP and stdio alike).

    A name or argument the prompt cannot take is a JSON-RPC "invalid params" error with one
    Japanese sentence, as the MCP specification asks of ``prompts/get``.
    """
    import mcp_types
    from mcp.server.context import ServerRequestContext
    from mcp.shared.exceptions import MCPError

    listed = [
        mcp_types.Prompt(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            arguments=[
                mcp_types.PromptArgument(name=a.name, description=a.description, required=a.required)
                for a in spec.arguments
            ],
        )
        for spec in PROMPTS
    ]

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams
    ) -> mcp_types.ListPromptsResult:
        return mcp_types.ListPromptsResult(prompts=listed)

    async def get_prompt(ctx: ServerRequestContext[Any], params: mcp_types.GetPromptRequestParams) -> mcp_types.GetPromptResult:
        try:
            spec, text = render_prompt(params.name, params.arguments)
        except PromptError as exc:
            raise MCPError(mcp_types.INVALID_PARAMS, str(exc)) from None
        except Exception as exc:  # a traceback in front of an agent is a bug: log it, answer one sentence
            logger.exception("prompt %s failed", params.name)
            raise MCPError(mcp_types.INTERNAL_ERROR, internal_error_message(exc)) from None
        return mcp_types.GetPromptResult(
            description=spec.description,
            messages=[mcp_types.PromptMessage(role="user", content=mcp_types.TextContent(text=text))],
        )

    server.add_request_handler("prompts/list", mcp_types.PaginatedRequestParams, list_prompts)
    async def bounded_prompts(ctx: Any, call_next: Any) -> Any:
        # Before the SDK's own validation of the request, which answers a wrong type in English.
        if ctx.method == "prompts/get":
            params = ctx.params if isinstance(ctx.params, Mapping) else {}
            try:
                bounded_request(params.get("name"), params.get("arguments"))
            except PromptError as exc:
                raise MCPError(mcp_types.INVALID_PARAMS, str(exc)) from None
        return await call_next(ctx)

    server.middleware.append(bounded_prompts)
    server.add_request_handler("prompts/get", mcp_types.GetPromptRequestParams, get_prompt)
