"""Small answers a user reads as they are (issue 34's small things): ``outline`` of a document the
index does not list, a drift of a whole file in check's text lines, the trust hint's command, and a
formula export cannot draw, reported by check with export's sentence."""

from __future__ import annotations

from pathlib import Path

from conftest import run_mdmark
from mdmark.host.trust import untrusted_sentence


def project(root: Path, extra: dict[str, str]) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (root / "index.yaml").write_text("docs:\n  - id: a\n    path: docs/a.md\n    title: 文書 A\n", encoding="utf-8")
    (root / "docs" / "a.md").write_text("# 文書 A\n\n本文。\n", encoding="utf-8")
    for rel, text in extra.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_outline_of_an_unindexed_document_says_so(tmp_path: Path) -> None:
    root = project(tmp_path, {"docs/plain.md": "見出しの無い文書。\n", "docs/b.md": "# 文書 B\n\n本文。\n"})
    done = run_mdmark("outline", "docs/plain.md", cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "docs/plain.md・索引に無い・見出しが無い・1 行・10 文字"
    assert "null" not in done.stdout
    titled = run_mdmark("outline", "docs/b.md", cwd=root)
    assert titled.stdout.splitlines()[0].startswith("docs/b.md・索引に無い・題 文書 B・")
    indexed = run_mdmark("outline", "a", cwd=root)
    assert indexed.stdout.splitlines()[0].startswith("docs/a.md・ID a・題 文書 A・")


def test_a_drift_of_a_whole_file_has_no_empty_place(tmp_path: Path) -> None:
    root = project(tmp_path, {"docs/b.md": "# 文書 B\n", "mdmark.config.yaml": "index: index.yaml\ndocs:\n  include: ['docs/**']\n"})
    done = run_mdmark("check", cwd=root)
    assert done.stdout.startswith("docs/b.md: unindexed_doc: `docs/b.md` は設定の docs に当たるのに索引に無いので")
    assert "::" not in done.stdout


def test_the_trust_hint_names_no_machine_path() -> None:
    # the default config: `mdmark trust` from the project finds it
    plain = untrusted_sentence("docs/conf.py", None, ())
    assert plain.endswith("中身を確かめて動かしてよければ `mdmark trust` で信頼してください。")
    # another name: given from the config's folder, by its name alone
    named = untrusted_sentence("docs/conf.py", "docs.yaml", ())
    assert named.endswith("よければ設定のフォルダで `mdmark trust --config docs.yaml` で信頼してください。")


def test_the_trust_hint_of_a_config_of_another_name(tmp_path: Path) -> None:
    root = project(tmp_path, {"docs/conf.py": "project = 'x'\nextensions = []\n"})
    (root / "mdmark.config.yaml").rename(root / "docs.yaml")
    (root / "docs.yaml").write_text("index: index.yaml\nsphinx:\n  conf: docs/conf.py\n", encoding="utf-8")
    done = run_mdmark("check", "--config", str(root / "docs.yaml"), cwd=root)
    hint = [line for line in done.stdout.splitlines() if "まだ信頼していない" in line]
    assert len(hint) == 1 and "`mdmark trust --config docs.yaml`" in hint[0], done.stdout + done.stderr
    assert str(root) not in done.stdout


MATH = "# 文書 A\n\n式 $\\frac{1}{$ と $x^2$。\n\n$$\n\\begin{aligned} a \\end{cases}\n$$\n"


def test_check_reports_the_formula_export_cannot_draw(tmp_path: Path) -> None:
    root = project(tmp_path, {"docs/a.md": MATH})
    check = run_mdmark("check", cwd=root)
    assert check.stdout.splitlines() == [
        "docs/a.md:3: syntax: 数式 `\\frac{1}{` を読めない（{ が 1 つ閉じていない）ので、TeX の書き方を直してください。",
        "docs/a.md:5: syntax: 数式 `\\begin{aligned} a \\end{cases}` を読めない（\\begin と \\end の組が合わない）ので、TeX の書き方を直してください。",
    ]
    exported = run_mdmark("export", "docs/a.md", "-o", "a.html", cwd=root)
    assert exported.returncode == 0
    # export says each once, the same sentence at the same line
    assert exported.stderr.splitlines() == [line.replace(": syntax:", ":", 1) for line in check.stdout.splitlines()]
