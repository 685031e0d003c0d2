"""Adopting an existing Sphinx project (issue 33): the config that reads it as ``sphinx-build`` does,
the index of the documents it already has, and the documents that appear later.

``mdmark init`` in a folder with a ``conf.py`` (the folder itself, ``docs/``, ``doc/``,
``docs/source/``, ``doc/source/``) writes :func:`adopted_config` and an index made by
:func:`index_text` — one entry per Markdown document Sphinx reads, its ID from its path, its title
from its first heading (told apart by folder where documents share one: :func:`told_apart`) — and
nothing into the user's documents. ``mdmark index add-unindexed``
(:func:`add_unindexed`) adds the documents of ``docs`` that are not in the index yet, editing the
index as text (:mod:`mdmark.queries.edit_index`): the other items and the comments stay as they are.
"""

from __future__ import annotations

import itertools
import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.core.errors import MdmarkError
from mdmark.index.qualified_title import qualified
from mdmark.project.main import Project
from mdmark.util.files import atomic_write_text, display, read_text
from mdmark.util.globs import match_files
from mdmark.util.text import normalize

if TYPE_CHECKING:
    from mdmark.index.model import Index

#: Where ``mdmark init`` looks for a Sphinx project's conf.py, in this order.
CONF_PLACES: tuple[str, ...] = ("conf.py", "docs/conf.py", "doc/conf.py", "docs/source/conf.py", "doc/source/conf.py")


def find_conf(folder: Path) -> Path | None:
    """The conf.py of a Sphinx project in ``folder`` (the first of :data:`CONF_PLACES`), or None."""
    for place in CONF_PLACES:
        path = folder / place
        if path.is_file() and not path.is_symlink():
            return path
    return None


@dataclass(frozen=True)
class Adoption:
    """What ``mdmark init`` writes for the Sphinx project whose conf.py is ``conf``."""

    conf: Path
    #: conf.py's folder relative to the config folder, "" or ending in "/".
    src: str
    title: str
    lang: str
    #: conf.py's ``exclude_patterns`` (when written as literals), relative to its folder.
    excludes: tuple[str, ...]


def adoption(folder: Path, conf: Path) -> Adoption:
    """The settings of ``conf`` the config repeats, read statically (conf.py is never run here)."""
    from mdmark.host.static_conf import read_conf

    values = read_conf(conf).values
    rel = conf.parent.relative_to(folder).as_posix()
    src = "" if rel == "." else f"{rel}/"
    project = values.get("project")
    language = values.get("language")
    excludes = values.get("exclude_patterns")
    return Adoption(
        conf=conf,
        src=src,
        title=project if isinstance(project, str) and project.strip() else folder.resolve().name,
        lang=language.replace("_", "-") if isinstance(language, str) and language.strip() else "en",
        excludes=tuple(e for e in excludes if isinstance(e, str)) if isinstance(excludes, (list, tuple)) else (),
    )


#: A ``.gitignore`` line whose last part ends in another suffix than ``.md`` (``!.vscode/*.template``).
_OTHER_SUFFIX = re.compile(r"\.(?!md$)[A-Za-z0-9]+$")


def ignored_patterns(folder: Path, src: str) -> list[str]:
    """The Markdown paths under conf.py's folder that the top ``.gitignore`` of ``folder`` names, as
    globs of the config: documents a build writes later (conf.py copying ``CHANGELOG.md`` to
    ``other/changelog.md``), which a fresh clone does not have yet. Only what reads plainly — a
    file's literal path ending in ``.md``, anchored (it has a ``/``) or a bare name (matched in
    every folder); a wildcard (it could match documents git tracks, which it never ignores) or a
    file with negations is left to ``git`` (:func:`~mdmark.util.gitbase.ignored_files`, for the
    files that exist)."""
    path = folder / ".gitignore"
    try:
        text = read_text(path) if path.is_file() else ""
    except MdmarkError:
        return []
    lines = [raw.strip() for raw in text.splitlines()]
    if any(line.startswith("!") and not _OTHER_SUFFIX.search(line) for line in lines):
        return []  # a negation that may take a Markdown file back in: git's reading is the one
    found: list[str] = []
    for line in lines:
        if line.startswith("#") or not line.endswith(".md") or any(c in line for c in "*[]?\\"):
            continue
        if "/" in line.rstrip("/"):
            rel = line.lstrip("/")
            if rel.startswith(src):
                found.append(rel)
        else:
            found.append(f"{src}**/{line}")
    return found


