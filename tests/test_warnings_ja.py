"""Japanese all the way: docutils/MyST/Sphinx messages become one Japanese sentence everywhere.

* every sentence check, export and build say on the golden projects (tests/fixtures/, tests/roots/)
  is free of English docutils/MyST text (names stay as code spans);
* check and export say the same sentence for the same problem (syntax, missing images);
* math cut short and a paragraph with an unknown role are never lost silently.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO
from mdmark.builders.build import build_site
from mdmark.check.collect import check
from mdmark.core.errors import MdmarkError
from mdmark.builders.export import export_html
from mdmark.host.warnings_ja import translated, warning_sentence
from mdmark.util.tex import tex_problem

ROOTS = REPO / "tests" / "roots"

#: Every golden project with a config: check's fixtures, the Sphinx extension's roots, the others.
PROJECTS = sorted(
    [p for p in (FIXTURES / "check").iterdir() if (p / "mdmark.config.yaml").is_file()]
    + [p for p in ROOTS.iterdir() if (p / "mdmark.config.yaml").is_file()]
    + [FIXTURES / "references" / "project", FIXTURES / "graph" / "project"],
    key=lambda p: p.relative_to(REPO).as_posix(),
)

#: Words of docutils', MyST's and Sphinx's messages that no Japanese sentence of mdmark contains
#: outside a code span.
ENGLISH = re.compile(
    r"Unknown|[Dd]irective |argument\(s\)|supplied|header level|not found|Duplicate|Invalid|"
    r"Error|expected|[Ii]nterpreted|Footnote|Substitution|allowed|option key|reading it failed"
)
#: Three English words in a row: a message left untranslated.
WORDS = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){2,}")


def english_in(sentence: str) -> str | None:
    """The English text of a sentence outside its code spans (and its leading ``file:line:``)."""
    body = re.sub(r"^[^:\s]+\.(?:md|yaml):\d*:?\s", "", sentence)
    body = re.sub(r"`[^`]*`", "", body)
    found = ENGLISH.search(body) or WORDS.search(body)
    return found.group(0) if found else None


BUILD = 'build:\n  title: 見本\n  include: ["**/*.md"]\n  out: dist/docs.html\n'


def copy(project: Path, tmp: Path) -> Path:
    """A copy of a golden project; one without a build section gets one, so build speaks too."""
    target = tmp / project.name
    shutil.copytree(project, target, ignore=shutil.ignore_patterns("expected*.txt", "dist", "_build"))
    config = target / "mdmark.config.yaml"
    text = config.read_text(encoding="utf-8")
    if not re.search(r"^build:", text, re.M) and re.search(r"^\w+:", text, re.M):
        config.write_text(text.rstrip("\n") + "\n" + BUILD, encoding="utf-8")
    return target


def sentences(project: Path) -> list[str]:
    """What check, build and export (every document) say about a project."""
    said = [issue["message"] for issue in check(project)["issues"]]
    try:
        said += build_site(project)["warnings"]
    except MdmarkError:
        pass  # a project without a build section (or whose config is the drift under test)
    for doc in sorted(project.rglob("*.md")):
        try:
            said += export_html(project, str(doc), str(project / "out.html"), confined=False)["warnings"]
        except MdmarkError:
            pass  # a file export refuses (binary, not UTF-8) says so in one sentence of its own
    return said


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_english_message_reaches_the_user(project: Path, tmp_path: Path) -> None:
    said = sentences(copy(project, tmp_path))
    leftovers = [(s, english_in(s)) for s in said if english_in(s)]
    assert leftovers == []


def test_the_catalog_project_says_every_kind_of_problem(tmp_path: Path) -> None:
    # The fixture written to show the catalog: every line is a translated sentence.
    project = copy(FIXTURES / "check" / "syntax-catalog", tmp_path)
    issues = check(project)["issues"]
    assert len(issues) >= 15
    assert all(not i["message"].startswith("記法の誤りがある（") for i in issues)
    # the names stay as written, as code spans
    text = "\n".join(i["message"] for i in issues)
    for name in ("`notte`", "`code-block`", "`nosuch`", "`tab-item`", "`width`", "{include}", "`unknownrole`", "`lab`"):
        assert name in text


def test_check_and_export_say_the_same_sentences(tmp_path: Path) -> None:
    project = copy(FIXTURES / "check" / "syntax-catalog", tmp_path)
    checked = {f"{i['file']}:{i['where']}: {i['message']}" for i in check(project)["issues"] if i["file"] == "docs/bad.md"}
    exported = set(export_html(project, "docs/bad.md", str(project / "out.html"), confined=False)["warnings"])
    assert checked <= exported


def test_a_missing_image_is_one_sentence_in_check_and_export(tmp_path: Path) -> None:
    project = copy(FIXTURES / "check" / "missing_image", tmp_path)
    (project / "docs" / "a.md").write_text(
        "# 文書 A\n\n![図](nosuch.png)\n\n<img src=\"nohtml.png\" alt=\"x\">\n", encoding="utf-8"
    )
    checked = {i["message"] for i in check(project)["issues"] if i["file"] == "docs/a.md" and i["kind"] == "missing_image"}
    exported = export_html(project, "docs/a.md", str(project / "out.html"), confined=False)["warnings"]
    for written in ("nosuch.png", "nohtml.png"):
        sentence = f"画像 `{written}` のファイルが無いので、パスを直すか、画像のファイルを置いてください。"
        assert sentence in checked
        assert any(w.endswith(sentence) for w in exported), exported


def test_unknown_messages_keep_their_text_in_a_japanese_sentence() -> None:
    assert translated("Some extension said something new") is None
    assert warning_sentence("Some extension said something new.", "myst.role_unknown") == (
        "記法の誤りがある（ライブラリの言葉で「Some extension said something new.」）ので、ロールの名前を直してください。"
    )


@pytest.mark.parametrize(
    ("message", "sentence"),
    [
        (
            "Unknown directive type: 'notte'",
            "知らないディレクティブ `notte` があるので、名前を直すか、そのディレクティブの拡張を有効にしてください。",
        ),
        (
            "'tab-set': Unknown option key: 'x' (allowed: [])",
            "ディレクティブ `tab-set` に知らないオプション `x` があるので、オプションの名前を直すか消してください（このディレクティブはオプションを取りません）。",
        ),
        (
            "Directive 'note': maximum 1 argument(s) allowed, 3 supplied",
            "ディレクティブ `note` は引数は 1 個までなのに 3 個あるので、余る引数を消すか本文に移してください。",
        ),
        (
            "duplicate label intro, other instance in guide",
            "ラベル `intro` が `guide` にもあるので、片方の名前を変えてください。",
        ),
        (
            "'include': Has content, but none permitted",
            "ディレクティブ `include` は本文を取らないので、本文を消すか別の段落にしてください。",
        ),
        (
            "'tab-set': Splitting content across first line and body, when an options block is present, is not recommended",
            "ディレクティブ `tab-set` の本文を 1 行目とオプションの後に分けて書いているので、本文はオプションの後の行にまとめてください。",
        ),
        (
            "All children of a 'tab-set' should be 'tab-item'",
            "ディレクティブ `tab-set` の中身はすべて `tab-item` でなければならないので、ほかの本文を `tab-item` の中に移してください。",
        ),
        (
            "The parent of a 'grid-item' should be a 'grid-row'",
            "ディレクティブ `grid-item` は `grid-row` の中にしか置けないので、`grid-row` の中に移してください。",
        ),
        (
            'The "sidebar" directive may not be used within topics or body elements.',
            "ディレクティブ `sidebar` は箇条書き・表・ほかのディレクティブの中には置けないので、節の直下に移してください。",
        ),
        (
            'Insufficient data supplied (1 row(s)); no data remaining for table body, required by "csv-table" directive.',
            "ディレクティブ `csv-table` の表に見出しの行（`:header-rows:`）のほかの行が無いので、本文の行を足すか `:header-rows:` を減らしてください。",
        ),
        (
            "glossary terms must not be separated by empty lines",
            "用語集（`glossary`）の用語の行の間に空行があるので、1 つの項目の用語の行は続けて書いてください。",
        ),
        (
            "duplicate term description of API, other instance in guide",
            "用語 `API` の説明が `guide` にもあるので、片方を消すか用語の名前を変えてください。",
        ),
        (
            "Directive 'literalinclude': File could not be read: C:\\docs\\x.py",
            "ディレクティブ `literalinclude` が読むファイル `x.py` が無いか読めないので、パスを直すかファイルを置いてください。",
        ),
    ],
)
def test_catalog_entries(message: str, sentence: str) -> None:
    assert translated(message) == sentence


# -- no silent losses ------------------------------------------------------------------------------

BROKEN = """\
# 失われない

