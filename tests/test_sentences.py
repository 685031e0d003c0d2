"""The sentence catalog (:mod:`mdmark.util.sentences`): each family of sentences said in many places
is written once, and no other module writes its own copy."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mdmark.util import sentences

ROOT = Path(__file__).resolve().parent.parent

#: Words that only a sentence of a family builds, and the family's function.
FAMILIES = {
    "近い ": "fix_to / close_fix / close_note / close_choice",
    "（近い": "close_note",
    "はふつうのファイルではないので、別のパス": "output_not_file",
    "索引の文書の ID に無い": "unknown_doc_id",
    "Markdown（.md）のファイルではない": "not_markdown",
    "が見つからないので、パスを直すかファイルを置いて": "missing_file",
    "ファイルの権限を確かめて": "unreadable",
    "はふつうのファイルではない": "not_regular",
    "読める大きさ": "too_big",
    "プロジェクトのルートの外のファイルを指す": "outside_root",
    "リンクが輪になっていて": "link_loop",
}

#: Modules that may hold such words for another reason than saying the sentence.
READERS = {
    # The quick fixes read the close name back out of a drift's sentence.
    "mdmark/queries/navigation/fixes.py": "reads 近い `X` out of a sentence",
    "mdmark/lsp/actions.py": "names the sentence it reads in its docstring",
    # Descriptions of behaviour (tool descriptions, the guide's reader, the prompts) mention the
    # hint in prose; they build no sentence.
    "mdmark/tools/find_docs.py": "tool description",
    "mdmark/tools/read_guide.py": "tool description",
    "mdmark/server/prompts.py": "prompt text",
    "mdmark/core/diagnostics.py": "drift kinds' descriptions",
}


def _string_parts(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal (and literal part of an f-string) with its line, docstrings left out."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out.append((node.lineno, node.value))
    return out


def test_no_module_writes_a_family_sentence_of_its_own() -> None:
    found: list[str] = []
    for path in sorted([*(ROOT / "mdmark").rglob("*.py"), *(ROOT / "sphinx_ext").rglob("*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "mdmark/util/sentences.py" or rel in READERS:
            continue
        for line, text in _string_parts(ast.parse(path.read_text(encoding="utf-8"))):
            for words, family in FAMILIES.items():
                if words in text:
                    found.append(f"{rel}:{line}: `{words}` is the family {family} of mdmark.util.sentences")
    assert not found, "\n".join(found)


def test_the_scan_sees_a_copy() -> None:
    """The scan above would pass on a reader that sees nothing."""
    tree = ast.parse('message = f"近い `{close}` に直すか、"\n')
    assert any("近い " in text for _, text in _string_parts(tree))


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        (sentences.fix_to("b.md", "パスを直すか、", "パス"), "近い `b.md` にパスを直すか、"),
        (sentences.fix_to(None, "パスを直すか、", "パス"), "パスを直すか、"),
        (sentences.fix_to(["a", "b"], "名前を直すか、"), "近い `a`・`b` に直すか、"),
        (sentences.close_fix("apj", ["api", "cli"], "ID を直すか、"), "近い `api` に直すか、"),
        (sentences.close_note("apj", ["api"], "ID"), "（近い ID: `api`）"),
        (sentences.close_note("instal", ["install"]), "（近い名前: `install`）"),
        (sentences.close_note("zzz", ["install"]), ""),
        (sentences.close_choice("dco", ["doc", "term"]), "近い `doc` か、`doc`・`term` のどれかにしてください。"),
        (
            sentences.unknown_doc_id("related_to", "apj", ["api"]),
            "related_to の `apj` は索引の文書の ID に無いので、索引の docs の id（近い ID: `api`）を渡してください。",
        ),
        (
            sentences.unknown_doc_id("related_to", "zzz", ["api"]),
            "related_to の `zzz` は索引の文書の ID に無いので、索引の docs の id を渡してください。",
        ),
        (
            sentences.missing_file("a.png", "画像"),
            "画像 `a.png` が見つからないので、パスを直すかファイルを置いてください。",
        ),
    ],
)
def test_a_family_says_one_sentence(made: str, expected: str) -> None:
    assert made == expected