def _flow(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i, ensure_ascii=False) for i in items) + "]"


def adopted_config(found: Adoption, parts: tuple[str, ...] = ()) -> str:
    """The config of an adopted Sphinx project: conf.py names what is read; the documents Sphinx
    leaves out (its ``exclude_patterns``) are left out of ``docs`` too, and so are ``parts``
    (documents without a heading: pieces other documents ``{include}``; documents git ignores,
    which a build writes); MyST keeps Sphinx's defaults."""
    src = found.src
    include = _flow([f"{src}**/*.md"])
    excludes = [f"{src}{p}" for p in found.excludes] + [f"{src}{p.rstrip('/')}/**" for p in found.excludes]
    exclude = f"  exclude: {_flow(excludes)}\n" if excludes else ""
    docs_exclude = f"  exclude: {_flow([*excludes, *parts])}\n" if excludes or parts else ""
    return (
        "# mdmark の設定。キーの説明は使い方集の「設定」（mdmark guide config）。\n"
        f"# Sphinx のプロジェクト（{src}conf.py）を sphinx-build と同じに読む（mdmark guide sphinx-project）。\n"
        "index: index.yaml\n"
        "docs:\n"
        f"  include: {include}\n"
        f"{docs_exclude}"
        "build:\n"
        f"  title: {json.dumps(found.title, ensure_ascii=False)}\n"
        f"  include: {include}\n"
        f"{exclude}"
        "  out: dist/docs.html\n"
        "sphinx:\n"
        f"  conf: {json.dumps(f'{src}conf.py')}\n"
        "# conf.py が決めない MyST の設定は Sphinx の既定のまま（mdmark の既定で補わない）。\n"
        "markdown:\n"
        "  extensions: []\n"
        "  heading_anchors: 0\n"
        "html:\n"
        f"  lang: {json.dumps(found.lang)}\n"
    )


def doc_entries(
    project: Project, paths: list[Path], taken: set[str], names: frozenset[str] = frozenset()
) -> tuple[list[dict[str, str]], list[Path]]:
    """An index entry for each document with a heading: its ID from its path under the source
    folder (unique among ``taken``, which it extends), its title from its first heading — told
    apart (:func:`told_apart`) where that heading is another document's too or one of ``names``
    (the normalised titles, aliases and headings already in the index); and the documents without
    one (a piece other documents ``{include}``, not a page of its own)."""
    index_folder = project.config.index_path.parent if project.config.index_path is not None else project.root
    srcdir = project.source_dir
    found: list[tuple[Path, str, str, str]] = []
    parts: list[Path] = []
    for path, facts in zip(paths, project.facts_for(paths), strict=True):
        if facts.error is None and not (facts.title and facts.title.strip()):
            parts.append(path)
            continue
        try:
            base = path.relative_to(srcdir).with_suffix("").as_posix()
        except ValueError:
            base = path.relative_to(project.root).with_suffix("").as_posix()
        ident, n = base, 2
        while ident in taken:
            ident, n = f"{base}-{n}", n + 1
        taken.add(ident)
        title = facts.title.strip() if facts.title and facts.title.strip() else path.stem
        found.append((path, base, ident, title))
    titles = told_apart([(base, title) for _path, base, _ident, title in found], names)
    entries = [
        {"id": ident, "path": posixpath.relpath(path.as_posix(), index_folder.as_posix()), "title": title}
        for (path, _base, ident, _heading), title in zip(found, titles, strict=True)
    ]
    return entries, parts


