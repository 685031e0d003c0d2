"""Which drifts an untrusted conf.py's unread settings could explain: held until ``mdmark trust``.

Before trust conf.py is read without running it (:mod:`mdmark.host.static_conf`). A setting it
computes (``extensions = [e for e in base.extensions if …]``, a value from another module, an
``os.environ`` switch) or that code it runs into its namespace may set (``exec``, ``from x import
*``) has a value the reading does not know; mdmark then reads the documents with Sphinx's default
for it, and a drift that the real value could make vanish is not a finding but a guess. Such a
drift is *held*: not reported, counted in the one trust notice, which names the settings. After
trust conf.py runs, every setting is known, and nothing is held.

Each setting explains only the drifts it can cause (:data:`_EXPLAINS`), so the index's own rules
(titles, aliases, missing documents, relations) and the drifts no setting touches stay reported:

* ``myst_enable_extensions`` and the other ``myst_*`` settings change how Markdown itself reads
  (``colon_fence`` makes a paragraph a directive, ``attrs_block`` a label, ``deflist`` a glossary,
  ``dollarmath`` a labelled formula): every drift read from a document's text.
* ``suppress_warnings`` may silence any warning: every drift of a document, too.
* ``myst_heading_anchors``: links to headings (``broken_anchor``).
* ``extensions``: what an extension adds — labels, terms, documents, inventories and lexers
  (references, ``code_language``, ``not_in_toctree``) and its directives and roles (unknown markup).
* ``intersphinx_mapping``, ``nitpicky``/``nitpick_ignore``/``nitpick_ignore_regex``,
  ``root_doc``/``exclude_patterns``/``source_suffix``, ``numfig``/``math_*``, ``default_role``,
  ``extlinks``, ``autosectionlabel_*``, ``highlight_language``, ``sd_custom_directives``,
  ``sd_card_legacy_separators``: the references, toctree entries, roles, numbers, lexers or
  directives each decides. Settings of how the page looks (``html_*``, ``sd_fontawesome_source``…)
  explain no drift.
"""

from __future__ import annotations

from collections.abc import Callable

from mdmark.host.confine import OUTSIDE_WARNING, REFUSED_WARNING
from mdmark.host.confinfo import ConfInfo
from mdmark.references.lookup import Problem

#: Drift kinds that are references (a target that is nowhere).
_REFERENCES = frozenset({"broken_link", "broken_anchor"})
#: Drift kinds about the toctrees (which documents there are, and where).
_TOCTREES = frozenset({"toctree_no_title", "toctree_cycle", "not_in_toctree"})
#: Warning types of markup no one registered.
_UNKNOWN_MARKUP = frozenset({"myst.directive_unknown", "myst.role_unknown"})
#: Reference types that only an object of a domain (autodoc's, an inventory's) resolves, which
#: Sphinx reports only with ``nitpicky``; the standard roles warn whatever it says.
_ALWAYS_WARN = frozenset({"ref.ref", "ref.doc", "ref.numref", "ref.term", "ref.eq", "ref.keyword", "ref.option"})


def _any(problem: Problem) -> bool:
    return True


def _anchor(problem: Problem) -> bool:
    return problem.kind == "broken_anchor"


def _extension_made(problem: Problem) -> bool:
    return (
        problem.kind in _REFERENCES
        or problem.kind in ("code_language", "not_in_toctree")
        or problem.type in _UNKNOWN_MARKUP
    )


def _reference(problem: Problem) -> bool:
    return problem.kind in _REFERENCES


def _nitpicky(problem: Problem) -> bool:
    return problem.type.startswith("ref.") and problem.type not in _ALWAYS_WARN


def _documents(problem: Problem) -> bool:
    return problem.kind in _TOCTREES or problem.kind == "broken_link"


def _numbers(problem: Problem) -> bool:
    return problem.type in ("ref.numref", "ref.eq")


def _roles(problem: Problem) -> bool:
    return problem.kind in _REFERENCES or problem.type in _UNKNOWN_MARKUP


def _lexer(problem: Problem) -> bool:
    return problem.kind == "code_language"


def _design(problem: Problem) -> bool:
    return problem.type.startswith("design.")


#: Each setting (or prefix, ending in ``_``/``*``) and the drifts a value the reading did not find could explain.
_EXPLAINS: tuple[tuple[str, Callable[[Problem], bool]], ...] = (
    ("myst_heading_anchors", _anchor),
    ("myst_heading_slug_func", _anchor),
    ("myst_*", _any),
    ("suppress_warnings", _any),
    ("extensions", _extension_made),
    ("intersphinx_mapping", _reference),
    ("nitpicky", _nitpicky),
    ("nitpick_ignore", _nitpicky),
    ("nitpick_ignore_regex", _nitpicky),
    ("root_doc", _documents),
    ("master_doc", _documents),
    ("exclude_patterns", _documents),
    ("include_patterns", _documents),
    ("source_suffix", _documents),
    ("numfig", _numbers),
    ("numfig_format", _numbers),
    ("numfig_secnum_depth", _numbers),
    ("math_numfig", _numbers),
    ("math_number_all", _numbers),
    ("math_eqref_format", _numbers),
    ("default_role", _roles),
    ("primary_domain", _roles),
    ("extlinks", _roles),
    ("autosectionlabel_prefix_document", _anchor),
    ("autosectionlabel_maxdepth", _anchor),
    ("highlight_language", _lexer),
    ("sd_custom_directives", _roles),
    ("sd_card_legacy_separators", _design),
)

#: ``myst_`` settings with a narrower row of their own: unread, they do not make ``myst_*`` unread.
_EXCLUSIVE = ("myst_heading_anchors", "myst_heading_slug_func")


def _uncertain(info: ConfInfo, setting: str) -> bool:
    """Whether ``setting`` (or, ending in ``*``, any setting of that prefix) may have a value the reading did not find."""
    if not setting.endswith("*"):
        return info.uncertain(setting)
    prefix = setting[:-1]
    if info.opaque:
        return True  # code run into the namespace may set any of them
    return any(name.startswith(prefix) and name not in _EXCLUSIVE for name in info.unread)


def explaining(name: str) -> bool:
    """Whether setting ``name`` could explain any drift (:data:`_EXPLAINS`)."""
    return any(name == setting or (setting.endswith("*") and name.startswith(setting[:-1])) for setting, _ in _EXPLAINS)


def unread_settings(info: ConfInfo) -> tuple[str, ...]:
    """The unread settings of an untrusted conf.py that could explain a drift (the notice names them)."""
    return tuple(name for name in info.unread if explaining(name))


def holding(info: ConfInfo) -> bool:
    """Whether any drift may be held: the reading is untrusted and left a setting unread that
    could explain one (or conf.py runs other code into its namespace)."""
    return info.static and bool(info.opaque or unread_settings(info))


def held_by(problem: Problem, info: ConfInfo) -> str | None:
    """The unread setting of an untrusted conf.py that could explain ``problem`` (so it is held,
    not reported), or None (reported)."""
    if not holding(info) or problem.type in (OUTSIDE_WARNING, REFUSED_WARNING):
        return None  # mdmark's own refusals (a file outside the project) are no setting's doing
    for setting, explains in _EXPLAINS:
        if explains(problem) and _uncertain(info, setting):
            return setting
    return None
