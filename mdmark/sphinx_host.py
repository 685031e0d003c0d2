"""Creating the pipeline's Sphinx application, with or without a project's ``conf.py``.

Without ``sphinx.conf`` the application is mdmark's own: MyST and sphinx-design with the config's
``markdown`` settings, the config folder as the source folder. With it, the application is created
from that ``conf.py`` as ``sphinx-build`` would (its folder is the source folder; its extensions,
``myst_*``, ``sd_*``, ``numfig``, ``root_doc``, ``suppress_warnings``…), and the ``markdown`` keys
only fill in the MyST options conf.py leaves unset. An extension that cannot be imported is left
out (and reported as a ``config_value`` drift) instead of stopping everything.

What the rest of mdmark needs to know of the Sphinx configuration is kept as :class:`ConfInfo`, plain
data cached by the digest of ``conf.py``, so a warm run never executes ``conf.py`` again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from mdmark.config import MarkdownSettings
from mdmark.errors import MdmarkError

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config as SphinxConfig

#: The MyST options the config's ``markdown`` section sets (shared with ``mdmark.sphinx_ext``).
MYST_OPTIONS: tuple[str, ...] = ("myst_enable_extensions", "myst_heading_anchors", "myst_substitutions")

#: Folders mdmark's own application (no conf.py) never takes documents from.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    "**/.*",
    "**/node_modules",
    "**/__pycache__",
    "**/_build",
    "**/venv",
    "**/site-packages",
)

#: ``{numref}`` formats without a conf.py (conf.py's ``numfig_format`` otherwise).
DEFAULT_NUMFIG_FORMAT: dict[str, str] = {
    "figure": "図 %s",
    "table": "表 %s",
    "code-block": "コード %s",
    "section": "%s 節",
}


def myst_values(settings: MarkdownSettings) -> dict[str, Any]:
    """The config's ``markdown`` section as Sphinx configuration values."""
    return {
        "myst_enable_extensions": list(settings.extensions),
        "myst_heading_anchors": settings.heading_anchors,
        "myst_substitutions": dict(settings.substitutions),
    }


def user_set(config: SphinxConfig, name: str) -> bool:
    """Whether conf.py (or ``-D``) gave ``name`` a value, as opposed to Sphinx's default."""
    raw: dict[str, Any] = getattr(config, "_raw_config", {})
    return name in raw or name in config.overrides


def conf_digest(conf: Path | None) -> str:
    """What identifies a conf.py's contents in cache keys ("" without one)."""
    if conf is None:
        return ""
    try:
        return hashlib.sha256(conf.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


@dataclass(frozen=True)
class ConfInfo:
    """The parts of the Sphinx configuration check, export and build use."""

    root_doc: str = "index"
    numfig: bool = True
    numfig_format: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_NUMFIG_FORMAT))
    suppress_warnings: tuple[str, ...] = ()
    nitpicky: bool = False
    nitpick_ignore: tuple[tuple[str, str], ...] = ()
    exclude_patterns: tuple[str, ...] = DEFAULT_EXCLUDES
    source_suffixes: tuple[str, ...] = (".md",)
    heading_anchors: int = 3
    #: Extensions of conf.py that could not be loaded: (name, reason).
    dropped: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConfInfo:
        return cls(
            root_doc=str(data["root_doc"]),
            numfig=bool(data["numfig"]),
            numfig_format={str(k): str(v) for k, v in data["numfig_format"].items()},
            suppress_warnings=tuple(data["suppress_warnings"]),
            nitpicky=bool(data["nitpicky"]),
            nitpick_ignore=tuple((str(a), str(b)) for a, b in data["nitpick_ignore"]),
            exclude_patterns=tuple(data["exclude_patterns"]),
            source_suffixes=tuple(data["source_suffixes"]),
            heading_anchors=int(data["heading_anchors"]),
            dropped=tuple((str(a), str(b)) for a, b in data["dropped"]),
        )

    def suppressed(self, type_: str) -> bool:
        """Whether conf.py's ``suppress_warnings`` silences a warning ``type.subtype`` (as Sphinx matches it)."""
        kind, _, sub = type_.partition(".")
        for entry in self.suppress_warnings:
            target, _, target_sub = entry.partition(".")
            if target == kind and (not target_sub or target_sub in ("*", sub)):
                return True
        return False


