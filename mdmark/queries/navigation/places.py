"""Where a drift is written: the reference it is about (its target as written, line and columns),
the index key's value, else its line. The language server underlines it there; ``check --format
github`` and ``--format sarif`` give its line and column (the text format keeps the line the
facts carry: a reference's paragraph line, as Sphinx reports it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.core.diagnostics import Diagnostic
from mdmark.queries.navigation.navigator import Navigator, Span

if TYPE_CHECKING:
    from mdmark.project.main import Project

_QUOTED = re.compile(r"`([^`]+)`")


def drift_span(navigator: Navigator, path: Path, drift: Diagnostic) -> Span | None:
    """The span of ``drift`` in ``path`` (resolved): the reference whose written target the
    sentence quotes (between its first pairs of backquotes), the index key's value, else the line's
    text; None when the drift has no line."""
    if drift.line is None:
        return None
    if navigator.is_index(path):
        return navigator.index_span(drift.where) if drift.where else Span(path, drift.line)
    for hint in _QUOTED.findall(drift.message)[:2]:
        span = navigator.reference_span(path, drift.line, hint)
        if span is not None:
            return span
    lines = navigator.lines(path)
    text = lines[drift.line - 1] if 0 < drift.line <= len(lines) else ""
    return Span(path, drift.line, len(text) - len(text.lstrip()), len(text))


def drift_spans(project: Project, diagnostics: Sequence[Diagnostic]) -> list[Span | None]:
    """Each of ``diagnostics`` (a finished check of ``project``) with its span, in order. Reads the
    project's facts again (cached) only when some drift has a line to place."""
    if not any(d.line is not None for d in diagnostics):
        return [None] * len(diagnostics)
    from mdmark.check.rules.context import build_context

    navigator = Navigator(build_context(project, None, None))
    root = project.root
    return [drift_span(navigator, (root / d.file).resolve(), d) for d in diagnostics]
