"""The command line's basics: help is instant (no heavy imports), `mdmark init` writes a starter
project and never overwrites, and usage errors are one Japanese sentence (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mdmark.cli.argparse_ja import JapaneseParser, usage_error_sentence, wrap_cells
from mdmark.cli.main import build_parser
from mdmark.cli.scaffold import FILES

HEAVY = ("sphinx", "docutils", "mcp", "uvicorn", "myst_parser", "sphinx_design", "starlette", "pydantic", "PIL", "toon_format")

SUBCOMMANDS = [
    ["init"],
    ["check"],
    ["export"],
    ["build"],
    ["graph"],
    ["find"],
    ["tags"],
    ["index"],
    ["index", "set"],
    ["index", "remove"],
    ["serve"],
    ["lsp"],
    ["preview"],
    ["guide"],
    ["outline"],
    ["read"],
    ["trust"],
]


#: argparse's own English words, which must not reach a user.
ENGLISH_ARGPARSE = ("usage:", "options:", "positional arguments", "show this help", "show program's", "error:")


def mdmark(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mdmark", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_every_subcommand_is_declared() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted({c[0] for c in SUBCOMMANDS})  # type: ignore[arg-type]


@pytest.mark.parametrize("args", [[], *SUBCOMMANDS], ids=lambda a: " ".join(a) or "mdmark")
def test_help_exits_zero_without_heavy_imports(args: list[str], tmp_path: Path) -> None:
    """Run the real entry point with --help and list what it imported."""
    script = (
        "import json, sys\n"
        "from mdmark.cli import main as cli\n"
        "try:\n"
        f"    cli.main({[*args, '--help']!r})\n"
        "except SystemExit as exc:\n"
        "    code = exc.code\n"
        "else:\n"
        "    code = 'no exit'\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    report = json.loads(result.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None)
    assert result.stdout.startswith("使い方: mdmark")
    for english in ENGLISH_ARGPARSE:
        assert english not in result.stdout
    heavy = [m for m in report["modules"] if m.split(".")[0] in HEAVY]
    assert heavy == []


def test_help_as_a_user_runs_it(tmp_path: Path) -> None:
    result = mdmark("--help", cwd=tmp_path)
    assert result.returncode == 0
    assert "使い方集" in result.stdout
    for name in ("init", "check", "export", "build", "find", "tags", "index", "serve", "guide"):
        assert name in result.stdout
    assert mdmark(cwd=tmp_path).returncode == 0  # no command: the help, exit 0
    version = mdmark("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("mdmark ")


def test_init_writes_the_three_files(tmp_path: Path) -> None:
    target = tmp_path / "new"
    result = mdmark("init", str(target), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    written = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert written == sorted(rel for rel, _ in FILES) == ["docs/welcome.md", "index.yaml", "mdmark.config.yaml"]
    for rel, text in FILES:
        assert (target / rel).read_text(encoding="utf-8") == text
    assert result.stderr == ""


def test_init_in_the_current_folder(tmp_path: Path) -> None:
    result = mdmark("init", cwd=tmp_path)
    assert result.returncode == 0
    assert (tmp_path / "mdmark.config.yaml").is_file()
    assert result.stdout.splitlines()[-1] == "次は `mdmark check` で点検できます。"


def test_init_elsewhere_says_cd_first_and_the_hint_works(tmp_path: Path) -> None:
    result = mdmark("init", "my notes", cwd=tmp_path)
    assert result.returncode == 0
    # mdmark check looks for the config from the folder it runs in: the hint says where to go first.
    assert result.stdout.splitlines()[-1] == "次は `cd 'my notes'` でそのフォルダに移ってから、`mdmark check` で点検できます。"
    assert mdmark("check", cwd=tmp_path).returncode == 2
    done = mdmark("check", cwd=tmp_path / "my notes")
    assert (done.returncode, done.stderr) == (0, "ずれは見つかりませんでした。\n")


def test_bench_corpus_has_a_help_and_a_usage_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "bench" / "corpus.py"
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage: corpus.py")
    assert list(tmp_path.iterdir()) == []  # --help writes no corpus
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "required: root" in done.stderr


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("existing", [rel for rel, _ in FILES])
def test_init_never_overwrites(tmp_path: Path, existing: str) -> None:
    path = tmp_path / existing
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("mine\n", encoding="utf-8")
    before = _snapshot(tmp_path)
    result = mdmark("init", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == f"`{Path('.') / existing}` がすでにあって上書きしないので、別のフォルダを指定するか、そのファイルを移してください。\n"
    assert _snapshot(tmp_path) == before  # nothing written, nothing changed


def test_init_twice(tmp_path: Path) -> None:
    assert mdmark("init", "p", cwd=tmp_path).returncode == 0
    before = _snapshot(tmp_path)
    again = mdmark("init", "p", cwd=tmp_path)
    assert again.returncode == 1
    assert "p/mdmark.config.yaml" in again.stderr and "上書きしない" in again.stderr
    assert _snapshot(tmp_path) == before


def test_init_into_a_file(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    result = mdmark("init", "afile", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == "`afile` はフォルダではないので、フォルダのパスを指定してください。\n"
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "x"


def test_find_limit_text_gets_the_tool_sentence() -> None:
    # `--limit abc` is left to find_docs, so the shell and the MCP tool say the same sentence.
    project = Path(__file__).parent / "fixtures" / "query" / "project"
    result = mdmark("find", "--limit", "abc", cwd=project)
    assert result.returncode == 1
    assert result.stderr == "limit は 1 以上 100 以下の整数で渡してください（いまは文字列です）。\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["nosuch"], "mdmark: `nosuch` というコマンドは無い（`init`・`check`・`export`・`build`・`graph`・`find`・`tags`・`index`・`serve`・`lsp`・`preview`・`guide`・`outline`・`read`・`trust` のどれか）ので、`mdmark --help` で使い方を確かめてください。"),
        (["check", "--format", "xml"], "mdmark check: `--format` に `xml` は使えない（`text`・`json`・`github`・`sarif` のどれか）ので、`mdmark check --help` で使い方を確かめてください。"),
        (["serve", "--port", "abc"], "mdmark serve: `--port` の値 `abc` が整数ではないので、`mdmark serve --help` で使い方を確かめてください。"),
        (["export"], "mdmark export: 必須の引数 `FILE` が無いので、`mdmark export --help` で使い方を確かめてください。"),
        (["index", "set", "doc", "a"], "mdmark index set: 必須の引数 `--item` が無いので、`mdmark index set --help` で使い方を確かめてください。"),
        (["index", "nope"], "mdmark index: `nope` というコマンドは無い（`set`・`remove`・`add-unindexed` のどれか）ので、`mdmark index --help` で使い方を確かめてください。"),
        (["check", "--config"], "mdmark check: `--config` に値が無いので、`mdmark check --help` で使い方を確かめてください。"),
        (["init", "a", "b"], "mdmark: 知らない引数 `b` があるので、`mdmark --help` で使い方を確かめてください。"),
    ],
)
def test_usage_errors_are_one_japanese_sentence(args: list[str], expected: str, tmp_path: Path) -> None:
    """argparse's layout (the usage line, then ``prog: エラー: message``), in Japanese."""
    result = mdmark(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    prog, sentence = expected.split(": ", 1)
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"使い方: {prog} [-h]")
    assert lines[-1] == f"{prog}: エラー: {sentence}"
    assert all(line.startswith(" ") for line in lines[1:-1])  # the rest of a wrapped usage
    for english in ENGLISH_ARGPARSE:
        assert english not in result.stderr
    assert list(tmp_path.iterdir()) == []  # a usage error changes nothing


