"""What is read of an untrusted ``conf.py``: its literal settings of :data:`STATIC_SETTINGS` (in the
shape each must have) and the extensions of :data:`STATIC_EXTENSIONS` installed outside the project;
every other extension waits for ``mdmark trust`` (:mod:`mdmark.host.trust`).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.host.static_conf import UNREAD, StaticConf, has_unread, read_conf
from mdmark.host.trust_fingerprint import import_dirs, local_module_files

#: Settings an untrusted conf.py may give (statically read): data that shapes how documents read,
#: none that names code, a program, a template or a network address.
STATIC_SETTINGS: frozenset[str] = frozenset(
    {
        "project", "author", "copyright", "version", "release", "today", "today_fmt",
        "root_doc", "master_doc", "source_suffix", "exclude_patterns", "include_patterns",
        "numfig", "numfig_format", "numfig_secnum_depth", "language",
        "suppress_warnings", "nitpicky", "nitpick_ignore", "show_warning_types",
        "primary_domain", "default_role", "highlight_language", "rst_prolog", "rst_epilog",
        "math_number_all", "math_eqref_format", "math_numfig",
        "extlinks", "extlinks_detect_hardcoded_links", "todo_include_todos", "todo_emit_warnings",
        "autosectionlabel_prefix_document", "autosectionlabel_maxdepth",
    }
)  # fmt: skip
#: Prefixes of further settings read statically (MyST's and sphinx-design's are data) …
STATIC_PREFIXES: tuple[str, ...] = ("myst_", "sd_")
#: … except these, which name code to import.
STATIC_EXCLUDED: frozenset[str] = frozenset({"myst_heading_slug_func"})

#: Extensions an untrusted project may load, when installed outside the project: they read
#: documents and add directives and roles, and run no program, import nothing by a name a document
#: gives, and evaluate no document text. Any other extension waits for ``mdmark trust``.
STATIC_EXTENSIONS: frozenset[str] = frozenset(
    {
        "myst_parser", "sphinx_design", "mdmark.sphinx_ext",
        "sphinx.ext.todo", "sphinx.ext.extlinks", "sphinx.ext.mathjax", "sphinx.ext.githubpages",
        "sphinx.ext.autosectionlabel", "sphinx.ext.napoleon", "sphinx.ext.duration",
        "sphinx_copybutton", "sphinx_togglebutton", "sphinx_inline_tabs", "sphinxext.opengraph",
    }
)  # fmt: skip

#: Directives an untrusted ``sd_custom_directives`` entry may inherit from: sphinx-design's own and
#: the admonitions. Inheriting ``include`` or ``raw`` would make a name that reads files.
SD_INHERITABLE: frozenset[str] = frozenset(
    {
        "dropdown", "card", "card-carousel", "grid", "grid-item", "grid-item-card", "tab-set", "tab-item",
        "tab-set-code", "article-info", "button-link", "button-ref", "div",
        "admonition", "note", "warning", "tip", "important", "hint", "caution", "danger", "error", "attention", "seealso",
    }
)  # fmt: skip


def _strings(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


#: The shape each setting must have to be used (anything else keeps Sphinx's default): a literal
#: in an odd shape must not reach code that expects the real one.
_SHAPES: dict[str, Any] = {
    "root_doc": lambda v: isinstance(v, str),
    "master_doc": lambda v: isinstance(v, str),
    "numfig": lambda v: isinstance(v, bool),
    "numfig_format": _str_map,
    "numfig_secnum_depth": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "suppress_warnings": _strings,
    "nitpicky": lambda v: isinstance(v, bool),
    "nitpick_ignore": lambda v: isinstance(v, (list, tuple, set))
    and all(isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in v),
    "exclude_patterns": _strings,
    "include_patterns": _strings,
    "source_suffix": lambda v: isinstance(v, str) or _strings(v) or _str_map(v),
    "extlinks": lambda v: isinstance(v, dict)
    and all(isinstance(k, str) and isinstance(p, (list, tuple)) and len(p) == 2 for k, p in v.items()),
    "myst_heading_anchors": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6,
    "myst_enable_extensions": _strings,
    "todo_include_todos": lambda v: isinstance(v, bool),
}


def static_setting(name: str) -> bool:
    """Whether an untrusted conf.py's literal value of ``name`` is used."""
    if name in STATIC_EXCLUDED:
        return False
    return name in STATIC_SETTINGS or name.startswith(STATIC_PREFIXES)


