"""The ``mdmark`` command line: argument parsing only; each command's work is a library function.

The commands that match an MCP tool take that tool's declared parameters (their CLI forms live
next to the JSON Schema in :mod:`mdmark.tools.registry`); the others are declared here. Nothing heavy
is imported, so ``mdmark --help`` and ``mdmark <cmd> --help`` are instant; the command module is
imported only when it runs.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mdmark import __version__
from mdmark.cli.argparse_ja import JapaneseParser

DESCRIPTION = """\
設計文書（Markdown と YAML の索引）を点検し、1 枚の HTML に書き出し、Claude Code 向けの MCP サーバーを動かす。
使い方集: `mdmark guide`（一覧）・`mdmark guide NAME`（本文）。"""


def _config_arg(parser: argparse.ArgumentParser) -> None:
    from mdmark.declare.tool import CONFIG_PARAM, add_cli_argument

    add_cli_argument(parser, CONFIG_PARAM)


def _index_format_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="出力の形式: text（既定、1 文）か json（MCP のツール update_index と同じ結果）",
    )


def build_parser() -> argparse.ArgumentParser:
    # The commands that match an MCP tool take the tool's declared parameters (mdmark.tools.registry).
    from mdmark.tools.registry import add_cli_arguments as tool_args

    parser = JapaneseParser(prog="mdmark", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"mdmark {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=JapaneseParser)
    _document_commands(sub, tool_args)
    _server_commands(sub)
    _reading_commands(sub, tool_args)
    _trust_command(sub)
    return parser


#: ``tools.registry.add_cli_arguments``: a command takes an MCP tool's declared parameters.
ToolArgs = Callable[..., None]


def _document_commands(sub: Any, tool_args: ToolArgs) -> None:
    """init, check, export, build, graph, and the index's tools from the shell (find, tags, index)."""
    p = sub.add_parser("init", help="設定・索引・見本の文書を置く（上書きしない）", description="設定 mdmark.config.yaml・索引 index.yaml・見本の文書 docs/welcome.md を置く。Sphinx の conf.py（DIR・docs/・doc/・docs/source/・doc/source/）があればそのプロジェクトを取り込み、conf.py を読む設定と、今ある Markdown の文書の索引だけを置く（文書には何も書かない）。すでにあるファイルは上書きせず、終了コード 1 で終わる。")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="置くフォルダ（既定: 今のフォルダ）")

    p = sub.add_parser(
        "check",
        help="設定・索引・文書のずれを点検する",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_check_description(),
    )
    tool_args(p, "check")
    p.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text", help="出力の形式（既定: text）")

    p = sub.add_parser("export", help="Markdown を 1 つ、外へ要求しない 1 枚の HTML に書き出す", description="Markdown を 1 つ、外へ要求しない 1 枚の HTML に書き出す。警告は標準エラーに出す。")
    tool_args(p, "export_html")

    p = sub.add_parser("build", help="設定の build の文書を 1 枚の HTML にまとめる", description="設定の build の文書を、目次から行き来できる 1 枚の HTML にまとめる。切れた参照などの警告は標準エラーに出す。")
    tool_args(p, "build_site")

    p = sub.add_parser(
        "graph",
        help="索引の文書の関係図を SVG・DOT・JSON で出す",
        description="索引の文書を箱に、関係（索引の related の種類ごと、本文のリンクと題・別名の出現は薄く）を線にした図を出す。--doc を付けるとその文書のまわりだけを出す。",
    )
    p.add_argument("--format", choices=("svg", "dot", "json"), default=None, help="出力の形式（既定: -o の拡張子から、無ければ svg）")
    p.add_argument("--doc", metavar="ID", help="この ID の文書と、関係のある文書だけを出す")
    p.add_argument("-o", "--out", metavar="OUT", help="書き出すファイル（拡張子は .svg・.dot か .gv・.json。省くと標準出力）")
    _config_arg(p)

    p = sub.add_parser("find", help="索引から文書を探す（MCP の find_docs と同じ）", description="索引から文書を探す。引数と出力は MCP のツール find_docs と同じ。")
    tool_args(p, "find_docs")

    p = sub.add_parser("tags", help="タグの語彙を見る（MCP の list_tags と同じ）", description="タグの語彙を、付いている文書の数つきで返す。引数と出力は MCP のツール list_tags と同じ。")
    tool_args(p, "list_tags")

    p = sub.add_parser("index", help="索引の項目を置き換え・足し・消す（MCP の update_index と同じ）", description="索引の文書・用語・タグの語彙の項目を書き換える。MCP のツール update_index と同じ。")
    isub = p.add_subparsers(dest="index_command", metavar="ACTION", parser_class=JapaneseParser)
    q = isub.add_parser("set", help="項目を置き換える（無ければ末尾に足す）", description="索引の項目を置き換える。その ID の項目が無ければ、その種類の並びの末尾に足す。コメントとほかの項目は変えない。")
    tool_args(q, "update_index", ("kind", "id", "item"))
    _index_format_arg(q)
    tool_args(q, "update_index", ("config",))
    q = isub.add_parser("remove", help="項目を消す", description="索引の項目を消す。コメントとほかの項目は変えない。")
    tool_args(q, "update_index", ("kind", "id"))
    _index_format_arg(q)
    tool_args(q, "update_index", ("config",))
    q = isub.add_parser(
        "add-unindexed",
        help="設定の docs に当たるのに索引に無い文書を足す",
        description="設定の docs に当たるのに索引に無い文書（check の unindexed_doc）を、索引の docs の末尾に足す。ID はパスから、題は最初の見出しから（ほかの文書と同じ見出しは括弧でフォルダを足して区別する）。コメントとほかの項目は変えない。",
    )
    _index_format_arg(q)
    tool_args(q, "update_index", ("config",))


