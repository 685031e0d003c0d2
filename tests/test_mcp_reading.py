"""outline, read_doc and format "toon" through the SDK client against a running ``mdmark serve``.

The server and the client helpers are the ones of ``tests/test_mcp.py``; each test builds its own
project with real images (made with Pillow) so the image blocks can be compared byte for byte or
pixel for pixel.
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import toon_format
from PIL import Image

from mcp import Client
from test_mcp import Served, assert_error, assert_json, call_in, connect, make_project, server  # noqa: F401

pytestmark = pytest.mark.anyio

CONFIG = """\
index: index.yaml
docs:
  include: ["docs/**/*.md"]
markdown:
  extensions: [colon_fence]
  heading_anchors: 3
"""

INDEX = """\
docs:
  - id: design
    path: docs/design.md
    title: 設計
    tags: [設計]
  - id: many
    path: docs/many.md
    title: 画像の多い文書
  - id: huge
    path: docs/huge.md
    title: 長い文書
"""

DESIGN = """\
# 設計

前文。

```md
# コードの中は見出しではない
```

(構成の図)=
## 構成

![構成図](img/diagram.png)

<img src="img/photo.jpg" alt="写真"> と本文

### 詳細

詳細の文。

## 図の一覧

![ベクター](img/logo.svg)