def info_for_settings(settings: MarkdownSettings) -> ConfInfo:
    """The configuration of mdmark's own application (no conf.py)."""
    return ConfInfo(heading_anchors=settings.heading_anchors)


def _own_overrides(settings: MarkdownSettings) -> dict[str, Any]:
    return {
        "extensions": ["myst_parser", "sphinx_design"],
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": list(DEFAULT_EXCLUDES),
        **myst_values(settings),
        # Keeps Text nodes verbatim (alias matching needs that) and reads faster.
        "smartquotes": False,
        "language": "en",
        "html_theme": "basic",
        "numfig": True,
    }


def _conf_extensions(conf: Path) -> list[str]:
    from sphinx.config import Config as SphinxConfig
    from sphinx.util.tags import Tags

    return [str(e) for e in SphinxConfig.read(conf.parent, overrides={}, tags=Tags()).extensions]


def _reason(exc: BaseException) -> str:
    """One line saying why: the underlying exception when Sphinx wraps one (conf.py's own error)."""
    cause = exc.__cause__ or getattr(exc, "orig_exc", None) or exc
    text = str(cause).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(cause).__name__}: {first}" if first else type(cause).__name__


def _unimportable(extensions: list[str]) -> str | None:
    """The first extension that cannot be imported (Sphinx does not always name it)."""
    import importlib.util

    for name in extensions:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def _conf_problem(conf: Path, exc: BaseException) -> MdmarkError:
    reason = _reason(exc)
    return MdmarkError(
        f"設定の sphinx.conf の `{conf.name}` から Sphinx を用意できない（{reason}）ので、conf.py を直すか sphinx.conf を外してください。",
        exit_code=2,
    )


def create_app(
    srcdir: Path,
    settings: MarkdownSettings,
    conf: Path | None,
    workdir: Path,
    status: IO[str],
    warning: IO[str],
) -> tuple[Sphinx, ConfInfo]:
    """A Sphinx application reading Markdown the way the project's own build does, and its :class:`ConfInfo`."""
    from sphinx.application import Sphinx
    from sphinx.errors import ExtensionError
    from sphinx.util import console

    console.nocolor()
    outdir, doctreedir = str(workdir / "out"), str(workdir / "doctrees")
    if conf is None:
        app = Sphinx(
            str(srcdir), None, outdir, doctreedir, "html",
            confoverrides=_own_overrides(settings), status=status, warning=warning, freshenv=True,
        )  # fmt: skip
        _prepare(app)
        return app, info_for_settings(settings)

    # The HTML theme plays no part in reading (mdmark writes its own page), and an uninstalled one
    # would stop the application from starting.
    overrides: dict[str, Any] = {"smartquotes": False, "html_theme": "basic", "html_theme_options": {}}
    dropped: list[tuple[str, str]] = []
    extensions: list[str] | None = None
    while True:
        try:
            app = Sphinx(
                str(conf.parent), str(conf.parent), outdir, doctreedir, "html",
                confoverrides=dict(overrides), status=status, warning=warning, freshenv=True,
            )  # fmt: skip
        except ExtensionError as exc:
            try:
                if extensions is None:
                    extensions = _conf_extensions(conf)
            except Exception as inner:  # conf.py itself fails: nothing to go on with
                raise _conf_problem(conf, inner) from None
            name = exc.modname if exc.modname in extensions else _unimportable(extensions)
            if not name:
                raise _conf_problem(conf, exc) from None
            extensions.remove(name)
            dropped.append((name, _reason(exc)))
            overrides["extensions"] = extensions
            continue
        except Exception as exc:  # the user's conf.py raised, or a setting is unusable
            raise _conf_problem(conf, exc) from None
        if "myst_parser" not in app.extensions and "myst_nb" not in app.extensions:
            # A project whose conf.py reads no Markdown: mdmark reads it with MyST all the same.
            overrides["extensions"] = [*(extensions or list(app.config.extensions)), "myst_parser"]
            extensions = overrides["extensions"]
            continue
        break
    _fill_in(app, settings)
    _prepare(app)
    cfg = app.config
    info = ConfInfo(
        root_doc=str(cfg.root_doc),
        numfig=bool(cfg.numfig),
        numfig_format={**DEFAULT_NUMFIG_FORMAT, **{str(k): str(v) for k, v in dict(cfg.numfig_format).items()}},
        suppress_warnings=tuple(str(s) for s in cfg.suppress_warnings),
        nitpicky=bool(cfg.nitpicky),
        nitpick_ignore=tuple((str(a), str(b)) for a, b in cfg.nitpick_ignore),
        exclude_patterns=tuple(str(p) for p in cfg.exclude_patterns),
        source_suffixes=tuple(str(s) for s in dict(cfg.source_suffix)),
        heading_anchors=int(cfg.myst_heading_anchors or 0),
        dropped=tuple(dropped),
    )
    return app, info


