"""A synthetic document set for the benchmarks: ``generate(root, n)``.

Writes ``n`` Markdown documents of about 4 KB under ``root/docs/`` — headings, prose, links to
other documents (with and without anchors), code, tables, admonitions, lists, math, and
sphinx-design components in every fifth document — plus ``root/mdmark.config.yaml`` and
``root/docs/index.yaml`` listing every document. Deterministic for a given ``n``.

    python bench/corpus.py /tmp/corpus 500
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

WORDS = (
    "設計 文書 索引 構成 依存 境界 責務 入力 出力 検証 設定 変更 範囲 手順 結果 方針 例外 "
    "module interface cache pipeline request response schema token session handler"
).split()


def _sentence(rng: random.Random, n: int = 14) -> str:
    return "".join(rng.choice(WORDS) + ("、" if rng.random() < 0.15 else " ") for _ in range(n)).strip() + "。"


def _paragraph(rng: random.Random, sentences: int = 3) -> str:
    return " ".join(_sentence(rng) for _ in range(sentences))


def _doc(i: int, n: int, rng: random.Random) -> str:
    other = (i * 7 + 3) % n
    third = (i * 13 + 5) % n
    parts = [
        f"# 文書 {i:04d} の設計\n",
        _paragraph(rng, 4) + "\n",
        f"関連: [文書 {other:04d}](doc{other:04d}.md)、[その構成](doc{third:04d}.md#構成-{third:04d})、"
        f"[この文書の手順](#手順-{i:04d})。\n",
        f"## 構成 {i:04d}\n",
        _paragraph(rng, 3) + "\n",
        "- " + _sentence(rng, 8) + "\n- " + _sentence(rng, 8) + "\n  - " + _sentence(rng, 6) + "\n",
        "| 名前 | 型 | 説明 |\n|---|---|---|\n"
        + "".join(f"| f{j} | int | {_sentence(rng, 5)} |\n" for j in range(4)),
        "```python\n"
        f"def handler_{i}(request: dict) -> dict:\n"
        "    \"\"\"Handle one request.\"\"\"\n"
        "    result = {k: v for k, v in request.items() if v}\n"
        f"    return {{\"id\": {i}, **result}}\n"
        "```\n",
        f"## 手順 {i:04d}\n",
        "1. " + _sentence(rng, 6) + "\n2. " + _sentence(rng, 6) + "\n3. " + _sentence(rng, 6) + "\n",
        ":::{note}\n" + _paragraph(rng, 2) + "\n:::\n",
        "```{warning}\n" + _sentence(rng) + "\n```\n",
        f"### 詳細 {i:04d}\n",
        _paragraph(rng, 3) + "\n",
        "数式 $a^2 + b^2 = c^2$ と脚注[^n]。\n\n[^n]: " + _sentence(rng, 6) + "\n",
        "- [ ] " + _sentence(rng, 5) + "\n- [x] " + _sentence(rng, 5) + "\n",
        "用語\n: " + _sentence(rng, 8) + "\n",
    ]
    if i % 5 == 0:
        parts += [
            "::::{grid} 2\n"
            f":::{{grid-item-card}} 文書 {other:04d}\n:link: doc{other:04d}\n:link-type: doc\n\n{_sentence(rng, 6)}\n:::\n"
            f":::{{grid-item-card}} 概要\n{_sentence(rng, 6)}\n:::\n"
            "::::\n",
            "::::{tab-set}\n"
            f":::{{tab-item}} Python\n```python\nprint({i})\n```\n:::\n"
            f":::{{tab-item}} Shell\n```bash\necho {i}\n```\n:::\n"
            "::::\n",
            ":::{dropdown} 補足\n" + _paragraph(rng, 2) + "\n:::\n",
            "{bdg-primary}`設計` {octicon}`rocket`\n",
        ]
    parts.append(_paragraph(rng, 4) + "\n")
    return "\n".join(parts)


def generate(root: Path, n: int) -> None:
    """Write ``n`` documents, the config and the index under ``root`` (created if missing)."""
    rng = random.Random(20240601 + n)
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    index_lines = ["docs:"]
    for i in range(n):
        (docs / f"doc{i:04d}.md").write_text(_doc(i, n, rng), encoding="utf-8")
        index_lines += [
            f"  - id: doc{i:04d}",
            f"    path: doc{i:04d}.md",
            f"    title: 文書 {i:04d} の設計",
            "    tags: [設計]",
        ]
    (docs / "index.yaml").write_text("\n".join(index_lines) + "\n", encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(
        "index: docs/index.yaml\n"
        "docs:\n  include: [\"docs/**/*.md\"]\n"
        "build:\n  title: ベンチマーク\n  include: [\"docs/**/*.md\"]\n  out: dist/docs.html\n"
        "markdown:\n  extensions: [colon_fence, deflist, tasklist, dollarmath, substitution, attrs_inline]\n"
        "  heading_anchors: 3\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 500)