def test_unknown_argparse_wording_still_gives_one_sentence() -> None:
    assert usage_error_sentence("mdmark", "something new") == (
        "引数が合わない（something new）ので、`mdmark --help` で使い方を確かめてください。"
    )


def test_a_new_subcommand_is_japanese_without_more_work() -> None:
    """A command another change adds (any formatter class) gets the Japanese words from the parser class."""
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    new = sub.add_parser("newcmd", help="新しいコマンド", description="説明。", formatter_class=argparse.RawDescriptionHelpFormatter)
    new.add_argument("target", help="対象")
    new.add_argument("--flag", action="store_true", help="旗")
    assert isinstance(new, JapaneseParser)
    text = new.format_help()
    assert text.startswith("使い方: mdmark newcmd [-h] [--flag] target\n")
    assert "\n引数:\n  target" in text and "\nオプション:\n  -h, --help" in text
    assert "この使い方を出して終わる" in text
    for english in ENGLISH_ARGPARSE:
        assert english not in text
    assert "新しいコマンド" in parser.format_help()


def test_help_wraps_by_terminal_columns() -> None:
    lines = wrap_cells("使う設定ファイル。省くと今のフォルダから上へ mdmark.config.yaml を探す", 20)
    assert lines == ["使う設定ファイル。省", "くと今のフォルダから", "上へ", "mdmark.config.yaml", "を探す"]
    # A closing mark stays at the end of the line rather than starting the next one.
    assert wrap_cells("あいうえお。かきくけこ", 10) == ["あいうえお。", "かきくけこ"]


def test_missing_config_is_exit_2(tmp_path: Path) -> None:
    result = mdmark("check", cwd=tmp_path)
    assert result.returncode == 2
    assert "mdmark.config.yaml が無いので" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["instal"], "使い方集に `instal`（近い名前: `install`）というページは無いので、"),
        (["exprot"], "使い方集に `exprot`（近い名前: `export`・`sphinx-project`）というページは無いので、"),
        (["nosuch"], "使い方集に `nosuch` というページは無いので、"),
        (["check", "serv", "zzz"], "使い方集に `serv`（近い名前: `serve`）・`zzz` というページは無いので、"),
    ],
)
def test_guide_unknown_name_names_the_close_ones(names: list[str], expected: str, tmp_path: Path) -> None:
    result = mdmark("guide", *names, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == expected + "名前を直してください（全てのページの名前は `mdmark guide` で一覧できます）。\n"
