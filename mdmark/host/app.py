"""The one place mdmark touches Sphinx's internals: creating the pipeline's application, with or
without a project's ``conf.py``; the :func:`session` every use of an application runs in (the
process lock, logging pointed at the application, its warnings collected as log records); and the
few private attributes mdmark needs, each behind a small named function (a test greps that no other
module uses them, so a Sphinx upgrade is checked here).

Without ``sphinx.conf`` the application is mdmark's own: MyST and sphinx-design with the config's
``markdown`` settings, the config folder as the source folder. With it, the application is created
from that ``conf.py`` as ``sphinx-build`` would (its folder is the source folder; its extensions,
``myst_*``, ``sd_*``, ``numfig``, ``root_doc``, ``suppress_warnings``…) — when the user trusts it
(:mod:`mdmark.host.trust`); until then its literal settings are read with the AST and it never runs
(:func:`_create_static_app`). Either way the ``markdown`` keys only fill in the MyST options conf.py
leaves unset. An extension that cannot be imported is left out (and reported as a ``config_value``
drift) instead of stopping everything.

What the rest of mdmark needs to know of the Sphinx configuration is kept as :class:`ConfInfo`, plain
data cached by the digest of ``conf.py``, so a warm run never executes ``conf.py`` again.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import hashlib
import io
import logging
import threading
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.config.main import MarkdownSettings
from mdmark.errors import MdmarkError
from mdmark.facts import Warning
from mdmark.util.globs import match_files

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.config import Config as SphinxConfig
    from sphinx.environment import BuildEnvironment

#: Serialises all Sphinx/docutils work in this process: Sphinx and docutils keep global state
#: (directive registries, the logging set-up). :func:`session` takes it.
SPHINX_LOCK = threading.RLock()

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
    # Sphinx keeps what conf.py's namespace held in a private dict; there is no public question.
    raw: dict[str, Any] = getattr(config, "_raw_config", {})
    return name in raw or name in config.overrides


def fill_in_myst(config: SphinxConfig, settings: MarkdownSettings) -> bool:
    """Give the MyST options conf.py leaves unset the config's ``markdown`` values (the one settings
    → MyST mapping, shared by the pipeline and ``mdmark.sphinx_ext``); whether any changed."""
    changed = False
    for name, value in myst_values(settings).items():
        if not user_set(config, name):
            setattr(config, name, value)
            changed = True
    return changed


def conf_digest(conf: Path | None, trusted: str | None = None) -> str:
    """What identifies a conf.py in cache keys ("" without one): ``trusted`` (the trust fingerprint,
    conf.py and its local modules) when it runs, else ``static:`` and the digest of the file read."""
    if conf is None:
        return ""
    if trusted is not None:
        return f"trusted:{trusted}"
    try:
        return "static:" + hashlib.sha256(conf.read_bytes()).hexdigest()
    except OSError:
        return "static:unreadable"


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
    #: conf.py was read statically, not run (the user has not trusted it; see :mod:`mdmark.host.trust`).
    static: bool = False
    #: With :attr:`static`: the extensions left out until the user trusts the project.
    held: tuple[str, ...] = ()
    #: The object types each role of a domain an extension adds looks up (``domain:role`` →
    #: object types); Sphinx's own domains' come from :func:`builtin_role_objtypes`.
    role_objtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Domains whose objects code mdmark did not run would define (autodoc while conf.py is not
    #: trusted, or could not be loaded): a missing target there is not a drift.
    unverified: tuple[str, ...] = ()
    #: Whether this is a project's conf.py (``sphinx-build`` would read the project), not mdmark's own.
    sphinx: bool = False

    def objtypes_for(self, domain: str, role: str) -> frozenset[str] | None:
        """The object types ``{domain:role}`` looks up (None: any, for a role no domain declares)."""
        key = f"{domain}:{role}"
        found = self.role_objtypes.get(key) or builtin_role_objtypes().get(key)
        return frozenset(found) if found else None

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
            static=bool(data.get("static", False)),
            held=tuple(str(h) for h in data.get("held", ())),
            role_objtypes={str(k): tuple(str(t) for t in v) for k, v in data.get("role_objtypes", {}).items()},
            unverified=tuple(str(d) for d in data.get("unverified", ())),
            sphinx=bool(data.get("sphinx", False)),
        )

    def suppressed(self, type_: str) -> bool:
        """Whether conf.py's ``suppress_warnings`` silences a warning ``type.subtype`` (as Sphinx matches it)."""
        kind, _, sub = type_.partition(".")
        for entry in self.suppress_warnings:
            target, _, target_sub = entry.partition(".")
            if target == kind and (not target_sub or target_sub in ("*", sub)):
                return True
        return False


