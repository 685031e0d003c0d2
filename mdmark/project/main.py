"""A project: the config, its index and the pipeline, as every front-end opens them.

``Project.open(start, config)`` is the one entry point the CLI, the MCP tools and the Sphinx
extension use, so they find the same config the same way and say the same sentences.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.util.bounds import check_path
from mdmark.config.main import Config, config_for_export, load_config
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.index.model import Index, load_index
from mdmark.workspace.main import Workspace, cached_yaml, workspace_for

if TYPE_CHECKING:
    # The pipeline (worker pool, Sphinx host) is imported when a project first needs it: a check
    # answered from its stored result never does.
    from mdmark.pipeline.pipeline import Pipeline
    from mdmark.references.main import Model
    from mdmark.host.confinfo import ConfInfo


@dataclass(frozen=True)
class ModelLayout:
    """Which documents a reference model holds, decided from paths alone (:meth:`Project.model_layout`)."""

    srcdir: Path
    info: ConfInfo
    #: docname → file, every document the model knows.
    files: dict[str, Path]
    #: The documents sphinx-build reads (None when not the whole project).
    sphinx_docs: list[str] | None


def require_config_inside(project_dir: Path, config: str) -> None:
    """An MCP tool's ``config`` must lie inside ``project_dir`` (links resolved): a call must not
    run or write another folder's project."""
    from mdmark.util.roots import inside

    check_path(config, "config")
    path = Path(config) if Path(config).is_absolute() else project_dir / config
    if not inside(path, project_dir.resolve()):
        raise MdmarkError(
            f"config の `{config}` は project_dir の外にあるので、project_dir の中の設定ファイルを指定してください。"
        )


def _check_config_arg(config: str | Path | None) -> None:
    if isinstance(config, str):
        check_path(config, "config")


