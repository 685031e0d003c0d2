"""mdmark export / export_html: golden fragments per notation element, page invariants, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REGEN

from html_helpers import FIXTURES, Case, article, normalise, page_problems, png, read_cases, write_cases
from mdmark.core.errors import MdmarkError
from mdmark.builders.export import export_html

NOTATION = FIXTURES / "notation.md"
CASES = read_cases(NOTATION)
_ACTUAL: dict[str, str] = {}

OTHER = "# 他の文書\n\n## 他の節\n\n本文。\n"


@pytest.fixture(scope="module")
def notation_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("notation")
    (root / "other.md").write_text(OTHER, encoding="utf-8")
    (root / "pic.png").write_bytes(png())
    yield root
    if REGEN and len(_ACTUAL) == len(CASES):
        write_cases(NOTATION, [Case(c.name, c.source, _ACTUAL[c.name]) for c in CASES])


def _expected_text(fragment: str, warnings: list[str]) -> str:
    text = normalise(fragment)
    if warnings:
        text += "\n--- warnings\n" + "\n".join(warnings)
    return text


@pytest.mark.parametrize("case", CASES, ids=[c.name.replace(" ", "-") for c in CASES])
def test_notation_golden(case: Case, notation_dir: Path) -> None:
    number = CASES.index(case)
    doc = notation_dir / f"case{number:02d}.md"
    doc.write_text(case.source, encoding="utf-8")
    result = export_html(notation_dir, doc.name)
    page = Path(result["out"]).read_text(encoding="utf-8")
    actual = _expected_text(article(page), result["warnings"])
    _ACTUAL[case.name] = actual
    assert page_problems(page) == []
    if not REGEN:
        assert actual == case.expected.strip()


# -- the page -------------------------------------------------------------------------------------


def test_page_is_self_contained(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(png())
    (tmp_path / "a.md").write_text(
        "# A\n\n![p](pic.png)\n\n```python\nx = 1\n```\n\n::::{tab-set}\n:::{tab-item} 一\n一\n:::\n::::\n",
        encoding="utf-8",
    )
    result = export_html(tmp_path, "a.md")
    assert result["out"] == str((tmp_path / "a.html").resolve())
    page = (tmp_path / "a.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert '<html lang="ja">' in page
    assert "<title>A</title>" in page
    assert "default-src 'none'" in page
    assert ".sd-tab-set>input" in page  # sphinx-design's stylesheet is inline
    assert ".highlight .k" in page or ".highlight .kn" in page  # Pygments colours
    assert "mdmark-main" in page
    assert page_problems(page) == []
    assert result["warnings"] == []


def test_config_lang_and_css(tmp_path: Path) -> None:
    (tmp_path / "mdmark.config.yaml").write_text("html:\n  lang: en\n  css: [extra.css]\n", encoding="utf-8")
    (tmp_path / "extra.css").write_text("body { color: rebeccapurple; }\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\n\n:::{note}\nx\n:::\n", encoding="utf-8")
    page = Path(export_html(tmp_path, "a.md")["out"]).read_text(encoding="utf-8")
    assert '<html lang="en">' in page
    assert "rebeccapurple" in page
    assert '<p class="admonition-title">Note</p>' in page


def test_link_to_sibling_html_from_other_folder(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\n[B の節](b.md#節)\n", encoding="utf-8")
    (tmp_path / "docs" / "b.md").write_text("# B\n\n## 節\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    result = export_html(tmp_path, "docs/a.md", out="out/a.html")
    page = Path(result["out"]).read_text(encoding="utf-8")
    assert 'href="../docs/b.html#節"' in page
    assert result["warnings"] == []


def test_text_that_looks_like_a_placeholder_stays_text(tmp_path: Path) -> None:
    """The private-use characters the writer's placeholders are made of, in a document's text, are
    text: never a link, a title or a toctree, and never a traceback (they indexed past the
    document's references before)."""
    written = "\ue000t3\ue001 と \ue000a0.0123456789abcdef\ue001 と \ue000toc0\ue001"
    (tmp_path / "a.md").write_text(f"# A\n\n{written}\n\n[B](b.md)\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    result = export_html(tmp_path, "a.md")
    body = article(Path(result["out"]).read_text(encoding="utf-8"))
    assert f"<p>{written}</p>" in body
    assert '<a class="reference internal" href="b.html"><span class="xref myst">B</span></a>' in body
    assert result["warnings"] == []


def test_overwrites_existing_html(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "a.html").write_text("<html>old</html>", encoding="utf-8")
    export_html(tmp_path, "a.md")
    assert "<html>old</html>" not in (tmp_path / "a.html").read_text(encoding="utf-8")


def test_warnings_go_to_stderr_in_the_cli(tmp_path: Path, mdmark_cli) -> None:
    (tmp_path / "a.md").write_text("# A\n\n![x](https://example.com/x.png)\n", encoding="utf-8")
    done = mdmark_cli("export", "a.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str((tmp_path / "a.html").resolve())
    assert done.stderr.strip() == (
        "a.md:3: 外の画像 `https://example.com/x.png` は読み込まないので、画像を保存して文書からの相対パスで指してください。"
    )


# -- bad input --------------------------------------------------------------------------------------


def _refused(tmp_path: Path, file: str, out: str | None = None) -> str:
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(MdmarkError) as info:
        export_html(tmp_path, file, out=out)
    assert info.value.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "bad input changed the folder"
    message = info.value.message
    assert "\n" not in message and message.endswith("。")
    return message


def test_missing_file(tmp_path: Path) -> None:
    message = _refused(tmp_path, "nope.md")
    assert "`nope.md`" in message


def test_non_utf8_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes("# 題\n\n本文\n".encode("shift_jis"))
    message = _refused(tmp_path, "a.md")
    assert "UTF-8" in message and "`a.md`" in message


def test_binary_md(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    assert "バイナリ" in _refused(tmp_path, "a.md")


def test_out_pointing_at_a_python_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "tool.py").write_text("print('keep me')\n", encoding="utf-8")
    message = _refused(tmp_path, "a.md", out="tool.py")
    assert "`tool.py`" in message
    assert (tmp_path / "tool.py").read_text(encoding="utf-8") == "print('keep me')\n"


def test_out_html_name_holding_something_else(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "data.html").write_bytes(b"\x00\x01binary")
    _refused(tmp_path, "a.md", out="data.html")
    assert (tmp_path / "data.html").read_bytes() == b"\x00\x01binary"


def test_out_outside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.md").write_text("# A\n", encoding="utf-8")
    message = _refused(project, "a.md", out="../elsewhere.html")
    assert not (tmp_path / "elsewhere.html").exists()
    assert "外" in message


def test_cli_writes_where_its_user_says(tmp_path: Path, mdmark_cli) -> None:
    """``mdmark export -o`` outside the project is the user's choice (design §9); the MCP tool stays confined."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "mdmark.config.yaml").write_text("html:\n  lang: ja\n", encoding="utf-8")
    (project / "a.md").write_text("# A\n", encoding="utf-8")
    desktop = tmp_path / "Desktop"
    done = mdmark_cli("export", "a.md", "-o", str(desktop / "a.html"), cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{(desktop / 'a.html').resolve()}\n"
    assert "<h1>A" in (desktop / "a.html").read_text(encoding="utf-8")
    # The same rule against overwriting what is not an HTML file.
    (desktop / "notes.html").write_bytes(b"\x00\x01binary")
    done = mdmark_cli("export", "a.md", "-o", "../Desktop/notes.html", cwd=project)
    assert done.returncode == 1
    assert "HTML ではない内容があり上書きしない" in done.stderr
    assert (desktop / "notes.html").read_bytes() == b"\x00\x01binary"


def test_input_that_is_not_markdown(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("text\n", encoding="utf-8")
    assert ".md" in _refused(tmp_path, "a.txt")


def test_explicit_config_that_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    with pytest.raises(MdmarkError):
        export_html(tmp_path, "a.md", config="missing.yaml")
    assert not (tmp_path / "a.html").exists()


def test_cli_bad_input_exit_code(tmp_path: Path, mdmark_cli) -> None:
    done = mdmark_cli("export", "nope.md", cwd=tmp_path)
    assert done.returncode == 1
    assert "`nope.md`" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_link_to_a_local_file_and_a_changed_image(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "mdmark.config.yaml").write_text("html:\n  lang: ja\n", encoding="utf-8")
    (tmp_path / "docs" / "spec.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "docs" / "pic.png").write_bytes(png(2, 2))
    (tmp_path / "docs" / "a.md").write_text("# A\n\n[仕様](spec.pdf)\n\n![p](pic.png)\n", encoding="utf-8")
    first = Path(export_html(tmp_path, "docs/a.md", out="a.html")["out"]).read_text(encoding="utf-8")
    assert 'href="docs/spec.pdf"' in first
    (tmp_path / "docs" / "pic.png").write_bytes(png(3, 3))
    second = Path(export_html(tmp_path, "docs/a.md", out="a.html")["out"]).read_text(encoding="utf-8")
    assert first != second
