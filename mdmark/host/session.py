"""The session every use of a Sphinx application runs in: the process lock (:data:`SPHINX_LOCK`),
Sphinx's logging pointed at the application, and its warnings collected as log records and turned
into :class:`~mdmark.core.facts.Warning` values."""

from __future__ import annotations

import contextlib
import io
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mdmark.core.facts import Warning

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: Serialises all Sphinx/docutils work in this process: Sphinx and docutils keep global state
#: (directive registries, the logging set-up). :func:`session` takes it.
SPHINX_LOCK = threading.RLock()


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
def logging_kept() -> Iterator[None]:
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
    the application and collects its warnings — each a :class:`~mdmark.core.facts.Warning` (line, type,
    first line of the message) — into the yielded list.

    Warnings pass through what ``sphinx-build`` applies to its own (``suppress_warnings``, ``once``,
    locations as paths); one without a location concerns no line of a document and is left out.
    A session inside another on the same application hands its warnings to the outer one too.
    Logging that belongs to someone else (the ``sphinx-build`` that runs ``mdmark.sphinx_ext``) is
    put back afterwards; otherwise the handler stays, so a read re-points nothing.
    """
    from sphinx.util.logging import OnceFilter, WarningLogRecordTranslator, WarningSuppressor

    from mdmark.host.docutils_names import in_use

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
            with in_use(app):  # the application's own directives and roles (mdmark.host.docutils_names)
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
    """A collected record as a :class:`~mdmark.core.facts.Warning`: the line of its location, its
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