def _role_objtypes(domains: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """``domain:role`` → the object types the role looks up, from each domain's ``object_types``
    (the table ``Domain.objtypes_for_role`` reads)."""
    found: dict[str, list[str]] = {}
    for domain in domains:
        for objtype, spec in dict(getattr(domain, "object_types", {}) or {}).items():
            for role in getattr(spec, "roles", ()):
                found.setdefault(f"{domain.name}:{role}", []).append(str(objtype))
    return {key: tuple(types) for key, types in found.items()}


@functools.cache
def builtin_role_objtypes() -> dict[str, tuple[str, ...]]:
    """:func:`_role_objtypes` of the domains Sphinx itself has (no application needed)."""
    from sphinx.domains.c import CDomain
    from sphinx.domains.cpp import CPPDomain
    from sphinx.domains.javascript import JavaScriptDomain
    from sphinx.domains.python import PythonDomain
    from sphinx.domains.rst import ReSTDomain
    from sphinx.domains.std import StandardDomain

    return _role_objtypes([CDomain, CPPDomain, JavaScriptDomain, PythonDomain, ReSTDomain, StandardDomain])


#: Extensions whose directives define domain objects from the project's code (so whether a name
#: exists is known only when conf.py is trusted and the extension runs): extension → domains.
CODE_DOCUMENTING: dict[str, tuple[str, ...]] = {
    "sphinx.ext.autodoc": ("py",),
    "sphinx.ext.autosummary": ("py",),
    "sphinx_automodapi.automodapi": ("py",),
    "autoapi.extension": ("py",),
    "autoapi": ("py",),
    "sphinx_click": ("std",),
    "sphinx_click.ext": ("std",),
    "sphinxcontrib.autoprogram": ("std",),
    "sphinxarg.ext": ("std",),
}


def unverified_domains(named: Iterable[str], loaded: Iterable[str]) -> tuple[str, ...]:
    """The domains whose objects only a code-documenting extension conf.py names (``named``) but
    mdmark did not load (``loaded``: untrusted conf.py, or an extension that failed) would define."""
    running = set(loaded)
    domains = {d for name in named if name not in running for d in CODE_DOCUMENTING.get(name, ())}
    return tuple(sorted(domains))


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
    trusted: bool = False,
    root: Path | None = None,
) -> tuple[Sphinx, ConfInfo]:
    """A Sphinx application reading Markdown the way the project's own build does, and its :class:`ConfInfo`.

    ``trusted``: the user trusts ``conf`` (:mod:`mdmark.host.trust`), so it runs as ``sphinx-build``
    would run it; otherwise it is only read (:func:`_create_static_app`), never executed, and no
    extension is loaded from inside the project ``root`` (default: the git work tree of conf.py's folder).

    Creating an application sets up Sphinx's process-wide logging for it; that set-up is undone
    afterwards, so a ``sphinx-build`` that runs mdmark (``mdmark.sphinx_ext``) keeps its own output.
    """
    from mdmark.util.capture import project_output

    # conf.py and the extensions' setup() run here: what they print is a note, never an answer.
    from mdmark.util.conflock import conf_lock

    with SPHINX_LOCK, _logging_kept(), conf_lock(conf, shared=False), project_output():
        if conf is not None and not trusted:
            return _create_static_app(settings, conf, workdir, root)
        return _create_app(srcdir, settings, conf, workdir)


