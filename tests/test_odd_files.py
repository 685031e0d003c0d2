"""Files that are not plain documents: links that loop and folders named like documents are each
one located drift (or one sentence for build), never an internal error."""

from __future__ import annotations

from pathlib import Path

from conftest import run_mdmark


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text(
        'index: index.yaml\ndocs:\n  include: ["docs/**/*.md"]\nbuild:\n  include: ["docs/**/*.md"]\n  out: dist/d.html\n',
        encoding="utf-8",
    )
    (root / "index.yaml").write_text(
        "docs:\n  - {id: a, path: docs/a.md, title: A}\n  - {id: d, path: docs/dir.md, title: D}\n", encoding="utf-8"
    )
    (root / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (root / "docs" / "dir.md").mkdir()
    (root / "docs" / "c.md").symlink_to("b.md")
    (root / "docs" / "b.md").symlink_to("c.md")
    return root


def test_check_reports_each_as_a_located_drift(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_mdmark("check", cwd=root)
    assert result.returncode == 1
    assert "内部のエラー" not in result.stderr
    lines = result.stdout.splitlines()
    assert (
        "index.yaml:docs[1].path: missing_doc: 文書 `docs/dir.md` はファイルではなくフォルダなので、"
        "そのフォルダの中の Markdown のファイルを path に書いてください。"
    ) in lines
    for name in ("b", "c"):
        assert (
            f"docs/{name}.md: syntax: `{name}.md` のリンクが輪になっていて行き着くファイルが無いので、リンクを張り直すか消してください。"
        ) in lines


def test_build_says_one_sentence(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_mdmark("build", cwd=root)
    assert result.returncode == 1
    assert result.stderr.strip().endswith("のリンクが輪になっていて行き着くファイルが無いので、リンクを張り直すか消してください。")
    assert not (root / "dist").exists()