数式 {math}`\\frac{1}{` の段落。

本文に {nosuch}`言葉` がある段落。

{nosuch}`段落まるごと`

$$
\\frac{a^{b^{c}}}{d}
$$
"""


def test_broken_math_and_unknown_roles_are_warnings_and_keep_their_text(tmp_path: Path) -> None:
    project = copy(FIXTURES / "check" / "syntax", tmp_path)
    (project / "docs" / "a.md").write_text(BROKEN, encoding="utf-8")
    for other in ("binary.md", "latin1.md"):  # build stops at a file it cannot read
        (project / "docs" / other).unlink()
    out = project / "a.html"
    warnings = export_html(project, "docs/a.md", str(out), confined=False)["warnings"]
    assert "docs/a.md:3: 数式 `\\frac{1}{` を読めない（{ が 1 つ閉じていない）ので、TeX の書き方を直してください。" in warnings
    role = "知らないロール `nosuch` があるので、ロールの名前を直すか、そのロールの拡張を有効にしてください。"
    assert f"docs/a.md:5: {role}" in warnings and f"docs/a.md:7: {role}" in warnings
    page = out.read_text(encoding="utf-8")
    assert '本文に <span class="mdmark-unknown-role">言葉</span> がある段落。' in page
    assert '<span class="mdmark-unknown-role">段落まるごと</span>' in page
    assert "<p></p>" not in page
    # whole math is drawn, cut-short math is shown as written
    assert page.count("<math") == 1
    assert "\\frac{1}{" in page
    built = build_site(project)["warnings"]
    assert any("数式 `\\frac{1}{`" in w for w in built)
    assert any(role in w for w in built)
    # check reports the role (Sphinx warns about it), and the formula the page shows as TeX, with
    # export's sentence (Sphinx does not read TeX, but the page mdmark writes cannot draw it)
    messages = [i["message"] for i in check(project)["issues"] if i["file"] == "docs/a.md"]
    assert messages.count(role) == 2
    assert messages.count("数式 `\\frac{1}{` を読めない（{ が 1 つ閉じていない）ので、TeX の書き方を直してください。") == 1


@pytest.mark.parametrize(
    ("tex", "problem"),
    [
        ("\\frac{1}{", "{ が 1 つ閉じていない"),
        ("a}", "閉じる } が開く { より先にある"),
        ("\\frac{1}", "\\frac の引数が 2 つそろっていない"),
        ("\\sqrt", "\\sqrt の引数が無い"),
        ("\\left( x", "\\left と \\right の数が合わない"),
        ("\\begin{aligned} x", "\\begin と \\end の組が合わない"),
        ("\\frac{a^{b^{c}}}{d}", None),
        ("\\frac12 + \\sqrt[3]{x} + \\{y\\}", None),
        ("\\begin{aligned} a &= b \\\\ c &= \\frac{1}{2} \\end{aligned}", None),
    ],
)
def test_tex_problem(tex: str, problem: str | None) -> None:
    assert tex_problem(tex) == problem