@functools.cache
def share_docutils_settings() -> None:
    """Make docutils' settings once per kind of document instead of once per document (installed
    once per process, by the first application mdmark creates).

    For every document it reads, Sphinx builds a docutils ``OptionParser`` (some 150 options, and
    the docutils config files read again) to get default settings, and MyST builds another for a
    document it throws away (the default of a ``dict.get`` is evaluated even when the key is
    there): a quarter of reading a document. Both now get a copy of settings made once, as Sphinx's
    own ``new_document`` does with its cached settings. Each copy gets its own ``DependencyList``
    (the one value a document writes into) and its environment. The settings are equal, only not
    rebuilt: the same documents give the same doctrees (the suite's goldens and the comparison with
    ``sphinx-build`` on real projects check it). Installed only by a process that creates an
    application of mdmark's own: a ``sphinx-build`` that loads ``mdmark.sphinx_ext`` does so only for
    documents outside its source folder.
    """
    import sphinx.util.docutils as sphinx_docutils
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser as RSTParser
    from docutils.utils import DependencyList, new_document
    from myst_parser.mdit_to_docutils import base as myst_base

    built_settings = sphinx_docutils._get_settings

    # By the kinds of components (a parser is made per document; its options are its class's) and the
    # plain defaults; the environment is set on each copy, so no cached entry keeps one alive.
    made: dict[tuple[Any, ...], Any] = {}

    def get_settings(*components: Any, defaults: Any, read_config_files: bool = False) -> Any:
        plain = {k: v for k, v in defaults.items() if k != "env"}
        try:
            key = (
                tuple(c if isinstance(c, type) else type(c) for c in components),
                tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in plain.items())),
                read_config_files,
            )
            hash(key)
        except TypeError:  # a default that cannot be a key: made as before
            made_now = built_settings(*components, defaults=defaults, read_config_files=read_config_files)
            made_now.record_dependencies = DependencyList()  # never a file: docutils would truncate it
            return made_now
        cached = made.get(key)
        if cached is None:
            if len(made) >= 64:
                made.clear()
            cached = made[key] = built_settings(*components, defaults=plain, read_config_files=read_config_files)
        settings = copy.copy(cached)
        settings.record_dependencies = DependencyList()
        if "env" in defaults:
            settings.env = defaults["env"]
        return settings

    @functools.lru_cache(maxsize=8)
    def parser_defaults(parser_cls: Any) -> Any:
        return get_default_settings(parser_cls)

    def make_document(source_path: str = "notset", parser_cls: Any = RSTParser) -> Any:
        settings = copy.copy(parser_defaults(parser_cls))
        settings.record_dependencies = DependencyList()
        return new_document(source_path, settings=settings)

    sphinx_docutils._get_settings = get_settings
    myst_base.make_document = make_document


# -- parsing of untrusted documents: what docutils and MyST may do while reading ------------------


#: Substitutions nested in substitutions deeper than this are refused (each level recurses).
MAX_SUBSTITUTION_DEPTH = 32