def told_apart(docs: list[tuple[str, str]], names: frozenset[str] = frozenset()) -> list[str]:
    """The index titles of ``docs`` (each its path under the source folder without suffix, and its
    first heading): the heading, or — when another of ``docs`` has the same heading, or it is one
    of ``names`` — the heading qualified by its folder (by its path when the folders do not tell
    the documents apart), so that no two names of the index are the same (``alias_conflict``)."""
    groups: dict[str, list[int]] = {}
    for i, (_base, heading) in enumerate(docs):
        groups.setdefault(normalize(heading), []).append(i)
    titles = [heading for _base, heading in docs]
    used = set(names) | set(groups)
    for key, members in groups.items():
        if len(members) < 2 and key not in names:
            continue
        folders = [posixpath.dirname(docs[i][0]) for i in members]
        by_folder = all(folders) and len(set(folders)) == len(folders)
        for i, folder in zip(members, folders, strict=True):
            base, heading = docs[i]
            # A path is unique among the documents, so only a name already in the index makes it count on.
            candidates = itertools.chain([folder] if by_folder else [], [base], (f"{base} {n}" for n in itertools.count(2)))
            title = next(c for c in (qualified(heading, q) for q in candidates) if normalize(c) not in used)
            used.add(normalize(title))
            titles[i] = title
    return titles


def index_text(entries: list[dict[str, str]]) -> str:
    """A new index holding ``entries`` (block style, one key a line)."""
    lines = ["# 索引。キーの説明は使い方集の「索引」（mdmark guide index）。", "docs:" if entries else "docs: []"]
    for entry in entries:
        first = True
        for key in ("id", "path", "title"):
            lines.append(f"  {'- ' if first else '  '}{key}: {json.dumps(entry[key], ensure_ascii=False)}")
            first = False
    return "\n".join(lines) + "\n"


def unindexed_paths(project: Project) -> list[Path]:
    """The Markdown files of the config's ``docs`` that no entry of the index names (check's ``unindexed_doc``)."""
    from mdmark.index.model import load_index

    docset = project.config.docs
    index_path = project.config.index_path
    if docset is None or index_path is None:
        return []
    index = load_index(index_path, project.root)
    named = {index.doc_file(doc).resolve() for doc in index.docs}
    found = match_files(project.root, docset.include, docset.exclude)
    return [p for p in found if p.suffix == ".md" and p.resolve() not in named]


def add_unindexed(start: Path, config: str | None = None) -> dict[str, Any]:
    """Add every unindexed document of ``docs`` to the index (at the end of its ``docs``), editing
    the index as text: ``{"index", "added": [ids]}``."""
    from mdmark.index.model import load_index
    from mdmark.queries.edit_index import edit_index_text, locked

    project = Project.open(start, config)
    index_path = project.config.index_path
    if index_path is None:
        raise MdmarkError(f"設定 `{project.config.shown}` に index が無いので、index に索引のファイルを書いてください。")
    if not index_path.is_file():
        raise MdmarkError(f"索引 `{display(index_path, project.start)}` が無いので、index のパスを直すか索引を置いてください。")
    if project.config.docs is None:
        raise MdmarkError(f"設定 `{project.config.shown}` に docs が無く索引に足す文書が決まらないので、docs.include を書いてください。")
    shown = display(index_path, project.start)
    project.ensure_writable_target(index_path)
    with locked(index_path):
        paths = unindexed_paths(project)
        index = load_index(index_path, project.root)
        taken = {doc.id for doc in index.docs}
        entries, parts = doc_entries(project, paths, taken, _index_names(project, index) if paths else frozenset())
        text = read_text(index_path)
        for entry in entries:
            _action, text = edit_index_text(text, "doc", entry["id"], {"path": entry["path"], "title": entry["title"]}, shown)
        if entries:
            atomic_write_text(index_path, text)
    return {"index": shown, "added": [e["id"] for e in entries], "untitled": [display(p, project.start) for p in parts]}


def _index_names(project: Project, index: Index) -> frozenset[str]:
    """The normalised names the index already has: its documents' titles, aliases and first headings
    (a document told apart keeps its bare heading out of the titles, yet another one with that
    heading must be told apart too)."""
    names = {normalize(name) for doc in index.docs for name in doc.names}
    files = [path for path in index.doc_files() if path.is_file()]
    names.update(normalize(facts.title) for facts in project.facts_for(files) if facts.error is None and facts.title)
    return frozenset(names)
