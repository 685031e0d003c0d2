"""What the extension knows about the mdmark project behind a Sphinx build.

One :class:`State` per Sphinx application: the mdmark config found from ``conf.py``'s folder (or
``mdmark_config``), and the index, loaded on first use only (a build that never needs it never
reads it). Index documents map to Sphinx docnames through their paths relative to the srcdir.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from mdmark.config.main import Config
from mdmark.core.errors import MdmarkError
from mdmark.index.model import Doc, Index, load_index

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

_ATTR = "_mdmark_state"

#: The state by environment, for directives (which see the environment, not the application).
_BY_ENV: weakref.WeakKeyDictionary[BuildEnvironment, State] = weakref.WeakKeyDictionary()


@dataclass
class State:
    """The mdmark side of one Sphinx build. ``config`` is None when no config was found."""

    confdir: Path
    config: Config | None
    _index: Index | None = field(default=None, repr=False)
    _index_error: str | None = field(default=None, repr=False)

    @property
    def root(self) -> Path | None:
        return self.config.root if self.config is not None else None

    def index(self) -> Index:
        """The index model; raises :class:`MdmarkError` (one sentence) when there is none or it is unreadable."""
        if self._index is not None:
            return self._index
        if self._index_error is not None:
            raise MdmarkError(self._index_error)
        try:
            if self.config is None:
                raise MdmarkError(
                    f"`{self.confdir}` から上のフォルダに mdmark.config.yaml が無いので、置くか conf.py の "
                    "`mdmark_config` で場所を指定してください。"
                )
            path = self.config.require_index()
            self._index = load_index(path, self.config.root)
        except MdmarkError as exc:
            self._index_error = exc.message
            raise
        return self._index

    def forget_index(self) -> None:
        """Read the index again on next use (a new build of a long-lived application)."""
        self._index = None
        self._index_error = None

    def index_or_none(self) -> Index | None:
        try:
            return self.index()
        except MdmarkError:
            return None

    def index_file(self) -> Path | None:
        """The index file's path, when the config names one (whether or not it can be read)."""
        return self.config.index_path if self.config is not None else None


def get_state(app: Sphinx) -> State:
    state = getattr(app, _ATTR, None)
    if state is None:
        # config-inited has not run (an app built by hand without it): nothing is known.
        state = State(confdir=Path(app.confdir), config=None)
        set_state(app, state)
    return cast(State, state)


def set_state(app: Sphinx, state: State) -> None:
    setattr(app, _ATTR, state)


def bind_env(app: Sphinx) -> None:
    """On ``builder-inited``: make the state reachable from the environment (and so from directives)."""
    _BY_ENV[app.env] = get_state(app)


def on_env_before_read_docs(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    get_state(app).forget_index()


def env_state(env: BuildEnvironment) -> State:
    state = _BY_ENV.get(env)
    if state is None:
        # An environment no builder-inited saw: nothing is known about the project.
        state = _BY_ENV[env] = State(confdir=Path(env.srcdir), config=None)
    return state


def docname_for_path(env: BuildEnvironment, path: Path) -> str | None:
    """The docname of a file if Sphinx builds it (``path`` may be resolved, the srcdir a symlink)."""
    srcdir = Path(env.srcdir)
    try:
        rel = path.resolve().relative_to(srcdir.resolve())
    except ValueError:
        return None
    docname = env.path2doc(srcdir / rel)
    if docname is None or docname not in env.found_docs:
        return None
    return docname


def docname_of(env: BuildEnvironment, index: Index, doc: Doc) -> str | None:
    """The Sphinx docname of an index document, or None when Sphinx does not build that file."""
    return docname_for_path(env, index.doc_file(doc))


def doc_for_docname(env: BuildEnvironment, index: Index, docname: str) -> Doc | None:
    """The index document that a Sphinx document is, if any."""
    for doc in index.docs:
        if docname_of(env, index, doc) == docname:
            return doc
    return None