def _server_commands(sub: Any) -> None:
    """The commands that keep running: serve (MCP), lsp, preview."""
    p = sub.add_parser("serve", help="常駐の MCP サーバーを起動する", description="常駐の MCP サーバー（Streamable HTTP、/mcp、セッションなし）を起動する。SIGINT・SIGTERM で止まり終了コード 0、ポートが使われていると終了コード 1。")
    p.add_argument("--port", type=_int, default=None, help="待ち受けるポート（既定: 環境変数 MDMARK_PORT か 8782）")
    p.add_argument("--host", default="127.0.0.1", help="待ち受けるアドレス（既定: 127.0.0.1）")
    p.add_argument("--stdio", action="store_true", help="HTTP ではなく標準入出力で同じツールを出す")
    p.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN", help="Origin ヘッダーを許すオリジン（ブラウザのクライアントを使うときだけ）")
    p.add_argument(
        "--project",
        metavar="DIR",
        help="project_dir を省いたツールの呼び出しと資源の読み出しが使う作業のフォルダ"
        "（既定: --stdio では、いまのフォルダかその上に mdmark.config.yaml があればいまのフォルダ。HTTP では X-Mdmark-Project ヘッダーが優先）",
    )

    p = sub.add_parser(
        "lsp",
        help="言語サーバー（LSP、標準入出力）を起動する",
        description="エディターと Claude Code のための言語サーバーを標準入出力で起動する。点検のずれを診断に、参照の定義・参照元・ホバー・補完・見出しの一覧・ラベルの名前の変更・ずれの直し方を出す。クライアントが終わると終わる。",
    )
    p.add_argument("--stdio", action="store_true", help="標準入出力で話す（既定。クライアントの設定に合わせて付けてもよい）")

    p = sub.add_parser(
        "preview",
        help="まとめたページをブラウザで見せ、保存のたびに作り直す",
        description="設定の build のページ（FILE を渡すとその文書を書き出したページ）を http://127.0.0.1:N/ で見せ、"
        "文書・索引・設定・conf.py・埋め込むファイルの保存のたびに、変わったところだけを作り直して開いているページを読み直させる。"
        "ページの右下に、プロジェクト全体のずれ（mdmark check と同じ行）を出す。SIGINT・SIGTERM で止まり終了コード 0、"
        "ポートが使われていると終了コード 1。",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="見せる Markdown の文書（省くと設定の build のページ）")
    p.add_argument("--port", type=_int, default=None, help="待ち受けるポート（既定: 環境変数 MDMARK_PREVIEW_PORT か 8783）")
    p.add_argument("--open", action="store_true", help="起動したらブラウザでページを開く")
    _config_arg(p)


def _reading_commands(sub: Any, tool_args: ToolArgs) -> None:
    """The reading tools from the shell: guide, outline, read."""
    p = sub.add_parser("guide", help="使い方集を読む（MCP の read_guide と同じ）", description="使い方集を読む。名前を省くと索引（名前・題・説明）を出す。")
    tool_args(p, "read_guide")

    p = sub.add_parser("outline", help="文書の見出しの索引を見る（MCP の outline と同じ）", description="文書・索引の ID・フォルダの見出しの索引（アンカー・行・文字数・画像の数）を出す。引数と出力は MCP のツール outline と同じ。")
    tool_args(p, "outline")

    p = sub.add_parser("read", help="文書を節か行の範囲で読む（MCP の read_doc と同じ）", description="文書の Markdown を、全体・1 つの節・行の範囲で出す。MCP のツール read_doc と同じ範囲を読み、画像はデータの代わりに名前と行の 1 行を出す。何も書き出さない。")
    tool_args(p, "read_doc")