@dataclass
class Project:
    config: Config
    start: Path
    _index: Index | None = field(default=None, repr=False)
    #: Warning types the host reports itself, so mdmark does not repeat them: inside a Sphinx
    #: build (the extension) Sphinx reports roles' and toctrees' broken references.
    host_reports: tuple[str, ...] = ()
    #: The host already runs ``sphinx.conf``'s conf.py (``mdmark.sphinx_ext`` inside the user's own
    #: ``sphinx-build``): it counts as trusted. Everywhere else the user's record decides.
    host_runs_conf: bool = False
    _trust: tuple[str | None] | None = field(default=None, repr=False)

    @classmethod
    def open(cls, start: Path, config: str | Path | None = None, texts: Mapping[Path, str] | None = None) -> Project:
        """Load the config (``config`` relative to ``start``, else searched upward from ``start``).

        ``texts``: unsaved content by resolved path; the config's own is read from there when given.
        """
        _check_config_arg(config)
        if texts:
            from mdmark.config.main import config_from_text, find_config

            found = find_config(start) if config is None else (Path(config) if Path(config).is_absolute() else start / config)
            text = texts.get(found.resolve()) if found is not None else None
            if found is not None and text is not None:
                return cls(config_from_text(found, text), start)
        return cls(load_config(start, config, cached_yaml), start)

    @classmethod
    def for_export(cls, start: Path, config: str | Path | None = None, document: str | None = None) -> Project:
        """Like :meth:`open`, but a missing config (none given, none found) means the built-in defaults.

        ``document`` (relative to ``start``): the file the command is about; the config is searched
        from its folder, and the defaults are rooted at its git work tree, else its own folder."""
        _check_config_arg(config)
        path = None
        if document is not None:
            check_path(document, "パス")
            path = Path(document) if Path(document).is_absolute() else start / document
        return cls(config_for_export(start, config, path), start)

    @property
    def root(self) -> Path:
        """The config folder: every path in the config is relative to it."""
        return self.config.root

    @property
    def cache_dir(self) -> Path | None:
        """The per-user cache folder of this project (see :mod:`mdmark.pipeline.cachestore`); None without a config."""
        from mdmark.pipeline.cachestore import project_cache_dir

        return project_cache_dir(self.root) if self.config.path is not None else None

    @property
    def workspace(self) -> Workspace:
        """What mdmark keeps about this project between calls (see :mod:`mdmark.workspace.main`)."""
        return workspace_for(self.root)

    @property
    def conf_trusted(self) -> str | None:
        """The trust fingerprint of ``sphinx.conf``'s conf.py when it may run (the user trusts it as it
        is now, see :mod:`mdmark.host.trust`), else None: it is only read. Decided once per Project."""
        if self._trust is None:
            conf = self.config.sphinx_conf
            digest: str | None = None
            if conf is not None:
                from mdmark.host.confine import project_root
                from mdmark.host.trust_fingerprint import fingerprint
                from mdmark.host.trust_ran import trust_pins

                # The pins go to the process that runs conf.py: it loads only the modules they name.
                digest = fingerprint(conf, project_root(self.root)).digest if self.host_runs_conf else trust_pins(conf, self.cache_dir)
            self._trust = (digest,)
        return self._trust[0]

    @property
    def pipeline(self) -> Pipeline:
        return self.workspace.pipeline(
            self.root, self.config.markdown, self.cache_dir, self.config.sphinx_conf, self.conf_trusted
        )

    def restore_snapshot(self, kind: str = "check") -> bool:
        """Fill this process's workspace from the last run's snapshot (see
        :mod:`mdmark.workspace.snapshot`), before anything is read; whether one was read."""
        from mdmark.workspace.snapshot import restore

        return restore(self.workspace, self.pipeline, self.config.path, kind)

    def save_snapshot(self, kind: str = "check", detached: bool = False) -> bool:
        """Write this process's workspace as the next run's snapshot of ``kind`` ("check" or
        "build", once per workspace); ``detached``: by a child process, while this one ends."""
        from mdmark.workspace.snapshot import save

        return save(self.workspace, self.pipeline, self.config.path, kind, detached)

    @property
    def source_dir(self) -> Path:
        """The folder documents' paths are relative to: conf.py's folder with ``sphinx.conf``, else the config folder."""
        conf = self.config.sphinx_conf
        return conf.parent if conf is not None else self.root

    def conf_info(self) -> ConfInfo:
        """The Sphinx configuration references resolve with (conf.py's, else mdmark's own)."""
        from mdmark.host.confinfo import info_for_settings

        info = (
            info_for_settings(self.config.markdown) if self.config.sphinx_conf is None else self.pipeline.conf_info()
        )
        if self.host_reports:
            info = dataclasses.replace(info, suppress_warnings=(*info.suppress_warnings, *self.host_reports))
        if info.lapsed and self.config.sphinx_conf is not None:
            from mdmark.host.trust_ran import note_lapsed

            # The notice then says the trust lapsed, naming them (unless the record cannot be written:
            # it then says the conf.py is not trusted, and the run is untrusted all the same).
            with contextlib.suppress(OSError, MdmarkError):
                note_lapsed(self.config.sphinx_conf, info.lapsed)
        return info

    def reference_model(
        self,
        facts_fn: Callable[[list[Path]], list[DocFacts]],
        known: dict[Path, DocFacts],
        paths: Iterable[Path],
        whole: bool = True,
    ) -> Model:
        """The project-wide reference model: every document Sphinx would read (plus ``paths``), their
        facts fetched with ``facts_fn`` into ``known`` (absolute path → facts) where missing.

        ``whole=False`` (a file exported with no config: no project to speak of) limits it to
        ``paths`` and the documents they link to, so nothing walks the folder tree around a file.
        """
        layout = self.model_layout(paths, known if not whole else None)
        return self.model_from(layout, facts_fn, known)

    def model_layout(self, paths: Iterable[Path], linked_from: dict[Path, DocFacts] | None = None) -> ModelLayout:
        """Which documents the reference model holds (docname → file), from paths alone: every
        document Sphinx would read plus ``paths``; with ``linked_from`` (not the whole project), only
        ``paths`` and the documents their facts there link to."""
        from mdmark.host.confinfo import found_documents, held_documents, other_documents

        srcdir = self.source_dir
        info = self.conf_info()
        extra = []
        for path in paths:
            try:
                rel = path.relative_to(srcdir).as_posix()
            except ValueError:
                continue
            if rel.endswith(".md"):
                extra.append(rel[: -len(".md")])
        sphinx_docs: list[str] | None = None
        if linked_from is None:
            found = found_documents(srcdir, info, extra)
            sphinx_docs = found_documents(srcdir, info)
        else:
            found = list(extra)
            for name in extra:
                own = linked_from.get(srcdir / f"{name}.md")
                for link in own.links if own is not None else []:
                    target = link.doc or (link.path[: -len(".md")] if link.path and link.path.endswith(".md") else None)
                    if target and (srcdir / f"{target}.md").is_file():
                        found.append(target)
        files = {name: srcdir / f"{name}.md" for name in found}
        if linked_from is None:
            for name, rel in other_documents(srcdir, info).items():
                files.setdefault(name, srcdir / rel)
            for name, rel in held_documents(srcdir, info).items():
                files.setdefault(name, srcdir / rel)  # there for Sphinx; read once conf.py is trusted
        return ModelLayout(srcdir, info, files, sphinx_docs)

    def model_from(
        self, layout: ModelLayout, facts_fn: Callable[[list[Path]], list[DocFacts]], known: dict[Path, DocFacts]
    ) -> Model:
        """The reference model of ``layout``, the documents' facts fetched with ``facts_fn`` into
        ``known`` (absolute path → facts) where missing."""
        from mdmark.references.main import Model

        srcdir = layout.srcdir
        files = layout.files
        held = layout.info.held_suffixes
        todo = [f for f in files.values() if f not in known and not (held and f.name.endswith(held))]
        if todo:
            known.update(zip(todo, facts_fn(todo), strict=True))
        by_name = {name: known.get(file) for name, file in files.items()}
        def listdir(folder: str) -> list[str]:
            try:
                return sorted(p.name for p in (srcdir / folder).iterdir())
            except OSError:
                return []

        # Documents that exist but could not be read: references to them are not checked further.
        unread = [name for name, facts in by_name.items() if facts is None or facts.error is not None]
        model = Model(
            by_name.get, files, layout.info, exists=lambda rel: (srcdir / rel).exists(), listdir=listdir, unread=unread,
            srcdir=srcdir.as_posix(), is_dir=lambda rel: (srcdir / rel).is_dir(), sphinx_docs=layout.sphinx_docs,
        )  # fmt: skip
        model.known = by_name
        model.index_terms = self._index_terms()
        # The last model made in this workspace (the preview's build and check, a server's calls)
        # gives its close-name hints when no document changed what they are made of: a hint over
        # every heading of a thousand documents is not looked for again after each save.
        memo = ("reference-model", str(srcdir))
        last = self.workspace.last_runs.get(memo)
        if isinstance(last, Model) and last.known is not None:
            before = last.known
            changed = [name for name, facts in by_name.items() if facts is not before.get(name)]
            model.keep_hints(last, changed)
            model.keep_names(last, changed)
        self.workspace.last_runs.put(memo, model)
        return model

    def _index_terms(self) -> dict[str, str]:
        """The index's terms and aliases by lower case, for ``{term}`` (none without a readable index:
        check says why it cannot be read)."""
        if self.config.index is None:
            return {}
        try:
            index = self.index()
        except MdmarkError:
            return {}
        return {name.lower(): name for term in index.terms for name in (term.term, *term.aliases)}

    def index(self) -> Index:
        """The index model (loaded once per Project); raises when the config has none or it is unreadable."""
        if self._index is None:
            path = self.config.require_index()
            self._index = load_index(path, self.root, self.workspace)
        return self._index

    def facts_for(self, paths: list[Path], want_trees: bool = False) -> list[DocFacts]:
        return self.pipeline.facts_many(paths, want_trees=want_trees)

    def resolve_arg(self, value: str) -> Path:
        """A path argument: absolute as is, relative to the starting folder (cwd or project_dir)."""
        check_path(value, "パス")
        path = Path(value)
        return path if path.is_absolute() else (self.start / path)

    def ensure_writable_target(self, path: Path) -> None:
        """Tools write only inside the starting folder or the config folder."""
        from mdmark.util.roots import inside

        if not (inside(path, self.start.resolve()) or inside(path, self.root.resolve())):
            raise MdmarkError(
                f"`{path}` は作業のフォルダと設定のフォルダの外なので、その中のパスを指定してください。"
            )