@functools.cache
def harden_parsing() -> None:
    """Close what a document (or the folder mdmark runs in) could otherwise make docutils and MyST
    do while reading (issue 28). Installed once per process, by the first application mdmark creates;
    a ``sphinx-build`` that loads ``mdmark.sphinx_ext`` and never reads through mdmark's own
    application keeps docutils and MyST as they are.

    - docutils reads no configuration file (``docutils.conf`` in the working folder, ``~/.docutils``,
      ``/etc/docutils.conf``, ``DOCUTILSCONFIG``): settings come from mdmark only. A planted
      ``docutils.conf`` could name ``record_dependencies: /home/u/file``, which docutils truncates.
    - Substitutions render in :mod:`mdmark.host.sandbox` (MyST's Jinja2 environment runs anything).
    - Front matter is measured before MyST loads it (alias bombs, nesting), and its
      ``myst.enable_extensions`` cannot turn on what the configuration left off.
    """
    from docutils.frontend import OptionParser
    from myst_parser.mdit_to_docutils import base as myst_base
    from myst_parser.parsers import sphinx_ as myst_sphinx

    options: Any = OptionParser
    options.standard_config_files = []
    options.get_standard_config_files = classmethod(lambda cls: [])

    renderer: Any = myst_base.DocutilsRenderer
    renderer.render_substitution = _render_substitution
    original_front_matter = renderer.render_front_matter

    def render_front_matter(self: Any, token: Any) -> None:
        # Refused front matter was reported when the parser read it; MyST must not load it again.
        if isinstance(token.content, str) and _front_matter_problem(token.content, "") is not None:
            return
        original_front_matter(self, token)

    renderer.render_front_matter = render_front_matter
    parser: Any = myst_sphinx.MystParser
    parser.parse = _myst_parse


def _refuse_reading(env: Any, line: int | None, message: str) -> None:
    """A refusal while reading, at the document's line: a ``syntax`` drift with ``message`` as its sentence."""
    from sphinx.util import logging as sphinx_logging

    sphinx_logging.getLogger("mdmark").warning(
        message, location=(env.docname, line), type="mdmark", subtype="refused"
    )


def _front_matter_problem(text: str, shown: str) -> str | None:
    from mdmark.config.yamlio import bounds_problem

    # One blank line first: the YAML starts on the document's second line, so lines match.
    return bounds_problem("\n" + text, shown or "front matter")


def _front_matter_text(source: str) -> str | None:
    """The front matter block of a document as MyST finds it (``read_topmatter``), unparsed."""
    if not source.startswith("---"):
        return None
    lines = source.splitlines()
    if not lines or not lines[0].startswith("---"):
        return None
    body = []
    for line in lines[1:]:
        if line.startswith(("---", "...")):
            break
        body.append(line.rstrip() + "\n")
    return "".join(body)


def _myst_parse(self: Any, inputstring: str, document: Any) -> None:
    """MyST's ``MystParser.parse`` with the front matter measured before it is loaded and its
    ``enable_extensions`` held to the configuration's."""
    from myst_parser.config.main import TopmatterReadError, merge_file_level, read_topmatter
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser
    from myst_parser.warnings_ import create_warning

    env = document.settings.env
    config = env.myst_config
    front = _front_matter_text(inputstring)
    problem = _front_matter_problem(front, f"{env.docname} の front matter") if front is not None else None
    if problem is not None:
        _refuse_reading(env, 1, problem)
    else:
        try:
            topmatter = read_topmatter(inputstring)
        except TopmatterReadError:
            pass  # reported while rendering, as MyST does
        else:
            if topmatter:
                _hold_extensions(topmatter, config, env)

                def warning(wtype: Any, msg: str) -> None:
                    create_warning(document, msg, wtype, line=1, append_to=document)

                config = merge_file_level(config, topmatter, warning)
    parser = create_md_parser(config, SphinxRenderer)
    parser.options["document"] = document
    parser.render(inputstring)


def _hold_extensions(topmatter: dict[str, Any], config: Any, env: Any) -> None:
    """Drop from the front matter's ``myst.enable_extensions`` what the configuration does not enable."""
    myst = topmatter.get("myst")
    if not isinstance(myst, dict) or "enable_extensions" not in myst:
        return
    wanted = myst["enable_extensions"]
    if isinstance(wanted, str) or not isinstance(wanted, list | tuple | set | frozenset):
        return  # MyST reports the wrong type itself
    enabled = set(config.enable_extensions)
    extra = sorted({str(w) for w in wanted} - enabled)
    if extra:
        names = "・".join(f"`{name}`" for name in extra[:10])
        _refuse_reading(
            env,
            1,
            f"front matter の `myst.enable_extensions` の {names} は設定で有効にしていないので使わず、"
            "使うなら設定の markdown.extensions に足してください。",
        )
    myst["enable_extensions"] = [w for w in wanted if str(w) in enabled]