def _fill_in(app: Sphinx, settings: MarkdownSettings) -> None:
    """The config's ``markdown`` settings, for the MyST options conf.py leaves unset."""
    changed = False
    for name, value in myst_values(settings).items():
        if not user_set(app.config, name):
            setattr(app.config, name, value)
            changed = True
    if changed:
        from myst_parser.sphinx_ext.main import create_myst_config

        create_myst_config(app)  # type: ignore[no-untyped-call]


def _prepare(app: Sphinx) -> None:
    """What every application needs before reading: the documents Sphinx would find, raw toctrees."""
    from mdmark.toctree_directive import RecordingTocTree

    app.add_directive("toctree", RecordingTocTree, override=True)
    discover(app)


def discover(app: Sphinx) -> set[str]:
    """Let Sphinx find the project's documents (its ``exclude_patterns`` apply), as ``sphinx-build`` does."""
    env: Any = app.env
    return set(env.find_files(app.config, app.builder) or app.project.docnames)


def ensure_known(app: Sphinx, docname: str) -> None:
    """Make ``docname`` one of the application's documents before reading it (a new file, or one
    conf.py excludes that mdmark was asked to read all the same)."""
    project: Any = app.project
    if docname in project.docnames:
        return
    discover(app)
    if docname not in project.docnames:
        project.docnames.add(docname)


def found_documents(srcdir: Path, info: ConfInfo, extra: Iterable[str] = ()) -> list[str]:
    """The documents Sphinx would find under ``srcdir`` (docnames, sorted), without an application.

    Markdown only: mdmark reads MyST; other source files of a Sphinx project are not its documents.
    """
    from mdmark.project import match_files

    excluded = _matcher(info.exclude_patterns)
    found = []
    for path in match_files(srcdir, ("**/*.md",), ()):
        rel = path.relative_to(srcdir).as_posix()
        if ".md" in info.source_suffixes and not excluded(rel):
            found.append(rel[: -len(".md")])
    return sorted({*found, *extra})


def other_documents(srcdir: Path, info: ConfInfo) -> dict[str, str]:
    """The project's sources of other suffixes (``.rst``…): docname → path relative to ``srcdir``.

    mdmark reads them for what they define (labels, objects, toctrees) that Markdown documents
    reference; it checks and writes Markdown only.
    """
    from mdmark.project import match_files

    others = [s for s in info.source_suffixes if s != ".md"]
    if not others:
        return {}
    excluded = _matcher(info.exclude_patterns)
    found: dict[str, str] = {}
    for path in match_files(srcdir, tuple(f"**/*{s}" for s in others), ()):
        rel = path.relative_to(srcdir).as_posix()
        if not excluded(rel):
            found.setdefault(next(rel.removesuffix(s) for s in others if rel.endswith(s)), rel)
    return found


def _matcher(patterns: tuple[str, ...]) -> Any:
    from sphinx.util.matching import Matcher

    return Matcher(list(patterns))