![外](https://example.com/remote.png)

![外へ](../../outside.png)

:::{figure} img/big.png
大きい図
:::

## カード

::::{grid} 1
:::{grid-item-card} カード
:img-top: img/card.gif

本文
:::
::::
"""

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="red"/></svg>\n'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _solid(path: Path, size: tuple[int, int], color: tuple[int, int, int], fmt: str) -> None:
    Image.new("RGB", size, color).save(path, fmt)


def make_reading_project(root: Path) -> Path:
    img = root / "docs" / "img"
    img.mkdir(parents=True)
    (root / "docs" / "notes").mkdir()
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "docs" / "design.md").write_text(DESIGN, encoding="utf-8")
    (root / "docs" / "notes" / "memo.md").write_text("# メモ\n\n## 一つ目\n\n本文。\n", encoding="utf-8")
    many = ["# 画像の多い文書", ""] + [f"![図 {n}](img/n{n:02d}.png)\n" for n in range(12)]
    (root / "docs" / "many.md").write_text("\n".join(many), encoding="utf-8")
    huge = ["# 長い文書", "", "## 短い節", "", "短い。", "", "## 長い節", ""] + ["長い文の行。" * 20] * 500
    (root / "docs" / "huge.md").write_text("\n".join(huge) + "\n", encoding="utf-8")
    _solid(img / "diagram.png", (40, 30), (200, 20, 20), "PNG")
    _solid(img / "photo.jpg", (64, 48), (20, 200, 20), "JPEG")
    _solid(img / "big.png", (3000, 1200), (20, 20, 200), "PNG")
    _solid(img / "card.gif", (16, 16), (255, 255, 0), "GIF")
    for n in range(12):
        _solid(img / f"n{n:02d}.png", (8, 8), (n * 20, 0, 0), "PNG")
    (img / "logo.svg").write_text(SVG, encoding="utf-8")
    # Outside the project root (no git here: the root is the config folder).
    _solid(root.parent / "outside.png", (8, 8), (0, 0, 0), "PNG")
    return root


@pytest.fixture
def reading(tmp_path: Path) -> Path:
    return make_reading_project(tmp_path / "proj")


async def blocks(client: Client, project: Path, **arguments: Any) -> tuple[list[Any], bool]:
    result = await client.call_tool("read_doc", {**arguments, "project_dir": str(project)})
    assert result.structured_content is None
    return list(result.content), bool(result.is_error)


def texts_and_images(content: list[Any]) -> tuple[str, list[tuple[str, bytes]]]:
    """The Markdown text (image notes left out) and the images (MIME type, bytes) in order."""
    text = ""
    images: list[tuple[str, bytes]] = []
    for i, block in enumerate(content):
        if block.type == "image":
            images.append((block.mime_type, base64.b64decode(block.data)))
            continue
        assert block.type == "text"
        follows_note = i > 0 and content[i - 1].type == "text" and content[i - 1].text.startswith("画像 ")
        if block.text.startswith("画像 ") or (follows_note and block.text.startswith("<svg")):
            continue
        text += block.text
    return text, images


def source_lines(path: Path, first: int, last: int) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(keepends=True)[first - 1 : last])


def line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(text) + 1


# -- outline ------------------------------------------------------------------------------------


async def test_outline_of_a_file(server: Served, reading: Path) -> None:  # noqa: F811
    design = reading / "docs" / "design.md"
    async with connect(server) as client:
        data = assert_json(await call_in(client, reading, "outline", target="docs/design.md", format="json"))
        markdown = await call_in(client, reading, "outline", target="docs/design.md")
    total = len(DESIGN.splitlines())
    (doc,) = data["docs"]
    assert data["warnings"] == []
    assert {k: doc[k] for k in ("id", "path", "title", "lines", "chars")} == {
        "id": "design",
        "path": "docs/design.md",
        "title": "設計",
        "lines": total,
        "chars": len(DESIGN),
    }
    rows = doc["headings"]
    # The `#` line inside the code block is not a heading.
    assert [(r["level"], r["text"], r["anchor"]) for r in rows] == [
        (1, "設計", "設計"),
        (2, "構成", "構成"),
        (3, "詳細", "詳細"),
        (2, "図の一覧", "図の一覧"),
        (2, "カード", "カード"),
    ]
    starts = [line_of(design, line) for line in ("# 設計", "## 構成", "### 詳細", "## 図の一覧", "## カード")]
    ends = [total, starts[3] - 1, starts[3] - 1, starts[4] - 1, total]
    # The label line above 構成 belongs to 構成's block, not to the text before it.
    assert [(r["line"], r["end_line"]) for r in rows] == list(zip(starts, ends, strict=True))
    assert design.read_text(encoding="utf-8").splitlines()[starts[1] - 2] == "(構成の図)="
    assert [r["chars"] for r in rows] == [len(source_lines(design, r["line"], r["end_line"])) for r in rows]
    assert [r["images"] for r in rows] == [7, 2, 0, 4, 1]
    assert not markdown.is_error and markdown.structured is None
    lines = markdown.text.splitlines()
    assert lines[0] == f"docs/design.md・ID design・題 設計・{total} 行・{len(DESIGN)} 文字"
    assert lines[1] == "| レベル | 見出し | アンカー | 行 | 文字数 | 画像 |"
    assert lines[4] == f"| 2 | 構成 | 構成 | {starts[1]}-{ends[1]} | {rows[1]['chars']} | 2 |"


async def test_outline_of_a_folder_and_an_id(server: Served, reading: Path) -> None:  # noqa: F811
    async with connect(server) as client:
        folder = assert_json(await call_in(client, reading, "outline", target="docs", format="json"))
        by_id = assert_json(await call_in(client, reading, "outline", target="design", format="json"))
        by_path = assert_json(await call_in(client, reading, "outline", target=str(reading / "docs" / "design.md"), format="json"))
        empty = assert_json(await call_in(client, reading, "outline", target="docs/img", format="json"))
    # Index order first, then the documents the index does not list, by path.
    assert [(d["id"], d["path"]) for d in folder["docs"]] == [
        ("design", "docs/design.md"),
        ("many", "docs/many.md"),
        ("huge", "docs/huge.md"),
        (None, "docs/notes/memo.md"),
    ]
    assert folder["docs"][3]["headings"] == [
        {"level": 1, "text": "メモ", "anchor": "メモ", "line": 1, "end_line": 5, "chars": 18, "images": 0},
        {"level": 2, "text": "一つ目", "anchor": "一つ目", "line": 3, "end_line": 5, "chars": 12, "images": 0},
    ]
    assert by_id == by_path == {"docs": [folder["docs"][0]], "warnings": []}
    assert empty == {"docs": [], "warnings": []}


async def test_outline_toon_decodes_to_the_json_answer(server: Served, reading: Path) -> None:  # noqa: F811
    async with connect(server) as client:
        for target in ("docs", "design", "docs/notes/memo.md"):
            data = assert_json(await call_in(client, reading, "outline", target=target, format="json"))
            toon = await call_in(client, reading, "outline", target=target, format="toon")
            assert not toon.is_error and toon.structured is None
            assert toon_format.decode(toon.text) == data
    # Heading rows are uniform: one table per document; the missing id is null.
    assert toon.text.startswith("docs[1]:\n  - id: null\n    path: docs/notes/memo.md\n")
    assert "    headings[2]{level,text,anchor,line,end_line,chars,images}:\n      1,メモ,メモ,1,5,18,0\n" in toon.text


async def test_outline_errors(server: Served, reading: Path) -> None:  # noqa: F811
    (reading / "docs" / "binary.md").write_bytes(b"\x00\x01")
    (reading.parent / "elsewhere").mkdir()
    async with connect(server) as client:
        assert_error(await call_in(client, reading, "outline", target="desing"), "desing", "`design`")
        assert_error(await call_in(client, reading, "outline", target="../elsewhere"), "外")
        assert_error(await call_in(client, reading, "outline", target="index.yaml"), "index.yaml", ".md")
        assert_error(await call_in(client, reading, "outline", target=""), "target")
        assert_error(await call_in(client, reading, "outline", target=3), "target", "文字列")
        assert_error(await call_in(client, reading, "outline", target="docs/binary.md"), "binary.md", "バイナリ")
        assert_error(await call_in(client, reading, "outline", target="design", format="yaml"), "format", "toon")
        assert_error(await call_in(client, reading, "outline", target="design", config="nothere.yaml"), "nothere.yaml")
        assert_error(await call_in(client, reading, "outline"), "target")
        assert_error(await call_in(client, reading, "outline", target="design", depth=2), "depth")
        # In a folder, an unreadable document is a warning; the others are still listed.
        folder = assert_json(await call_in(client, reading, "outline", target="docs", format="json"))
    assert len(folder["docs"]) == 4
    (warning,) = folder["warnings"]
    assert "binary.md" in warning and warning.endswith("。")


# -- read_doc -----------------------------------------------------------------------------------


async def test_read_doc_section_with_two_images(server: Served, reading: Path) -> None:  # noqa: F811
    design = reading / "docs" / "design.md"
    img = reading / "docs" / "img"
    async with connect(server) as client:
        content, is_error = await blocks(client, reading, target="design", section="構成")
        by_text, _ = await blocks(client, reading, target="docs/design.md", section="## 構成")
    assert not is_error
    assert [b.type for b in content] == ["text", "text", "image", "text", "text", "image", "text"]
    # The section's `(構成の図)=` label line belongs to it (issue 27).
    first, last = line_of(design, "## 構成") - 1, line_of(design, "## 図の一覧") - 1
    text, images = texts_and_images(content)
    assert text == source_lines(design, first, last)
    # The text block before each image ends with the line that holds it.
    assert content[0].text.endswith("![構成図](img/diagram.png)\n")
    assert content[1].text == f"画像 `img/diagram.png`（{line_of(design, '![構成図](img/diagram.png)')} 行目）、40×30 px:"
    assert content[3].text.endswith('<img src="img/photo.jpg" alt="写真"> と本文\n')
    assert images == [
        ("image/png", (img / "diagram.png").read_bytes()),
        ("image/jpeg", (img / "photo.jpg").read_bytes()),
    ]
    assert [b.model_dump() for b in by_text] == [b.model_dump() for b in content]


async def test_read_doc_scales_svg_remote_and_escaping_images(server: Served, reading: Path) -> None:  # noqa: F811
    async with connect(server) as client:
        content, is_error = await blocks(client, reading, target="design", section="図の一覧")
    assert not is_error
    notes = [b.text for b in content if b.type == "text" and b.text.startswith("画像 ")]
    assert len(notes) == 4
    assert "`img/logo.svg`" in notes[0] and "SVG" in notes[0]
    assert "`https://example.com/remote.png`" in notes[1] and "読みに行きません" in notes[1]
    assert "`../../outside.png`" in notes[2] and "外にある" in notes[2]
    assert "`img/big.png`" in notes[3] and "3000×1200 px を 1568×627 px に縮小" in notes[3]
    svg_at = [getattr(b, "text", None) for b in content].index(notes[0]) + 1
    assert content[svg_at].text == SVG
    images = [b for b in content if b.type == "image"]
    assert len(images) == 1  # the remote and the escaping image are not read
    scaled = base64.b64decode(images[0].data)
    assert len(scaled) <= 3_750_000
    with Image.open(io.BytesIO(scaled)) as picture:
        assert picture.size == (1568, 627)
        assert picture.convert("RGB").getpixel((700, 300)) == (20, 20, 200)
    # The remote image and the escaping one stay in the text as written.
    text, _ = texts_and_images(content)
    assert "![外](https://example.com/remote.png)" in text and "![外へ](../../outside.png)" in text


async def test_read_doc_card_image_and_heavy_image(server: Served, reading: Path) -> None:  # noqa: F811
    noise = Image.frombytes("RGB", (1200, 1200), os.urandom(1200 * 1200 * 3))
    noise.save(reading / "docs" / "img" / "noise.png", "PNG")
    assert (reading / "docs" / "img" / "noise.png").stat().st_size > 3_750_000
    (reading / "docs" / "noise.md").write_text("# 雑音\n\n![雑音](img/noise.png)\n", encoding="utf-8")
    async with connect(server) as client:
        card, _ = await blocks(client, reading, target="design", section="カード")
        heavy, is_error = await blocks(client, reading, target="docs/noise.md")
    (gif,) = [b for b in card if b.type == "image"]
    assert gif.mime_type == "image/gif"
    assert base64.b64decode(gif.data) == (reading / "docs" / "img" / "card.gif").read_bytes()
    assert not is_error
    (image,) = [b for b in heavy if b.type == "image"]
    data = base64.b64decode(image.data)
    assert len(data) <= 3_750_000
    with Image.open(io.BytesIO(data)) as picture:
        assert max(picture.size) < 1200 and picture.size[0] == picture.size[1]


async def test_svg_text_counts_toward_the_50000_characters(server: Served, reading: Path) -> None:  # noqa: F811
    body = "".join(f'<rect x="{n}" y="0" width="1" height="1"/>' for n in range(1000))
    big = f'<svg xmlns="http://www.w3.org/2000/svg">{body}</svg>\n'
    assert 30_000 < len(big) < 50_000
    for name in ("one", "two"):
        (reading / "docs" / "img" / f"{name}.svg").write_text(big, encoding="utf-8")
    (reading / "docs" / "svgs.md").write_text("# 図\n\n![一](img/one.svg)\n\n![二](img/two.svg)\n", encoding="utf-8")
    async with connect(server) as client:
        content, is_error = await blocks(client, reading, target="docs/svgs.md")
    assert not is_error
    texts = [b.text for b in content]
    assert texts.count(big) == 1
    assert "`img/two.svg`" in texts[-1] and "50,000" in texts[-1] and "返しません" in texts[-1]
    assert sum(len(t) for t in texts) < 60_000


async def test_read_doc_max_images(server: Served, reading: Path) -> None:  # noqa: F811
    many = reading / "docs" / "many.md"
    async with connect(server) as client:
        default, _ = await blocks(client, reading, target="many")
        three, _ = await blocks(client, reading, target="many", max_images=3)
        none, _ = await blocks(client, reading, target="many", max_images=0)
        fifty, _ = await blocks(client, reading, target="many", max_images=50)
    for content, count in ((default, 10), (three, 3), (none, 0), (fifty, 12)):
        text, images = texts_and_images(content)
        assert len(images) == count
        assert text == many.read_text(encoding="utf-8")  # the rest stay as Markdown text
        assert [data for _, data in images] == [
            (reading / "docs" / "img" / f"n{n:02d}.png").read_bytes() for n in range(count)
        ]
    assert [b.type for b in none] == ["text"]


async def test_read_doc_whole_and_lines(server: Served, reading: Path) -> None:  # noqa: F811
    memo = reading / "docs" / "notes" / "memo.md"
    async with connect(server) as client:
        whole, _ = await blocks(client, reading, target="docs/notes/memo.md")
        part, _ = await blocks(client, reading, target="docs/notes/memo.md", lines="3-4")
        clipped, _ = await blocks(client, reading, target="docs/notes/memo.md", lines="3-99")
    assert [b.text for b in whole] == [memo.read_text(encoding="utf-8")]
    assert [b.text for b in part] == ["## 一つ目\n\n"]
    assert [b.text for b in clipped] == ["## 一つ目\n\n本文。\n"]


async def test_empty_and_headingless_documents(server: Served, reading: Path) -> None:  # noqa: F811
    (reading / "docs" / "empty.md").write_text("", encoding="utf-8")
    (reading / "docs" / "inline.md").write_text("# 埋め込み\n\n![点](data:image/png;base64,iVBORw0KGgo=)\n", encoding="utf-8")
    (reading / "docs" / "plain.md").write_text("見出しの無い文書。\n", encoding="utf-8")
    async with connect(server) as client:
        empty, is_error = await blocks(client, reading, target="docs/empty.md")
        inline, _ = await blocks(client, reading, target="docs/inline.md")
        data = assert_json(await call_in(client, reading, "outline", target="docs/plain.md", format="json"))
    assert not is_error and [(b.type, b.text) for b in empty] == [("text", "")]
    # A data: image is already in the text: no note, no block.
    assert [b.text for b in inline] == [(reading / "docs" / "inline.md").read_text(encoding="utf-8")]
    assert data["docs"] == [
        {"id": None, "path": "docs/plain.md", "title": None, "lines": 1, "chars": 10, "headings": []}
    ]


async def test_included_headings_and_images_have_no_lines_here(server: Served, reading: Path) -> None:  # noqa: F811
    """An ``{include}``d file's headings and images carry that file's lines: they are not rows here."""
    (reading / "docs" / "part.txt").write_text("## 取り込んだ節\n\n![取り込んだ図](img/diagram.png)\n", encoding="utf-8")
    (reading / "docs" / "whole.md").write_text(
        "# 全体\n\n```{include} part.txt\n```\n\n## 自分の節\n\n本文。\n", encoding="utf-8"
    )
    async with connect(server) as client:
        data = assert_json(await call_in(client, reading, "outline", target="docs/whole.md", format="json"))
        content, is_error = await blocks(client, reading, target="docs/whole.md")
    rows = data["docs"][0]["headings"]
    assert [(r["text"], r["line"], r["end_line"], r["images"]) for r in rows] == [("全体", 1, 8, 0), ("自分の節", 6, 8, 0)]
    assert not is_error and [b.type for b in content] == ["text"]


async def test_read_doc_over_50000_characters(server: Served, reading: Path) -> None:  # noqa: F811
    async with connect(server) as client:
        content, is_error = await blocks(client, reading, target="huge")
        short, short_error = await blocks(client, reading, target="huge", section="短い節")
    assert is_error
    (message,) = [b.text for b in content]
    assert "50,000" in message and "outline" in message and "section" in message and message.endswith("。")
    assert not short_error
    assert [b.text for b in short] == ["## 短い節\n\n短い。\n\n"]


async def test_read_doc_errors(server: Served, reading: Path) -> None:  # noqa: F811
    async with connect(server) as client:
        assert_error(await call_in(client, reading, "read_doc", target="docs"), "フォルダ", "outline")
        assert_error(await call_in(client, reading, "read_doc", target="design", section="構"), "構", "outline", "`構成`")
        assert_error(await call_in(client, reading, "read_doc", target="design", lines="3"), "lines", "12-40")
        assert_error(await call_in(client, reading, "read_doc", target="design", lines="9-3"), "lines")
        assert_error(await call_in(client, reading, "read_doc", target="design", lines="900-999"), "lines", "行")
        assert_error(await call_in(client, reading, "read_doc", target="design", section="構成", lines="1-2"), "section", "lines")
        assert_error(await call_in(client, reading, "read_doc", target="design", max_images=51), "max_images", "50")
        assert_error(await call_in(client, reading, "read_doc", target="design", max_images=-1), "max_images")
        assert_error(await call_in(client, reading, "read_doc", target="design", max_images="3"), "max_images", "整数")
        assert_error(await call_in(client, reading, "read_doc", target="design", section=1), "section", "文字列")
        assert_error(await call_in(client, reading, "read_doc", target="nothing"), "nothing")
        assert_error(await call_in(client, reading, "read_doc", target="../outside.png"), "外")
        assert_error(await call_in(client, reading, "read_doc", target="docs/img/logo.svg"), ".md")
        assert_error(await call_in(client, reading, "read_doc", target="design", config="nothere.yaml"), "nothere.yaml")
        assert_error(await call_in(client, reading, "read_doc"), "target")
        assert_error(await call_in(client, reading, "read_doc", target="design", format="json"), "format")


async def test_images_in_the_git_work_tree_are_read_and_links_out_are_not(server: Served, tmp_path: Path) -> None:  # noqa: F811
    """The project root is the git work tree holding the config folder (design.md §9)."""
    top = tmp_path / "repo"
    project = top / "handbook"
    (project / "docs").mkdir(parents=True)
    (top / "assets").mkdir()
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    (project / "mdmark.config.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\n', encoding="utf-8")
    _solid(top / "assets" / "shared.png", (10, 10), (1, 2, 3), "PNG")
    _solid(tmp_path / "secret.png", (10, 10), (9, 9, 9), "PNG")
    (project / "docs" / "link.png").symlink_to(tmp_path / "secret.png")
    (project / "docs" / "a.md").write_text(
        "# A\n\n![共有](../../assets/shared.png)\n\n![リンク](link.png)\n", encoding="utf-8"
    )
    async with connect(server) as client:
        content, is_error = await blocks(client, project, target="docs/a.md")
    assert not is_error
    _, images = texts_and_images(content)
    assert images == [("image/png", (top / "assets" / "shared.png").read_bytes())]
    notes = [b.text for b in content if b.type == "text" and b.text.startswith("画像 ")]
    assert "外にある" in notes[1] and "`link.png`" in notes[1]


# -- the CLI says the same --------------------------------------------------------------------------


async def test_cli_outline_and_read_match_the_tools(server: Served, reading: Path) -> None:  # noqa: F811
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        from conftest import run_mdmark

        return run_mdmark(*args, cwd=reading)

    async with connect(server) as client:
        markdown = await call_in(client, reading, "outline", target="docs")
        toon = await call_in(client, reading, "outline", target="design", format="toon")
        content, _ = await blocks(client, reading, target="design", section="構成")
        error = await call_in(client, reading, "read_doc", target="design", section="無い節")
    done = cli("outline", "docs")
    assert (done.returncode, done.stdout, done.stderr) == (0, markdown.text, "")
    done = cli("outline", "design", "--format", "toon")
    assert (done.returncode, done.stdout) == (0, toon.text + "\n")
    before = sorted(p.relative_to(reading) for p in reading.rglob("*") if ".mdmark_cache" not in p.parts)
    done = cli("read", "design", "--section", "構成")
    assert done.returncode == 0, done.stderr
    shown = [b.text if b.text.endswith("\n") else b.text + "\n" for b in content if b.type == "text"]
    assert done.stdout == "".join(shown)
    done = cli("read", "design", "--section", "無い節")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", error.text + "\n")
    after = sorted(p.relative_to(reading) for p in reading.rglob("*") if ".mdmark_cache" not in p.parts)
    assert after == before  # the CLI writes nothing


# -- format "toon" of find_docs and list_tags --------------------------------------------------------


FIND_QUERIES: list[dict[str, Any]] = [
    {},
    {"tags": ["設計"], "include": ["path"]},
    {"view": "full"},
    {"related_to": "arch"},
    {"limit": 1},
    {"count_only": True},
    {"tags": ["無いタグ"]},
    {"text": "どこにも無い"},
]


async def test_find_docs_and_list_tags_toon_decode_to_the_json_answer(server: Served, tmp_path: Path) -> None:  # noqa: F811
    project = make_project(tmp_path / "proj")
    async with connect(server) as client:
        for query in FIND_QUERIES:
            data = assert_json(await call_in(client, project, "find_docs", **query, format="json"))
            toon = await call_in(client, project, "find_docs", **query, format="toon")
            assert not toon.is_error and toon.structured is None, toon.texts
            assert toon_format.decode(toon.text) == data, query
        for query in ({}, {"query": "設計"}, {"query": "どこにも無い"}):
            data = assert_json(await call_in(client, project, "list_tags", **query, format="json"))
            toon = await call_in(client, project, "list_tags", **query, format="toon")
            assert not toon.is_error and toon.structured is None
            assert toon_format.decode(toon.text) == data, query
        page = await call_in(client, project, "find_docs", limit=1, format="toon")
    # Tables for uniform arrays, null kept in the rows.
    assert "tag_counts[2]{name,count}:\n  設計,2\n  操作,1" in page.text
    assert "hint: 続きがあります。" in page.text
    assert json.loads(json.dumps(toon_format.decode(page.text)))["next_cursor"]