def _render_substitution(self: Any, token: Any, inline: bool) -> None:
    """MyST's ``render_substitution`` (``{{ name }}``), rendered by :mod:`mdmark.host.sandbox`.

    The context is the substitutions and, as ``env``, the document's name and front matter as plain
    data (MyST hands in Sphinx's environment, whose methods read and write files).
    """
    from myst_parser.mdit_to_docutils.base import REGEX_DIRECTIVE_START, token_line
    from myst_parser.warnings_ import MystWarnings

    from mdmark.host import sandbox

    position = token_line(token)

    def refuse(reason: str) -> None:
        message = sandbox.refusal_message(token.content.strip(), reason)
        if self.sphinx_env is not None:
            _refuse_reading(self.sphinx_env, position, message)
        else:
            self.create_warning(message, MystWarnings.SUBSTITUTION, line=position, append_to=self.current_node)

    context: dict[str, Any] = dict(self.md_config.substitutions)
    if self.sphinx_env is not None:
        docname = str(self.sphinx_env.docname)
        metadata = self.sphinx_env.metadata.get(docname, {})
        context["env"] = {"docname": docname, "metadata": {docname: {str(k): v for k, v in dict(metadata).items()}}}
    content = token.content.strip()
    self.document.sub_references = getattr(self.document, "sub_references", set())
    if len(self.document.sub_references) >= MAX_SUBSTITUTION_DEPTH:
        refuse(f"置き換えの中の置き換えが {MAX_SUBSTITUTION_DEPTH} 段を超えるので")
        return
    if content in context and content != "env":
        # An exact key is looked up directly (keys that are not identifiers work, MyST #1007).
        value = context[content]
        rendered = value if isinstance(value, str) else str(value)
        if len(rendered) > sandbox.MAX_VALUE_CHARS:
            refuse(f"作る値が大きすぎる（{sandbox.MAX_VALUE_CHARS:,} 文字まで）ので")
            return
        references = {content}
    else:
        try:
            rendered = sandbox.render(token.content, context)
        except sandbox.Refusal as refusal:
            refuse(str(refusal))
            return
        except Exception as error:  # an undefined name, a syntax error: as MyST reports them
            self.create_warning(
                f"Substitution error:{error.__class__.__name__}: {error}",
                MystWarnings.SUBSTITUTION,
                line=position,
                append_to=self.current_node,
            )
            return
        references = sandbox.names_in(token.content)
    cyclic = references.intersection(self.document.sub_references)
    if cyclic:
        self.create_warning(
            f"circular substitution reference: {cyclic}",
            MystWarnings.SUBSTITUTION,
            line=position,
            append_to=self.current_node,
        )
        return
    self.document.sub_references.update(references)
    try:
        if inline and not REGEX_DIRECTIVE_START.match(rendered):
            self.nested_render_text(rendered, position, inline=True)
        else:
            self.nested_render_text(rendered, position)
    finally:
        self.document.sub_references.difference_update(references)


def _create_app(srcdir: Path, settings: MarkdownSettings, conf: Path | None, workdir: Path) -> tuple[Sphinx, ConfInfo]:
    from sphinx.application import Sphinx
    from sphinx.errors import ExtensionError
    from sphinx.util import console

    share_docutils_settings()
    harden_parsing()

    console.nocolor()
    outdir, doctreedir = str(workdir / "out"), str(workdir / "doctrees")
    # What Sphinx logs while it starts (conf.py, extensions) concerns no document: it goes nowhere.
    status, warning = io.StringIO(), io.StringIO()
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
    return app, _info_of(app, dropped)


