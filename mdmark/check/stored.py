"""The last check's answer, kept with the stamps of everything it depended on.

A warm ``mdmark check`` (nothing changed) used to open every document's cached facts, build the
reference model and run every rule again: most of a second at 1,200 documents, and Sphinx imported
for nothing. Here the answer of a check is stored with the stat stamps of its inputs, and a check
whose inputs all keep their stamps answers from it without reading a document:

* the config file, the index file, every document the check read and every file each document
  pulled in (``{include}``, ``{literalinclude}``, images: :attr:`~mdmark.core.facts.DocFacts.deps`),
  conf.py and the Python files of the project (local extensions, autodoc targets);
* every folder under the project root (and the folder of every file above): a folder's stamp
  changes when a file in it is added, removed or renamed, which covers link targets, images,
  new documents and unindexed ones; with each folder the digest of its names is kept, so a
  folder whose stamp changed but whose names did not (``mdmark build`` replacing its page in
  ``dist/``, an editor's swap file come and gone) still answers from the store;
* the environment: mdmark's version, Python's, the stat of every ``sys.path`` folder (an installed
  or removed extension changes its folder) and the user's mdmark config folder (what is trusted).

A file changed less than :data:`~mdmark.util.files.SETTLED_NS` before the check is not trusted to
keep its stamp through a same-tick edit (git's "racily clean" files). A document just saved — what
a pre-commit hook checks — is kept with the content key of the bytes the check read, once the
bytes on disk are shown to be those; a lookup compares that key again (reading those few files),
so the next check answers from the store however soon it runs. A racy folder is kept when its
names did not change while the check ran (:func:`begin` lists them first). Any other racy input (the
index, an included file) still keeps the answer from being stored. ``--base`` answers are never stored: they depend on git's state; nor are answers with a
document that could not be read (a worker's time bound depends on the machine's load). The entry lives in the
project's cache folder (authenticated, like every cache entry) and in the workspace's memory, so
the MCP server answers a repeated ``check`` from memory after re-reading the stamps.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark import __version__
from mdmark.core.diagnostics import Diagnostic
from mdmark.core.facts import FACTS_VERSION
from mdmark.pipeline.contentcache import ContentCache
from mdmark.util.environment import package_digest, python_path, site_folders
from mdmark.util.files import SETTLED_NS, Stamp, stat_stamp
from mdmark.util.globs import SKIP_DIRS

if TYPE_CHECKING:
    from mdmark.check.rules.context import CheckContext
    from mdmark.project.main import Project
    from mdmark.workspace.main import Entries

#: Bumped when what is stored, or how stamps are taken, changes.
_FORMAT = 3

Stamps = list[tuple[str, tuple[int, ...] | None]]


def _encode(value: dict[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _decode(data: bytes) -> dict[str, Any]:
    value = json.loads(data.decode("utf-8"))
    if not isinstance(value, dict) or value.get("format") != _FORMAT:
        raise ValueError("not a stored check")
    return value


def _cache(project: Project) -> ContentCache[dict[str, Any]] | None:
    if project.config.path is None:
        return None
    return project.workspace.stored_checks(project.cache_dir, _encode, _decode)


def _key(project: Project) -> str:
    # FACTS_VERSION: a change of what the facts hold (a drift's line) changes the answers too; the
    # code digest: an edited checkout of mdmark keeps its version and may answer otherwise.
    material = f"check\0{_FORMAT}\0{__version__}\0{FACTS_VERSION}\0{package_digest()}\0{project.config.path}"
    return hashlib.sha256(material.encode("utf-8", "surrogateescape")).hexdigest()


def _user_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mdmark"


def _environment() -> list[str]:
    """Folders whose stamps stand for the environment: installed packages, ``PYTHONPATH`` (where a
    project's extension or autodoc target may come from) and the user's trust."""
    folders = site_folders()
    extra = python_path()
    user = _user_config_dir()
    files = [str(user / name) for name in sorted(os.listdir(user))] if user.is_dir() else []
    return [*folders, *extra, str(user), *files]


#: With a conf.py, files read for what they define rather than checked: local extensions and
#: autodoc targets, and the project's sources of other suffixes (labels, objects).
_SPHINX_SOURCES = (".py", ".rst", ".txt")


def _tree(root: Path, sphinx: bool) -> tuple[dict[str, str], list[str]]:
    """The folders under ``root`` (skipping caches and VCS folders), each with the digest of the
    names in it (:func:`_digest`, from the same listing), and, for a Sphinx project, the files of
    :data:`_SPHINX_SOURCES` in them."""
    folders: dict[str, str] = {}
    sources: list[str] = []
    for folder, dirs, files in os.walk(root):
        folders[folder] = _digest(dirs, files)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        if sphinx:
            sources.extend(os.path.join(folder, name) for name in sorted(files) if name.endswith(_SPHINX_SOURCES))
    return folders, sources


def _listing(project: Project, sphinx: bool) -> tuple[dict[str, str], list[str]]:
    """:func:`_tree` of the project root, from the workspace's :class:`~mdmark.workspace.main.FileTree`
    (one ``stat`` per folder; a folder's names read and digested again only when they changed)
    when it tracks the root, else by walking it."""
    tree = project.workspace.tree(project.root)
    listed = tree.listing() if tree.root == str(project.root) else None
    if listed is None:
        return _tree(project.root, sphinx)
    key = ("check-folder-names", tree.root)
    last = project.workspace.last_runs.get(key)
    known: dict[str, tuple[Entries, str]] = last if isinstance(last, dict) else {}
    folders: dict[str, str] = {}
    sources: list[str] = []
    made: dict[str, tuple[Entries, str]] = {}
    for folder, entries in listed.items():
        kept = known.get(folder)
        if kept is None or kept[0] is not entries:
            # As os.walk tells them (no links here: a tree with one is not tracked).
            dirs = [name for name, kind in entries if kind != "f"]
            kept = (entries, _digest(dirs, [name for name, kind in entries if kind == "f"]))
        made[folder] = kept
        folders[folder] = kept[1]
        if sphinx:
            sources.extend(os.path.join(folder, name) for name, kind in entries if kind == "f" and name.endswith(_SPHINX_SOURCES))
    project.workspace.last_runs.put(key, made)
    return folders, sources


def _digest(dirs: Iterable[str], files: Iterable[str]) -> str:
    """The digest of a folder's names, its folders told apart (as :func:`os.walk` tells them)."""
    names = sorted([*(f"{name}/" for name in dirs), *files])
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def _names(folder: str) -> str | None:
    """:func:`_digest` of ``folder`` listed now; None: it cannot be listed."""
    dirs: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(entry.name)
    except OSError:
        return None
    return _digest(dirs, files)


def begin(project: Project) -> dict[str, str]:
    """The names in each folder under the project root before a check reads anything: what
    :func:`store` compares with once the check is done (a folder whose names changed meanwhile
    may hold what the check did or did not see: such an answer is not kept)."""
    if project.workspace.pristine():
        # A new process: the file tree comes with the workspace's snapshot, read after this.
        return _tree(project.root, False)[0]
    return _listing(project, False)[0]


def _stamp(paths: Iterable[str], racy: list[str], taken: Mapping[str, Stamp] | None = None) -> Stamps:
    """Each path's stamp (None where it is missing); the paths changed too recently to trust their
    stamps are added to ``racy``. ``taken``: settled stamps already taken of some paths (before the
    check read them: a file changed since then shows a newer stamp to the next lookup)."""
    now = time.time_ns()
    out: Stamps = []
    known = taken or {}
    for path in paths:
        stamp = known.get(path)
        if stamp is not None:
            out.append((path, stamp))
            continue
        try:
            info = os.stat(path)
        except OSError:
            out.append((path, None))
            continue
        if now - info.st_mtime_ns <= SETTLED_NS:
            racy.append(path)
        out.append((path, stat_stamp(info)))
    return out


#: Documents saved within :data:`~mdmark.util.files.SETTLED_NS` of a check that it still stores
#: (each is read and hashed again by the next lookup).
RACY_DOCUMENTS = 16


def _holds(
    path: str, stamp: Iterable[int] | None, racy: dict[str, list[str]], names: dict[str, str], project: Project, now: int
) -> bool:
    """Whether the stored ``stamp`` of ``path`` still holds — settled, or, for a document of ``racy``
    (path → [its relative path, the content key the check read]), with that content key, or, for a
    folder of ``names``, with the same names in it. ``stamp``: a list as read from disk, a tuple as
    :func:`store` keeps it in memory."""
    try:
        info = os.stat(path)
    except OSError:
        return stamp is None
    same = stamp is not None and stat_stamp(info) == tuple(stamp)
    if path in names and (not same or now - info.st_mtime_ns <= SETTLED_NS):
        return _names(path) == names[path]
    if not same:
        return False
    if path in racy:
        return _content_key(project, path, racy[path][0]) == racy[path][1]
    return now - info.st_mtime_ns > SETTLED_NS


def _content_key(project: Project, path: str, rel: str) -> str | None:
    """The cache key of the document's bytes on disk now (None: unreadable)."""
    from mdmark.core.errors import MdmarkError

    try:
        return project.pipeline.sources.read_keyed(Path(path), rel)[0]
    except MdmarkError:
        return None


def _racy_documents(project: Project, ctx: CheckContext, racy: list[str]) -> dict[str, list[str]] | None:
    """For the ``racy`` inputs (changed too recently for their stamps): each one's relative path and
    content key, when each is a document whose bytes on disk are the ones the check read; else None."""
    if len(racy) > RACY_DOCUMENTS:
        return None
    kept: dict[str, list[str]] = {}
    for path in racy:
        facts = ctx.facts.get(Path(path))
        if facts is None or _content_key(project, path, facts.path) != facts.sha:
            return None
        kept[path] = [facts.path, facts.sha]
    return kept


@dataclass(frozen=True)
class _DocumentInputs:
    """The files a check's documents depend on (each document and the files it pulled in), and
    their folders: kept in the workspace for the next check, which reuses them while its documents
    are the same paths with the same included files (after one edit, all but one by identity)."""

    srcdir: str
    paths: tuple[Path, ...]
    deps: tuple[list[tuple[str, Stamp]], ...]
    files: tuple[str, ...]
    folders: frozenset[str]


def _document_inputs(project: Project, ctx: CheckContext) -> _DocumentInputs | None:
    """:class:`_DocumentInputs` of ``ctx``; None when a document lies outside the project root."""
    srcdir = str(project.source_dir)
    paths = tuple(ctx.facts)
    every = ctx.facts.values()
    key = ("check-inputs", str(project.root), str(project.config.path))
    last = project.workspace.last_runs.get(key)
    if (
        isinstance(last, _DocumentInputs)
        and last.srcdir == srcdir
        and len(last.paths) == len(paths)
        and all(p is q for p, q in zip(paths, last.paths))
        and all(f.deps is d or f.deps == d for f, d in zip(every, last.deps))
    ):
        return last
    root = str(project.root) + os.sep
    files: list[str] = []
    for path, facts in ctx.facts.items():
        text = str(path)
        if not text.startswith(root):
            return None
        files.append(text)
        files.extend(os.path.normpath(os.path.join(srcdir, rel)) for rel, _stamp in facts.deps)
    made = _DocumentInputs(
        srcdir, paths, tuple(f.deps for f in every), tuple(files), frozenset(map(os.path.dirname, files))
    )
    project.workspace.last_runs.put(key, made)
    return made


def _inputs(project: Project, ctx: CheckContext) -> tuple[list[str], dict[str, str]] | None:
    """The files and folders the answer depends on, and the names in each folder walked; None when
    a document lies outside the project root (a new file beside it could not be seen by the stamps
    of the folders walked)."""
    config = project.config
    conf = config.sphinx_conf
    files: list[str] = []
    if config.path is not None:
        files.append(str(config.path))
    if ctx.index is not None:
        files.append(str(ctx.index.path))
    if conf is not None:
        files.append(str(conf))
    documents = _document_inputs(project, ctx)
    if documents is None:
        return None
    folders, sources = _listing(project, conf is not None)
    parents = (documents.folders | {os.path.dirname(f) for f in files}) - set(folders)
    return list(dict.fromkeys([*files, *documents.files, *sources, *folders, *sorted(parents)])), folders


def _lapse_noted(project: Project) -> bool:
    """Whether the process that ran a trusted conf.py left a note of a lapse (:mod:`mdmark.host.trust_ran`)."""
    from mdmark.host.trust_ran import NOTE_NAME

    return project.cache_dir is not None and (project.cache_dir / NOTE_NAME).exists()


@dataclass(frozen=True)
class Lookup:
    """What :func:`lookup` found: the stored answer (None: it does not answer) and, when there was a
    stored check to compare with, that check and the first of its inputs that did not hold."""

    answer: list[Diagnostic] | None
    entry: dict[str, Any] | None = None
    stop: int = 0


def _usable(project: Project) -> dict[str, Any] | None:
    """The last stored check of ``project`` made in this environment, or None."""
    cache = _cache(project)
    stored = cache.get(_key(project), slot="check") if cache is not None else None
    if stored is None or stored["environment"] != _environment():
        return None
    return stored


def lookup(project: Project) -> Lookup:
    """The stored answer of ``project``'s check if none of its inputs changed since; stops at the
    first that did (after an edit, the rest need no ``stat``: :func:`changed` goes on from there)."""
    stored = _usable(project)
    if stored is None:
        return Lookup(None)
    if _lapse_noted(project):
        return Lookup(None, stored)  # a run's conf.py went to load an unpinned module: the next check says the trust lapsed
    racy: dict[str, list[str]] = stored["racy"]
    names: dict[str, str] = stored["names"]
    now = time.time_ns()
    for number, (path, stamp) in enumerate(stored["stamps"]):
        if not _holds(path, stamp, racy, names, project, now):
            return Lookup(None, stored, number)
    return Lookup([Diagnostic(d["file"], d["where"], d["kind"], d["message"], d.get("line")) for d in stored["issues"]])


def changed(project: Project, found: Lookup) -> list[str] | None:
    """Every input of the stored check :func:`lookup` compared with that no longer holds (from
    where it stopped: one ``stat`` more each); None when there was no stored check."""
    if found.entry is None:
        return None
    racy: dict[str, list[str]] = found.entry["racy"]
    names: dict[str, str] = found.entry["names"]
    now = time.time_ns()
    stamps = found.entry["stamps"][found.stop :]
    return [path for path, stamp in stamps if not _holds(path, stamp, racy, names, project, now)]


#: Seconds a server waits after a check before writing its stored answer to disk (a next check
#: within them replaces it): a terminal's check in that window answers without the store.
WRITE_DELAY = 0.5


#: Documents changed since the last stored check past which :func:`edited_documents` names none
#: (a branch switched, not an edit: the check reads them all in its workers as it would).
CHANGED_AHEAD = 8


def edited_documents(changes: list[str]) -> list[Path]:
    """The Markdown documents among the ``changes`` of :func:`changed` (at most :data:`CHANGED_AHEAD`,
    else none): what a check after an edit will surely parse."""
    edited = [Path(path) for path in changes if path.endswith(".md")]
    return edited if len(edited) <= CHANGED_AHEAD else []


def store(
    project: Project, ctx: CheckContext, diagnostics: list[Diagnostic], begun: dict[str, str], later: bool = False
) -> None:
    """Keep the answer of a check just run, unless an input is too fresh to trust its stamp, or a
    folder's names changed since :func:`begin` gave ``begun``. ``later``: written to disk
    :data:`WRITE_DELAY` after the last such check, by a thread of its own (a server answers first;
    the process does not end before it is written)."""
    cache = _cache(project)
    if cache is None:
        return
    if any(facts.error is not None for facts in ctx.facts.values()):
        # A document that could not be read may have hit a worker's time or memory bound, which
        # another run may not: such an answer is not kept.
        return
    if _lapse_noted(project):
        return  # answered by a conf.py refused an unpinned module mid-run: the next check says so
    environment = _environment()
    found = _inputs(project, ctx)
    if found is None:
        return
    inputs, listed = found
    fresh: list[str] = []
    stamps = _stamp([*inputs, *environment], fresh, ctx.stamps)
    if any(listed.get(folder) != before for folder, before in begun.items()):
        return  # a folder's names changed while the check ran: it may not have seen them
    # Kept for the folders listed before the check only: one made meanwhile stays a racy input.
    names = {folder: listed[folder] for folder in begun}
    fresh = [path for path in fresh if path not in names]
    racy = _racy_documents(project, ctx, fresh) if fresh else {}
    if racy is None:
        return  # an input just changed that is not a document the check read as it is now
    # The most recently changed first: a lookup stops at the first changed input, and the file
    # edited next is most often one edited lately.
    stamps.sort(key=lambda item: -item[1][3] if item[1] is not None else 0)
    value = {
        "format": _FORMAT,
        "environment": environment,
        "stamps": stamps,
        "racy": racy,
        "names": names,
        "issues": [{**d.as_dict(), "line": d.line} for d in diagnostics],
    }
    key = _key(project)
    cache.remember(key, value, slot="check")
    if later:
        # JSON of every input's stamp: written once the server is idle, not while it answers.
        cache.write_soon(key, value, WRITE_DELAY, "mdmark-stored-check")
    else:
        cache.write(key, value)
