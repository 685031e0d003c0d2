"""What the rest of mdmark needs to know of a Sphinx configuration, as plain data: :class:`ConfInfo`
(cached by the digest of ``conf.py``, so a warm run never executes ``conf.py`` again), the object
types of the domains' roles, the domains a code-documenting extension would fill, and the documents
Sphinx would find under a source folder without creating an application."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mdmark.config.main import MarkdownSettings
from mdmark.util.environment import environment_digest
from mdmark.util.globs import match_files

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


def conf_digest(conf: Path | None, trusted: str | None = None) -> str:
    """What identifies a conf.py and the packages it loads in cache keys: ``trusted`` (the trust
    fingerprint, conf.py and its local modules) when it runs, else ``static:`` and the digest of
    the file read; always the installed packages' stamp (:mod:`mdmark.util.environment`), so a
    package installed after a read failed for want of it is read again."""
    env = environment_digest()
    if conf is None:
        return f"env:{env}"
    if trusted is not None:
        return f"trusted:{trusted}\0env:{env}"
    try:
        data = conf.read_bytes()
    except OSError:
        return f"static:unreadable\0env:{env}"
    digest = hashlib.sha256(data)
    if b"exec" in data:
        # The files conf.py exec()s are read as its own text (:mod:`mdmark.host.static_conf`).
        from mdmark.host.static_conf import read_conf

        for path in read_conf(conf).files:
            try:
                digest.update(b"\0" + hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"\0unreadable")
    return f"static:{digest.hexdigest()}\0env:{env}"


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
    #: With :attr:`static`: why conf.py could not be read at all (:attr:`StaticConf.problem`), if so.
    static_problem: str | None = None
    #: The object types each role of a domain an extension adds looks up (``domain:role`` →
    #: object types); Sphinx's own domains' come from :func:`builtin_role_objtypes`.
    role_objtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Domains whose objects code mdmark did not run would define (autodoc while conf.py is not
    #: trusted, or could not be loaded): a missing target there is not a drift.
    unverified: tuple[str, ...] = ()
    #: Whether this is a project's conf.py (``sphinx-build`` would read the project), not mdmark's own.
    sphinx: bool = False
    #: Whether :attr:`role_objtypes` holds every domain's roles, Sphinx's own too (made from an
    #: application): the process that answers then never imports Sphinx's domains to look one up.
    every_role: bool = False
    #: Suffixes of documents only a held extension reads (myst-nb's ``.ipynb`` and ``nb_custom_formats``):
    #: they exist for Sphinx, but mdmark reads them only once conf.py is trusted.
    held_suffixes: tuple[str, ...] = ()
    #: conf.py's ``language`` (Sphinx's default, English, when it sets none): the page's fixed labels.
    language: str = "en"
    #: With :attr:`static`: the project's modules a trusted conf.py went to load unpinned (relative
    #: to the project root), so the trust lapsed as it ran (:mod:`mdmark.host.trust_ran`).
    lapsed: tuple[str, ...] = ()
    #: With :attr:`static`: the settings whose value the static reading could not find, how conf.py
    #: runs other code into its namespace (``exec``…; then every setting but those of
    #: :attr:`settled` is unknown too) — see :attr:`StaticPlan.unread <mdmark.host.static_plan.StaticPlan>`.
    #: Check holds the drifts they could explain (:mod:`mdmark.references.held`).
    unread: tuple[str, ...] = ()
    opaque: tuple[str, ...] = ()
    settled: tuple[str, ...] = ()

    def uncertain(self, name: str) -> bool:
        """Whether conf.py's setting ``name`` may have a value the untrusted reading did not find."""
        if not self.static:
            return False
        return name in self.unread or (bool(self.opaque) and name not in self.settled)

    def objtypes_for(self, domain: str, role: str) -> frozenset[str] | None:
        """The object types ``{domain:role}`` looks up (None: any, for a role no domain declares)."""
        key = f"{domain}:{role}"
        found = self.role_objtypes.get(key)
        if not found and not self.every_role:
            found = builtin_role_objtypes().get(key)
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
            static_problem=str(data["static_problem"]) if data.get("static_problem") else None,
            role_objtypes={str(k): tuple(str(t) for t in v) for k, v in data.get("role_objtypes", {}).items()},
            unverified=tuple(str(d) for d in data.get("unverified", ())),
            sphinx=bool(data.get("sphinx", False)),
            every_role=bool(data.get("every_role", False)),
            held_suffixes=tuple(str(x) for x in data.get("held_suffixes", ())),
            language=str(data.get("language") or "en"),
            lapsed=tuple(str(x) for x in data.get("lapsed", ())),
            unread=tuple(str(x) for x in data.get("unread", ())),
            opaque=tuple(str(x) for x in data.get("opaque", ())),
            settled=tuple(str(x) for x in data.get("settled", ())),
        )

    def suppressed(self, type_: str) -> bool:
        """Whether conf.py's ``suppress_warnings`` silences a warning ``type.subtype`` (as Sphinx matches it)."""
        kind, _, sub = type_.partition(".")
        for entry in self.suppress_warnings:
            target, _, target_sub = entry.partition(".")
            if target == kind and (not target_sub or target_sub in ("*", sub)):
                return True
        return False


def role_objtypes_of(domains: Iterable[Any]) -> dict[str, tuple[str, ...]]:
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
    """:func:`role_objtypes_of` of the domains Sphinx itself has (no application needed)."""
    from sphinx.domains.c import CDomain
    from sphinx.domains.cpp import CPPDomain
    from sphinx.domains.javascript import JavaScriptDomain
    from sphinx.domains.python import PythonDomain
    from sphinx.domains.rst import ReSTDomain
    from sphinx.domains.std import StandardDomain

    return role_objtypes_of([CDomain, CPPDomain, JavaScriptDomain, PythonDomain, ReSTDomain, StandardDomain])


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
    # The inventories of other projects (Python's own: ``str``, ``logging.Logger``) name py objects.
    "sphinx.ext.intersphinx": ("py",),
}


#: Extensions that put documents into the toctrees themselves (a blog's posts, a ``_toc.yml``):
#: while they are held, whether a document is in a toctree is not known.
TOC_PLACING: frozenset[str] = frozenset({"ablog", "sphinx_external_toc", "autoapi", "autoapi.extension"})


def unverified_domains(named: Iterable[str], loaded: Iterable[str]) -> tuple[str, ...]:
    """The domains whose objects only a code-documenting extension conf.py names (``named``) but
    mdmark did not load (``loaded``: untrusted conf.py, or an extension that failed) would define."""
    running = set(loaded)
    domains = {d for name in named if name not in running for d in CODE_DOCUMENTING.get(name, ())}
    return tuple(sorted(domains))


def info_for_settings(settings: MarkdownSettings) -> ConfInfo:
    """The configuration of mdmark's own application (no conf.py)."""
    return ConfInfo(heading_anchors=settings.heading_anchors)


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


def held_documents(srcdir: Path, info: ConfInfo) -> dict[str, str]:
    """The documents of :attr:`ConfInfo.held_suffixes` (docname → path relative to ``srcdir``):
    Sphinx reads them through an extension held until trust, so mdmark knows they are there, not what they hold."""
    if not info.held_suffixes:
        return {}
    excluded = _matcher(info.exclude_patterns)
    found: dict[str, str] = {}
    for path in match_files(srcdir, tuple(f"**/*{s}" for s in info.held_suffixes), ()):
        rel = path.relative_to(srcdir).as_posix()
        if not excluded(rel):
            found.setdefault(next(rel.removesuffix(s) for s in info.held_suffixes if rel.endswith(s)), rel)
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