def _create_static_app(
    settings: MarkdownSettings, conf: Path, workdir: Path, root: Path | None
) -> tuple[Sphinx, ConfInfo]:
    """The application of an untrusted ``conf``: no conf.py (Sphinx is given none to run), its
    literal settings of :data:`~mdmark.host.trust.STATIC_SETTINGS` as overrides, and only the
    extensions of :data:`~mdmark.host.trust.STATIC_EXTENSIONS` installed outside the project."""
    from sphinx.application import Sphinx
    from sphinx.util import console

    from mdmark.host.confine import project_root
    from mdmark.host.trust import static_plan

    share_docutils_settings()
    harden_parsing()
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
    info = _info_of(app, list(plan.missing))
    # What the held extensions (autodoc…) would define is unknown until the user trusts conf.py.
    unverified = tuple(sorted({*info.unverified, *unverified_domains(plan.held, app.extensions)}))
    info = dataclasses.replace(info, static=True, held=plan.held, unverified=unverified)
    return app, info


def _static_value(name: str) -> bool:
    return name not in ("extensions", "smartquotes", "html_theme", "html_theme_options")


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
        role_objtypes={
            key: types
            for key, types in _role_objtypes(app.env.domains.values()).items()
            if builtin_role_objtypes().get(key) != types
        },
        unverified=unverified_domains([name for name, _reason in dropped], app.extensions),
        sphinx=True,
    )


def _fill_in(app: Sphinx, settings: MarkdownSettings) -> None:
    """The config's ``markdown`` settings, for the MyST options conf.py leaves unset."""
    if fill_in_myst(app.config, settings):
        from myst_parser.sphinx_ext.main import create_myst_config

        create_myst_config(app)  # type: ignore[no-untyped-call]


def _prepare(app: Sphinx) -> None:
    """What every application needs before reading: the documents Sphinx would find, raw toctrees."""
    from mdmark.host.keep_text import transform_class
    from mdmark.host.toctree import RecordingTocTree

    app.add_directive("toctree", RecordingTocTree, override=True)
    app.add_transform(transform_class())
    _doctrees_in_memory(app)
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


def found_documents(srcdir: Path, info: ConfInfo, extra: Iterable[str] = ()) -> list[str]:
    """The documents Sphinx would find under ``srcdir`` (docnames, sorted), without an application.

    Markdown only: mdmark reads MyST; other source files of a Sphinx project are not its documents.
    """
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
    """Whether a path relative to the source folder is excluded — as ``sphinx.util.matching.
    get_matching_files`` decides it, which also leaves out every file under an excluded folder."""
    from sphinx.util.matching import Matcher

    matcher = Matcher(list(patterns))

    def excluded(rel: str) -> bool:
        parts = rel.split("/")
        return any(matcher("/".join(parts[:n])) for n in range(1, len(parts) + 1))

    return excluded


# -- the session: the lock, Sphinx's logging, warnings as log records ------------------------------


def _collector_class() -> type[logging.Handler]:
    from sphinx.util.logging import SafeEncodingWriter, WarningStreamHandler

    class Collector(WarningStreamHandler):
        """The warning handler of every session: Sphinx's own kind (so ``pending_warnings`` and
        ``prefixed_warnings`` treat it as they treat ``sphinx-build``'s), collecting records
        into the innermost session instead of writing text."""

        def __init__(self) -> None:
            super().__init__(SafeEncodingWriter(io.StringIO()))  # never written: emit collects
            self.setLevel(logging.WARNING)
            self.sessions: list[_Session] = []

        def emit(self, record: logging.LogRecord) -> None:
            if self.sessions:
                self.sessions[-1].take(record)

    return Collector


@dataclass
class _Session:
    app: Sphinx
    #: What the handler applies to each record, as Sphinx's ``logging.setup`` does for its warning
    #: stream: ``suppress_warnings``, docname → path locations (and the ``[type]`` suffix), ``once``.
    filters: list[logging.Filter]
    found: list[Warning] = field(default_factory=list)

    def take(self, record: logging.LogRecord) -> None:
        warning = _warning_of(record, _shows_types(self.app))
        if warning is not None:
            self.found.append(warning)