def _trust_command(sub: Any) -> None:
    p = sub.add_parser(
        "trust",
        help="プロジェクトの conf.py を動かしてよいと記録する（MCP には無い）",
        description=(
            "設定の sphinx.conf の conf.py と、それが読み込むプロジェクトの中のモジュールを、今の中身のまま信頼すると"
            "利用者の設定のフォルダ（$XDG_CONFIG_HOME/mdmark/ か ~/.config/mdmark/）に記録する。"
            "信頼するまで conf.py は動かさず、書かれた設定だけを読む。中身が変わると信頼は外れる。"
        ),
    )
    _config_arg(p)
    action = p.add_mutually_exclusive_group()
    action.add_argument("--list", action="store_true", help="信頼しているプロジェクトと、その信頼が今も有効かを出す")
    action.add_argument("--revoke", action="store_true", help="このプロジェクトの信頼を取り消す")
    action.add_argument(
        "--status", action="store_true", help="文書を読む作業プロセスを今守っているもの（OS の Landlock・ネットワーク・メモリと CPU の上限）を出す"
    )


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"値 `{value}` が整数ではない") from None


def _check_description() -> str:
    from mdmark.core.diagnostics import DriftKind

    rows = "\n".join(f"  {kind.value:<27} {kind.description}" for kind in DriftKind)
    return (
        "設定・索引・文書のずれを点検し、1 件 1 行 `{file}:{where}: {kind}: {message}` で出す。\n"
        "設定・索引・文書は書き換えない。設定の check.disable に書いた種類は出さない。\n\n"
        f"ずれの種類（kind）:\n{rows}\n\n"
        "出力の形式: text（1 件 1 行、件数は標準エラー）・json（MCP のツール check と同じ {\"issues\": [...]}）・"
        "github（GitHub Actions の ::warning 注釈。file は GITHUB_WORKSPACE からの相対パス。点検できないときは ::error 注釈）・"
        "sarif（SARIF 2.1.0 のログ。コードスキャンの注釈に使う。パスは github と同じく GITHUB_WORKSPACE から。点検できないときは結果が空で invocations にそのわけ）。\n"
        "--base REF: REF と作業ツリーを git で比べ、コミット済み・未コミットの変更と、無視していない追跡外のファイルを「変わった」とする。\n\n"
        "終了コード: 0 ずれ無し、1 ずれあり、2 点検できない（設定が無い・読めない、索引を YAML として読めない、"
        "--base の ref を引けない・git のリポジトリでない）。"
    )


#: Commands that run until stopped: they keep their zygotes for their life, none is left behind.
SERVING = frozenset({"serve", "lsp", "preview"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "index" and args.index_command is None:
        parser.parse_args(["index", "--help"])
    from mdmark.core.errors import MdmarkError
    from mdmark.util.text import SafeWriter

    # Every output of every command goes through one escape (control characters from a repository).
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeWriter(sys.stdout), SafeWriter(sys.stderr)
    if args.command not in SERVING:
        from mdmark.pipeline import resident

        resident.allow()  # the next command of this project finds the Sphinx application made
    try:
        module = importlib.import_module(f"mdmark.cli.commands.{args.command}")
        code: int = module.run(args)
        return code
    except MdmarkError as exc:
        from mdmark.util.text import terminal_safe

        # Sentences quote names from the repository (file names, titles): no control character reaches the terminal.
        print(terminal_safe(exc.message, keep_newlines=True), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`mdmark check | head`): nothing more to say, and Python must not
        # complain again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a traceback in front of a user is a bug: one sentence instead
        if os.environ.get("MDMARK_DEBUG"):
            raise
        print(
            f"mdmark の内部のエラー（{type(exc).__name__}: {exc}）で止まったので、MDMARK_DEBUG=1 を付けて実行し直し、出たトレースバックを添えて報告してください。",
            file=sys.stderr,
        )
        return 1
    finally:
        sys.stdout, sys.stderr = saved


def entry() -> None:
    """The ``mdmark`` program (the console script and ``python -m mdmark``): :func:`main`, then the
    end of the process without Python's teardown. A run after one edit holds the project's whole
    state (hundreds of megabytes at 14,000 documents), and freeing it object by object took a
    fifth of that run. The exit handlers still run (the pool's workers end, scratch folders go)
    and the output is flushed; where a thread of the run still works, or a profiler or tracer
    watches the process, Python ends it its own way."""
    code = main()
    if (
        sys.getprofile() is None
        and sys.gettrace() is None
        and not any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread())
    ):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or broken stream: Python's exit says it as it does
            pass
        else:
            os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    entry()
