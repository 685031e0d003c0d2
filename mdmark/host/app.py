"""Creating the pipeline's Sphinx application, with or without a project's ``conf.py``, and letting
it find the project's documents. Every use of the application then runs in a
:func:`~mdmark.host.session.session`; the private attributes mdmark needs are in
:mod:`mdmark.host.accessors`.

Without ``sphinx.conf`` the application is mdmark's own: MyST and sphinx-design with the config's
``markdown`` settings, the config folder as the source folder. With it, the application is created
from that ``conf.py`` as ``sphinx-build`` would (its folder is the source folder; its extensions,
``myst_*``, ``sd_*``, ``numfig``, ``root_doc``, ``suppress_warnings``…) — when the user trusts it
(:mod:`mdmark.host.trust`); until then its literal settings are read with the AST and it never runs
(:func:`_create_static_app`). Either way the ``markdown`` keys only fill in the MyST options conf.py
leaves unset. An extension that cannot be imported is left out (and reported as a ``config_value``
drift) instead of stopping everything.

What the rest of mdmark needs to know of the Sphinx configuration is kept as
:class:`~mdmark.host.confinfo.ConfInfo`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec

from mdmark.config.main import MarkdownSettings
from mdmark.core.errors import MdmarkError
from mdmark.host.confinfo import (
    DEFAULT_EXCLUDES,
    DEFAULT_NUMFIG_FORMAT,
    ConfInfo,
    info_for_settings,
    role_objtypes_of,
    unverified_domains,
)
from mdmark.host.myst_settings import fill_in_myst, myst_values
from mdmark.host.patches import SPHINX_CONTEXT, dangling_footnotes, harden_parsing, own_config_defaults, share_docutils_settings
from mdmark.host.session import SPHINX_LOCK, logging_kept

P = ParamSpec("P")

if TYPE_CHECKING:
    from mdmark.host.trust_ran import Pins
    from docutils import nodes
    from sphinx.application import Sphinx


def _own_overrides(settings: MarkdownSettings) -> dict[str, Any]:
    return {
        "extensions": ["myst_parser", "sphinx_design"],
        "source_suffix": {".md": "markdown"},
        "exclude_patterns": list(DEFAULT_EXCLUDES),
        **myst_values(settings),
        # Keeps Text nodes verbatim (alias matching needs that) and reads faster.
        "smartquotes": False,
        "language": "en",
        # No conf.py asks for a translation: no message catalog is read (``locales/en/…`` would
        # have been), so the read skips i18n's transforms (:mod:`mdmark.host.profiles`).
        "locale_dirs": [],
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
    from mdmark.util import landlock

    cause = exc.__cause__ or getattr(exc, "orig_exc", None) or exc
    if isinstance(cause, PermissionError) and landlock.refused(cause):
        # The kernel refused what conf.py or an extension did in a confined worker (a write outside the project).
        return MdmarkError(f"設定の sphinx.conf の `{conf.name}` から Sphinx を用意する途中で{landlock.denied_sentence(cause)}", exit_code=2)
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
    trusted: bool = False,
    root: Path | None = None,
    pins: str | None = None,
) -> tuple[Sphinx, ConfInfo]:
    """A Sphinx application reading Markdown the way the project's own build does, and its :class:`ConfInfo`.

    ``trusted``: the user trusts ``conf`` (:mod:`mdmark.host.trust`), so it runs as ``sphinx-build``
    would run it; otherwise it is only read (:func:`_create_static_app`), never executed, and no
    extension is loaded from inside the project ``root`` (default: the git work tree of conf.py's folder).
    ``pins``: the trust string (:func:`mdmark.host.trust_ran.trust_pins`): conf.py may load the
    project's modules only as the trust pins them; when it goes to load another, the application is
    made without conf.py, as for a lapsed trust, and its info names the modules (``lapsed``).

    Creating an application sets up Sphinx's process-wide logging for it; that set-up is undone
    afterwards, so a ``sphinx-build`` that runs mdmark (``mdmark.sphinx_ext``) keeps its own output.
    """
    from mdmark.util.capture import project_output

    # conf.py and the extensions' setup() run here: what they print is a note, never an answer.
    from mdmark.util.conflock import conf_lock

    with SPHINX_LOCK, logging_kept(), conf_lock(conf, shared=False), project_output():
        if conf is not None and not trusted:
            return _create_static_app(settings, conf, workdir, root)
        if conf is not None:
            from mdmark.host.trust_ran import parse_pins

            pinned = parse_pins(pins)
            if pinned is not None:
                return _create_pinned_app(srcdir, settings, conf, workdir, root, pinned)
        return _create_app(srcdir, settings, conf, workdir)


def _create_pinned_app(
    srcdir: Path, settings: MarkdownSettings, conf: Path, workdir: Path, root: Path | None, pinned: Pins
) -> tuple[Sphinx, ConfInfo]:
    """The trusted application, conf.py loading only pinned modules of the project; else the
    application of an untrusted conf.py, its info naming the modules that made the trust lapse."""
    from mdmark.host.trust_ran import PinnedImports

    guard = PinnedImports(pinned)
    before = set(sys.modules)
    sys.meta_path.insert(0, guard)
    try:
        made = _create_app(srcdir, settings, conf, workdir)
    except MdmarkError:
        if not guard.lapsed:
            raise
        made = None  # conf.py stopped at the refused import: the lapse is the answer
    finally:
        if guard in sys.meta_path:  # conf.py may have rebuilt the list
            sys.meta_path.remove(guard)
    guard.sweep(before)
    if made is not None and not guard.lapsed:
        return made
    guard.leave_note(conf)
    app, info = _create_static_app(settings, conf, workdir, root)
    return app, dataclasses.replace(info, lapsed=tuple(guard.lapsed))


def _names_apart(create: Callable[P, tuple[Sphinx, ConfInfo]]) -> Callable[P, tuple[Sphinx, ConfInfo]]:
    """Each application made with the directives and roles of its own extensions only, in docutils'
    registries of its own (:mod:`mdmark.host.docutils_names`): not those of another application of
    the process (another project, a trusted reading of this one, the trusted attempt of a lapsed trust)."""

    @functools.wraps(create)
    def made_apart(*args: P.args, **kwargs: P.kwargs) -> tuple[Sphinx, ConfInfo]:
        from mdmark.host.docutils_names import apart

        with apart() as names:
            return names.keep(create(*args, **kwargs))

    return made_apart


@_names_apart
def _create_app(srcdir: Path, settings: MarkdownSettings, conf: Path | None, workdir: Path) -> tuple[Sphinx, ConfInfo]:
    from sphinx.application import Sphinx
    from sphinx.errors import ExtensionError
    from sphinx.util import console

    share_docutils_settings()
    harden_parsing()
    own_config_defaults()

    console.nocolor()
    outdir, doctreedir = str(workdir / "out"), str(workdir / "doctrees")
    # What Sphinx logs while it starts (conf.py, extensions) concerns no document: it goes nowhere.
    status, warning = io.StringIO(), io.StringIO()
    if conf is None:
        with _without_unused_builders():
            app = _scanning_once()(
                str(srcdir), None, outdir, doctreedir, "html",
                confoverrides=_own_overrides(settings), status=status, warning=warning, freshenv=True,
            )  # fmt: skip
        _prepare(app, own=True)
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
    _set_up_theme(app)
    _fill_in(app, settings)
    _prepare(app)
    setattr(app.env, SPHINX_CONTEXT, True)
    return app, _info_of(app, dropped)


#: Sphinx's built-in extensions that only add builders mdmark's own application never makes
#: (and those builders' settings, which no document of a project without conf.py can set):
#: importing and setting them up was a tenth of making the application. The HTML builder stays,
#: as do gettext's (its settings are read while the files are listed), LaTeX's (read transforms
#: of its are named in the read profiles, :mod:`mdmark.host.profiles`) and the themes.
_UNUSED_BUILDERS = frozenset({
    "sphinx.builders.changes", "sphinx.builders.epub3", "sphinx.builders.dirhtml", "sphinx.builders.dummy",
    "sphinx.builders.linkcheck", "sphinx.builders.manpage", "sphinx.builders.singlehtml", "sphinx.builders.texinfo",
    "sphinx.builders.text", "sphinx.builders.xml", "sphinxcontrib.applehelp", "sphinxcontrib.devhelp",
    "sphinxcontrib.htmlhelp", "sphinxcontrib.serializinghtml", "sphinxcontrib.qthelp",
})  # fmt: skip


@contextlib.contextmanager
def _without_unused_builders() -> Iterator[None]:
    """Within the block, a new application sets up none of :data:`_UNUSED_BUILDERS` (the caller
    holds :data:`~mdmark.host.session.SPHINX_LOCK`: no other application starts meanwhile)."""
    import sphinx.application

    saved = sphinx.application.builtin_extensions
    sphinx.application.builtin_extensions = tuple(name for name in saved if name not in _UNUSED_BUILDERS)
    try:
        yield
    finally:
        sphinx.application.builtin_extensions = saved


def _scanning_once() -> type[Sphinx]:
    """Sphinx's application class, but one that does not list the source folder while it starts:
    :func:`_prepare` lists it (:func:`discover`) once the builder is set up, as ``sphinx-build``
    does again when it reads, and that listing is the one kept — the first was a second walk of
    every folder, a sixth of making mdmark's own application at 1,200 documents. Only for
    mdmark's own application: none of its extensions (MyST, sphinx-design, Sphinx's built-in
    ones) looks at the documents found before the builder is set up, as conf.py's may
    (autosummary does)."""
    from sphinx.application import Sphinx

    class ScanningOnce(Sphinx):
        def _post_init_env(self) -> None:
            fresh = self._fresh_env_used
            self._fresh_env_used = False  # Sphinx's only use of it here: whether to list the files now
            try:
                super()._post_init_env()
            finally:
                self._fresh_env_used = fresh

    return ScanningOnce


@_names_apart
def _create_static_app(
    settings: MarkdownSettings, conf: Path, workdir: Path, root: Path | None
) -> tuple[Sphinx, ConfInfo]:
    """The application of an untrusted ``conf``: no conf.py (Sphinx is given none to run), its
    literal settings of :data:`~mdmark.host.static_plan.STATIC_SETTINGS` as overrides, and only the
    extensions of :data:`~mdmark.host.static_plan.STATIC_EXTENSIONS` installed outside the project."""
    from sphinx.application import Sphinx
    from sphinx.util import console

    from mdmark.host.confine import project_root
    from mdmark.host.static_plan import static_plan

    share_docutils_settings()
    harden_parsing()
    own_config_defaults()
    console.nocolor()
    outdir, doctreedir = str(workdir / "out"), str(workdir / "doctrees")
    status, warning = io.StringIO(), io.StringIO()
    plan = static_plan(conf, root if root is not None else project_root(conf.parent))
    extensions = list(plan.extensions)
    if "myst_parser" not in extensions:
        extensions.append("myst_parser")  # mdmark reads Markdown whatever the project says
    overrides: dict[str, Any] = {
        **plan.values,
        "extensions": extensions,
        "smartquotes": False,
        "html_theme": "basic",
        "html_theme_options": {},
        # Sphinx compiles ``<locale_dirs>/<language>/LC_MESSAGES/sphinx.po`` into a ``sphinx.mo``
        # beside it as the application starts: an untrusted repository's catalog (the file, or a
        # symlink in its place) must not make mdmark write in it. Its catalogs are not read.
        "locale_dirs": [],
        "gettext_auto_build": False,
    }
    try:
        app = Sphinx(
            str(conf.parent), None, outdir, doctreedir, "html",
            confoverrides=overrides, status=status, warning=warning, freshenv=True,
        )  # fmt: skip
    except Exception:  # a literal value Sphinx refuses: go on with the extensions alone
        overrides = {k: v for k, v in overrides.items() if not _static_value(k)}
        try:
            app = Sphinx(
                str(conf.parent), None, outdir, doctreedir, "html",
                confoverrides=overrides, status=status, warning=warning, freshenv=True,
            )  # fmt: skip
        except Exception as exc:
            raise _conf_problem(conf, exc) from None
    _fill_in(app, settings)
    _prepare(app)
    unknown = _stand_in_for_held(app, conf, plan.held, root if root is not None else project_root(conf.parent))
    info = _info_of(app, list(plan.missing))
    # What the held extensions (autodoc…) would define is unknown until the user trusts conf.py.
    # An extension an allowed one sets up itself (napoleon: autodoc) is held all the same.
    running = [name for name in app.extensions if name not in plan.held]
    # Extensions conf.py does not list as literals may be autodoc's: its names are unknown too.
    unverified = tuple(sorted({*info.unverified, *unverified_domains(plan.held, running), *(("py",) if unknown else ())}))
    info = dataclasses.replace(
        info, static=True, held=plan.held, unverified=unverified, held_suffixes=_held_suffixes(conf, plan.held),
        static_problem=plan.problem, unread=plan.unread, opaque=plan.opaque, settled=plan.settled,
    )  # fmt: skip
    return app, info


def _held_suffixes(conf: Path, held: tuple[str, ...]) -> tuple[str, ...]:
    """The suffixes of the documents only a held extension reads: myst-nb's notebooks and its
    ``nb_custom_formats`` (a literal of conf.py: data, read, never run)."""
    if "myst_nb" not in held:
        return ()
    from mdmark.host.static_conf import read_conf

    formats = read_conf(conf).values.get("nb_custom_formats")
    custom = [k for k in formats if isinstance(k, str) and k.startswith(".")] if isinstance(formats, dict) else []
    return tuple(dict.fromkeys([".ipynb", *custom]))


def _set_up_theme(app: Sphinx) -> None:
    """The directives and roles of conf.py's HTML theme (sphinx-book-theme's ``margin``): mdmark
    writes its own page (``html_theme`` is "basic" here), but Sphinx would set the theme up as an
    extension, so its markup reads as in ``sphinx-build``. A theme that fails to set up is left out."""
    from mdmark.host.held_markup import theme_module

    raw: dict[str, Any] = getattr(app.config, "_raw_config", {})
    module = theme_module(raw.get("html_theme"))
    if module is None or module in app.extensions:
        return
    try:
        app.setup_extension(module)
    except Exception:  # noqa: S110 - the theme plays no part in reading beyond its markup
        pass


def _stand_in_for_held(app: Sphinx, conf: Path, held: tuple[str, ...], root: Path) -> bool:
    """The directives and roles the held extensions (and conf.py's own ``setup()``) would add, as
    opaque stand-ins (:mod:`mdmark.host.held_markup`): not a drift each, one count in the trust notice.
    True when conf.py's extensions are not written as literals (any unknown name is a stand-in)."""
    from mdmark.host import held_markup
    from mdmark.host.static_conf import read_conf

    static = read_conf(conf)
    folders = []
    for folder in (conf.parent, *static.sys_path):
        try:
            folder.resolve().relative_to(root.resolve())
        except (ValueError, OSError, RuntimeError):
            continue  # a local extension is found only inside the project
        folders.append(folder)
    # A theme's own directives (sphinx-book-theme's `margin`): its setup() is code too, held the same.
    theme = held_markup.theme_module(static.values.get("html_theme"))
    if theme is not None and theme not in app.extensions:
        held = (*held, theme)
    held_markup.install(app, held_markup.held_markup(conf, held, folders))
    if (static.extensions is None or static.uncertain("extensions")) and static.problem is None:
        held_markup.install_catch_all(app)  # which extensions conf.py loads is not written as literals
        return True
    return False


def _static_value(name: str) -> bool:
    return name not in ("extensions", "smartquotes", "html_theme", "html_theme_options", "locale_dirs", "gettext_auto_build")


def _info_of(app: Sphinx, dropped: list[tuple[str, str]]) -> ConfInfo:
    cfg = app.config
    return ConfInfo(
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
        role_objtypes=role_objtypes_of(app.env.domains.values()),
        unverified=unverified_domains([name for name, _reason in dropped], app.extensions),
        sphinx=True,
        every_role=True,
        language=str(cfg.language or "en"),
    )


def _fill_in(app: Sphinx, settings: MarkdownSettings) -> None:
    """The config's ``markdown`` settings, for the MyST options conf.py leaves unset."""
    if fill_in_myst(app.config, settings):
        from myst_parser.sphinx_ext.main import create_myst_config

        create_myst_config(app)  # type: ignore[no-untyped-call]


def _prepare(app: Sphinx, own: bool = False) -> None:
    """What every application needs before reading: the documents Sphinx would find, raw toctrees,
    and none of Sphinx's own work the read profiles skip (:mod:`mdmark.host.profiles`; ``own``:
    mdmark's own application, whose extensions are known)."""
    from mdmark.host.keep_text import transform_class
    from mdmark.host.profiles import prune
    from mdmark.host.toctree import RecordingTocTree

    app.add_directive("toctree", RecordingTocTree, override=True)
    app.add_transform(transform_class())
    app.add_transform(dangling_footnotes())
    _doctrees_in_memory(app)
    prune(app, own)
    discover(app)


def _doctrees_in_memory(app: Sphinx) -> None:
    """Sphinx pickles every doctree it reads into its doctree folder, for its own next build;
    mdmark takes the tree from memory at once (:func:`take_doctree`) and never reads that file: a
    pickle and a file per document for nothing (about 5 % of a worker's time in a cold check, by
    py-spy). The tree is made ready for pickling as Sphinx does, only not written."""
    env: Any = app.env

    def write_doctree(docname: str, doctree: nodes.document, *, _cache: bool = True) -> None:
        doctree.reporter = None
        doctree.transformer = None
        doctree.settings = doctree.settings.copy()
        doctree.settings.warning_stream = None
        doctree.settings.env = None
        doctree.settings.record_dependencies = None
        if _cache:
            env._write_doc_doctree_cache[docname] = doctree

    builder: Any = app.builder
    builder.write_doctree = write_doctree


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
        # Sphinx's own table of where a document is: without it, an excluded Markdown file is
        # looked for under the first source suffix (``.rst``), and its read fails.
        project._docname_to_path[docname] = Path(f"{docname}.md")
        project._path_to_docname[Path(f"{docname}.md")] = docname