#: The one handler every session collects through (created on first use: importing Sphinx is slow).
_COLLECTOR: Any = None


def _collector() -> Any:
    global _COLLECTOR
    if _COLLECTOR is None:
        _COLLECTOR = _collector_class()()
    return _COLLECTOR


def _set_logger(logger: logging.Logger, handlers: list[logging.Handler], level: int, propagate: bool) -> None:
    logger.handlers[:] = handlers
    logger.setLevel(level)
    logger.propagate = propagate


@contextlib.contextmanager
def _logging_kept() -> Iterator[None]:
    """Undo whatever the block does to the ``sphinx`` logger (``Sphinx()`` re-points it at itself)."""
    logger = logging.getLogger("sphinx")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    try:
        yield
    finally:
        _set_logger(logger, *saved)


@contextlib.contextmanager
def session(app: Sphinx) -> Iterator[list[Warning]]:
    """The block in which mdmark uses ``app``: holds :data:`SPHINX_LOCK`, points Sphinx's logging at
    the application and collects its warnings — each a :class:`~mdmark.facts.Warning` (line, type,
    first line of the message) — into the yielded list.

    Warnings pass through what ``sphinx-build`` applies to its own (``suppress_warnings``, ``once``,
    locations as paths); one without a location concerns no line of a document and is left out.
    A session inside another on the same application hands its warnings to the outer one too.
    Logging that belongs to someone else (the ``sphinx-build`` that runs ``mdmark.sphinx_ext``) is
    put back afterwards; otherwise the handler stays, so a read re-points nothing.
    """
    from sphinx.util.logging import OnceFilter, WarningLogRecordTranslator, WarningSuppressor

    with SPHINX_LOCK:
        collector = _collector()
        logger = logging.getLogger("sphinx")
        ours = logger.handlers == [collector]
        saved = (logger.handlers[:], logger.level, logger.propagate)
        if not ours:  # as Sphinx's own set-up: the handler decides, nothing reaches the root logger
            _set_logger(logger, [collector], logging.DEBUG, False)
        filters: list[logging.Filter] = [WarningSuppressor(app), WarningLogRecordTranslator(app), OnceFilter()]
        current = _Session(app, filters)
        outer_filters = collector.filters
        collector.filters = current.filters
        collector.sessions.append(current)
        try:
            yield current.found
        finally:
            collector.sessions.pop()
            collector.filters = outer_filters
            if collector.sessions and collector.sessions[-1].app is app:
                collector.sessions[-1].found.extend(current.found)
            # Someone else's handlers go back; none (a fresh process) or ours: the collector stays,
            # idle between sessions (Sphinx work outside one, if any, is dropped as it always was).
            if saved[0] and saved[0] != [collector]:
                _set_logger(logger, *saved)


def _shows_types(app: Sphinx) -> bool:
    try:
        return bool(app.config.show_warning_types)
    except AttributeError:
        return False


def _warning_of(record: logging.LogRecord, shows_types: bool) -> Warning | None:
    """A collected record as a :class:`~mdmark.facts.Warning`: the line of its location, its
    ``type.subtype`` (``docutils`` without one), the first line of its message."""
    location = getattr(record, "location", None)
    if not location:
        return None
    head, colon, tail = str(location).rpartition(":")
    line = int(tail) if colon and tail.isdecimal() else None
    source = head if line is not None else str(location)
    kind = str(getattr(record, "type", "") or "")
    subtype = str(getattr(record, "subtype", "") or "")
    suffix = f" [{kind}.{subtype}]" if kind and subtype else f" [{kind}]" if kind else ""
    # The translator filter appended Sphinx's " [type.subtype]" to the message; it is the kind here.
    text = logging.LogRecord.getMessage(record)
    if shows_types and suffix and text.endswith(suffix):
        text = text[: -len(suffix)]
    if kind and subtype:
        kind = f"{kind}.{subtype}"
    kind = kind or "docutils"
    lines = text.splitlines()
    # One sentence per diagnostic: a multi-line message keeps its first line.
    message = lines[0] if lines else ""
    if kind == "docutils" and message.startswith("toctree glob pattern "):
        kind = "toc.empty_glob"  # Sphinx gives it no type; mdmark reports it at the entry
    # Some extensions (sphinx-design) put the type in the message too: drop the repeat.
    return Warning(line, kind, message.removesuffix(f" [{kind}]"), source or None)