def installed_outside(name: str, root: Path) -> bool | None:
    """Whether extension ``name`` is importable from the environment, outside ``root``: True, False
    when it resolves inside ``root`` (the repository's own), None when it is not importable at all.

    Only a name of :data:`STATIC_EXTENSIONS` is looked up whole (finding ``a.b`` imports ``a``); any
    other is looked up by its top-level name, which imports nothing."""
    probe = name if name in STATIC_EXTENSIONS else name.split(".")[0]
    if not all(part.isidentifier() for part in probe.split(".")):
        return None
    try:
        spec = importlib.util.find_spec(probe)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    places = [spec.origin] if spec.origin and spec.origin not in ("built-in", "frozen") else []
    places += list(spec.submodule_search_locations or [])
    for place in places:
        try:
            Path(place).resolve().relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        return False
    return True


@dataclass(frozen=True)
class StaticPlan:
    """How an untrusted conf.py is used: the settings given to Sphinx, the extensions loaded, and
    what waits for trust."""

    values: dict[str, Any]
    extensions: tuple[str, ...]
    #: Extensions not loaded until the project is trusted (not on the allow-list, or the project's own).
    held: tuple[str, ...]
    #: Extensions that are nowhere to be imported: (name, reason).
    missing: tuple[tuple[str, str], ...]
    #: Why conf.py could not be read at all, if so.
    problem: str | None = None
    #: Settings that shape how documents read whose value the reading could not find (an
    #: expression it does not follow, a branch it cannot decide; :attr:`StaticConf.unread`).
    unread: tuple[str, ...] = ()
    #: How conf.py runs other code into its namespace (:attr:`StaticConf.opaque`): then every
    #: setting but those of :attr:`settled` may be set there too.
    opaque: tuple[str, ...] = ()
    settled: tuple[str, ...] = ()


#: Settings that are not used before trust but decide what the held parts would do to documents:
#: which extensions run, and the inventories intersphinx would read.
_SHAPING: frozenset[str] = frozenset({"extensions", "intersphinx_mapping", "nitpick_ignore_regex"})


def shapes_reading(name: str) -> bool:
    """Whether setting ``name`` of conf.py changes how the documents read (so not knowing its
    value may explain a drift): the settings read statically and :data:`_SHAPING`."""
    return name in _SHAPING or static_setting(name) or name == "myst_heading_slug_func"


def static_plan(conf: Path, root: Path, static: StaticConf | None = None) -> StaticPlan:
    """What mdmark uses of an untrusted ``conf`` (inside project ``root``)."""
    static = static if static is not None else read_conf(conf)
    values = {
        k: v
        for k, v in ((k, _known_part(k, v)) for k, v in static.values.items())
        if static_setting(k) and not has_unread(v) and (k not in _SHAPES or _SHAPES[k](v))
    }
    custom = values.get("sd_custom_directives")
    if isinstance(custom, dict):
        values["sd_custom_directives"] = {
            k: v for k, v in custom.items() if isinstance(v, dict) and v.get("inherit") in SD_INHERITABLE
        }
    language = values.get("language")
    if language is not None and not (isinstance(language, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,20}", language)):
        values.pop("language")
    loaded: list[str] = []
    held: list[str] = []
    missing: list[tuple[str, str]] = []
    for name in static.extensions or ():
        where = installed_outside(name, root)
        if where is None:
            # The project's own module that is not on any path without conf.py: it waits for trust.
            if local_module_files(name, import_dirs(conf, root, static)):
                held.append(name)
            else:
                missing.append((name, f"ModuleNotFoundError: No module named '{name}'"))
        elif where and name in STATIC_EXTENSIONS:
            loaded.append(name)
        else:
            held.append(name)
    values.pop("extensions", None)
    # A setting the reading found only in part (a call among literals) is as unread as one it did not find.
    partly = {k for k, v in static.values.items() if k != "myst_substitutions" and has_unread(v)}
    unread = tuple(sorted(k for k in static.unread | partly if shapes_reading(k)))
    settled = tuple(sorted(k for k in static.settled if shapes_reading(k) and k not in partly))
    return StaticPlan(
        values, tuple(dict.fromkeys(loaded)), tuple(dict.fromkeys(held)), tuple(missing), static.problem,
        unread, static.opaque, settled,
    )  # fmt: skip


def _known_part(name: str, value: Any) -> Any:
    """A substitution conf.py computes (a call in ``myst_substitutions``) is known to exist but not
    its text: it stands as an empty text, so a document that uses it is not a drift; any other
    setting with a value the reading could not follow is left to Sphinx's default."""
    if name == "myst_substitutions" and isinstance(value, dict):
        return {k: ("" if v is UNREAD else v) for k, v in value.items()}
    return value
