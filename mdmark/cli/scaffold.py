"""``mdmark init``: a starter config, index and sample document that check clean — or, in a Sphinx
project, a config that reads its conf.py and an index of the documents it has (:mod:`mdmark.queries.adopt`),
with nothing written into its documents."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from mdmark.config.main import CONFIG_NAME
from mdmark.core.errors import MdmarkError

STARTER_CONFIG = """\
# mdmark の設定。キーの説明は使い方集の「設定」（mdmark guide config）。
index: index.yaml
docs:
  include: ["docs/**/*.md"]
build:
  title: 設計文書
  include: ["docs/**/*.md"]
  out: dist/docs.html
markdown:
  extensions: [colon_fence, deflist, tasklist, dollarmath, substitution, attrs_inline]
  heading_anchors: 3
html:
  lang: ja
"""

STARTER_INDEX = """\
# 索引。キーの説明は使い方集の「索引」（mdmark guide index）。
docs:
  - id: welcome
    path: docs/welcome.md
    title: はじめに
    description: mdmark の文書の書き方の見本
    tags:
      - {name: 案内, main: true}
terms:
  - id: index
    term: 索引
    definition: 文書の ID・題・別名・タグ・関連を並べた YAML のファイル。
    docs: [welcome]
tags:
  - name: 案内
    group: 種類
    description: "含める: 使い方の説明。含めない: 設計の決定。"
"""

STARTER_DOC = """\
# はじめに

この文書は `mdmark init` が置いた見本です。
索引（`index.yaml`）に ID・題・タグを書くと、`mdmark check` が文書とのずれを点検します。

## 書き方

- 見出しの 1 つ目が文書の題です。索引の `title` と同じにします。
- ほかの文書へは `[題](other.md)` や `[節](other.md#見出し)` でリンクします。

:::{note}
`mdmark export docs/welcome.md` で、この文書を 1 枚の HTML に書き出せます。
:::
"""

FILES: tuple[tuple[str, str], ...] = (
    (CONFIG_NAME, STARTER_CONFIG),
    ("index.yaml", STARTER_INDEX),
    ("docs/welcome.md", STARTER_DOC),
)


def init_project(folder: Path) -> list[Path]:
    """Write the starter files into ``folder`` (a Sphinx project's: :func:`adopted_files`);
    refuses (nothing written) if any already exists."""
    from mdmark.queries.adopt import find_conf

    conf = find_conf(folder) if folder.is_dir() else None
    files = adopted_files(folder, conf) if conf is not None else FILES
    return _write_new(folder, files)


def adopted_files(folder: Path, conf: Path) -> tuple[tuple[str, str], ...]:
    """The config and index of the Sphinx project of ``conf``: its documents indexed as they are."""
    from mdmark.project.main import Project
    from mdmark.queries.adopt import adopted_config, adoption, doc_entries, ignored_patterns, index_text
    from mdmark.util.gitbase import ignored_files
    from mdmark.util.globs import match_files

    _refuse_existing(folder, (CONFIG_NAME, "index.yaml"))
    found = adoption(folder, conf)
    config_text = adopted_config(found)
    config_path = folder / CONFIG_NAME
    # The config is not written yet: the project reads it from here (nothing is on disk on failure).
    project = Project.open(folder, config_path, texts={config_path.resolve(): config_text})
    docset = project.config.docs
    paths = [p for p in match_files(project.root, docset.include, docset.exclude) if p.suffix == ".md"] if docset else []
    # Documents git ignores are written by a build (conf.py copying a changelog in): Sphinx reads
    # them and the page has them, but they are no document of the index, so not of ``docs``.
    generated = {p.resolve() for p in ignored_files(conf.parent, "**/*.md")}
    made = [p for p in paths if p.resolve() in generated]
    entries, parts = doc_entries(project, [p for p in paths if p not in made], set())
    left_out = [p.relative_to(project.root).as_posix() for p in [*parts, *made]]
    left_out += [g for g in ignored_patterns(folder, found.src) if g not in left_out]
    if left_out:  # pieces without a heading ({include}d) and generated documents: left out of docs
        config_text = adopted_config(found, tuple(left_out))
    return ((CONFIG_NAME, config_text), ("index.yaml", index_text(entries)))


def _refuse_existing(folder: Path, names: tuple[str, ...]) -> None:
    for name in names:
        path = folder / name
        # lexists: a dangling link counts as there (writing through it would land outside).
        if os.path.lexists(path):
            raise MdmarkError(
                f"`{path}` がすでにあって上書きしないので、別のフォルダを指定するか、そのファイルを移してください。"
            )


def _write_new(folder: Path, files: tuple[tuple[str, str], ...]) -> list[Path]:
    targets = [(folder / rel, text) for rel, text in files]
    _refuse_existing(folder, tuple(rel for rel, _text in files))
    if folder.exists() and not folder.is_dir():
        raise MdmarkError(f"`{folder}` はフォルダではないので、フォルダのパスを指定してください。")
    written: list[Path] = []
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        for path, text in targets:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, 0o666)
            written.append(path)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
    except OSError as exc:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        raise MdmarkError(
            f"`{folder}` に見本を書けない（{exc.strerror}）ので、フォルダの権限を確かめるか別のフォルダを指定してください。"
        ) from None
    return written