# -- private Sphinx attributes, each behind one name ---------------------------------------------


def take_doctree(env: BuildEnvironment, docname: str) -> nodes.document:
    """The doctree ``read_doc`` just produced, leaving it in neither of the environment's caches
    (an object and a pickle on disk), so a long-running process does not grow per read."""
    doctree: nodes.document | None = env._write_doc_doctree_cache.pop(docname, None)
    if doctree is None:
        doctree = env.get_doctree(docname)
    env._pickled_doctree_cache.pop(docname, None)
    return doctree


def forget_document(env: BuildEnvironment, docname: str) -> None:
    """Drop what the environment holds of a document whose read failed part-way."""
    env.clear_doc(docname)
    env.all_docs.pop(docname, None)
    env._write_doc_doctree_cache.pop(docname, None)
    env._pickled_doctree_cache.pop(docname, None)


@contextlib.contextmanager
def reading_as(env: BuildEnvironment, docname: str) -> Iterator[None]:
    """The environment's current document is ``docname`` inside the block (post-transforms applied
    outside a read ask it), and what it was afterwards — as ``apply_post_transforms`` does."""
    from copy import deepcopy

    backup = env.current_document
    new = deepcopy(backup)
    new.docname = docname
    try:
        env.current_document = new
        yield
    finally:
        env.current_document = backup


#: Applications whose builder has run ``prepare_writing`` (weak: an application that goes, goes).
_PREPARED: weakref.WeakSet[Sphinx] = weakref.WeakSet()


def prepare_writing(app: Sphinx) -> None:
    """``prepare_writing`` once per application (it builds the docutils settings the translator needs)."""
    if app not in _PREPARED:
        builder: Any = app.builder
        builder.prepare_writing(set())
        _PREPARED.add(app)


def is_epub(builder: Builder) -> bool:
    """Whether ``builder`` writes EPUB (its base class lives in a private module)."""
    from sphinx.builders._epub_base import EpubBuilder

    return isinstance(builder, EpubBuilder)


def std_terms(env: BuildEnvironment) -> dict[str, tuple[str, str]]:
    """The standard domain's glossary terms (``{term}`` looks them up; no public accessor)."""
    std: Any = env.domains.standard_domain
    terms: dict[str, tuple[str, str]] = std.data.setdefault("terms", {})
    return terms


def directive_options(app: Sphinx) -> dict[str, tuple[str, ...]]:
    """Every directive a document of ``app`` can use, with its options: docutils' and those the
    extensions registered (MyST, sphinx-design, conf.py's), and the domains' (``py:function``; the
    standard and default domains' also without their prefix) — what completion offers."""
    import importlib

    from docutils.parsers.rst import directives as registry

    found: dict[str, Any] = {}
    with session(app):
        for name, (module, cls) in getattr(registry, "_directive_registry", {}).items():
            try:
                found[name] = getattr(importlib.import_module(f"docutils.parsers.rst.directives.{module}"), cls)
            except (ImportError, AttributeError):
                continue
        found.update(getattr(registry, "_directives", {}))
        default = app.config.primary_domain
        for domain in app.env.domains.sorted() if hasattr(app.env.domains, "sorted") else app.env.domains.values():
            for name, cls in domain.directives.items():
                found[f"{domain.name}:{name}"] = cls
                if domain.name in ("std", default):
                    found.setdefault(name, cls)
    out: dict[str, tuple[str, ...]] = {}
    for name, cls in found.items():
        spec = getattr(cls, "option_spec", None) or {}
        out[name] = tuple(sorted(spec))
    return dict(sorted(out.items()))
