"""The directives and roles each Sphinx application mdmark makes sees: its own, never another's.

docutils keeps its directives and roles in two dicts global to the process
(``docutils.parsers.rst.directives._directives``, ``roles._roles``), and Sphinx's
``app.add_directive``/``add_role`` (every extension's ``setup()``) write into them. ``sphinx-build``
makes one application inside ``sphinx.util.docutils.docutils_namespace()``, which puts the dicts
back afterwards. mdmark can make several applications in one process (a worker keeps up to
``PIPELINES_PER_WORKER`` projects; a lapsed trust's trusted attempt, then its untrusted fallback; a
library caller, or the test suite, that makes one before its worker pool forks from it), so without
a namespace per application the directives one application's extensions registered were found by
the next: an untrusted project's reading, which loads no sphinx-design, ran sphinx-design's
``grid`` directive, which asked the application's config for ``sd_custom_directives`` it never
registered (and a directive held until trust ran unchecked).

Each application gets its own pair of dicts, made while it is created (:func:`apart`) from the
process's as they were before; :func:`in_use` (entered by every
:func:`~mdmark.host.session.session`) puts them in place while the application is used, keeps
what was registered meanwhile, and puts the process's back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

#: The attribute of a Sphinx application that holds its :class:`Names`.
ATTRIBUTE = "mdmark_docutils_names"

T = TypeVar("T")


@dataclass
class Names:
    """One namespace: docutils' directive and role dicts (the objects themselves)."""

    directives: dict[str, Any]
    roles: dict[str, Any]

    def copy(self) -> Names:
        return Names(dict(self.directives), dict(self.roles))


def _current() -> Names:
    from docutils.parsers.rst import directives, roles

    registry: Any = directives
    role_registry: Any = roles
    return Names(registry._directives, role_registry._roles)


def _install(names: Names) -> None:
    from docutils.parsers.rst import directives, roles

    registry: Any = directives
    role_registry: Any = roles
    registry._directives = names.directives
    role_registry._roles = names.roles


class Apart:
    """The namespace of the application being created (see :func:`apart`)."""

    def __init__(self, base: Names) -> None:
        self._base = base
        self.restart()

    def restart(self) -> None:
        """A new attempt starts from the process's names again (an extension that failed part-way
        and is left out leaves nothing registered)."""
        _install(self._base.copy())

    def keep(self, made: T) -> T:
        """``made`` — an application, or a tuple starting with one — keeps the names registered
        since the last :meth:`restart`."""
        app = made[0] if isinstance(made, tuple) else made
        setattr(app, ATTRIBUTE, _current())
        return made


@contextlib.contextmanager
def apart() -> Iterator[Apart]:
    """The block that creates one application: what it registers goes into a copy of the process's
    names, kept by :meth:`Apart.keep`; afterwards the process's names are as they were."""
    base = _current()
    try:
        yield Apart(base)
    finally:
        _install(base)


@contextlib.contextmanager
def in_use(app: Any) -> Iterator[None]:
    """The block in which ``app`` is used: its names are docutils' (with what the block registers
    kept for it), and the names before are back afterwards. An application made elsewhere (the
    ``sphinx-build`` that runs ``mdmark.sphinx_ext``) has none and changes nothing."""
    own = getattr(app, ATTRIBUTE, None)
    if not isinstance(own, Names):
        yield
        return
    before = _current()
    _install(own)
    try:
        yield
    finally:
        setattr(app, ATTRIBUTE, _current())
        _install(before)
