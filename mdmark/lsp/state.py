"""What the language server keeps per project: the last check's drifts and navigator, the lanes'
flags (:class:`ProjectState`), and one check run's results (:class:`Checked`, :class:`Quick`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError

if TYPE_CHECKING:
    from mdmark.core.diagnostics import Diagnostic
    from mdmark.queries.navigation.navigator import Navigator, Span

Drifts = list[tuple["Diagnostic", "Span | None"]]


@dataclass
class Checked:
    """One check run's result: the navigator and each file's drifts with the span shown."""

    navigator: Navigator | None
    drifts: dict[Path, Drifts]
    #: A config or index that cannot be read as YAML: the file and the error (no drifts then).
    error: MdmarkError | None = None


@dataclass
class Quick:
    """One document's check: its drifts, the project's navigator with its new facts, and whether
    the project lane must run too (what other files can refer to changed, or drifts landed in
    another file: an ``{include}``d one)."""

    drifts: Drifts
    navigator: Navigator
    others: bool


@dataclass
class ProjectState:
    root: Path
    #: Bumped by every change the project lane would see: a running project check is stale when it moved.
    generation: int = 0
    #: What questions are answered from: the last check's project (None until the first).
    navigator: Navigator | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    drifts: dict[Path, Drifts] = field(default_factory=dict)
    #: Files published with a non-empty list (to be cleared when their drifts go).
    shown: set[Path] = field(default_factory=set)
    directives: dict[str, tuple[str, ...]] | None = None
    #: Documents changed since their own last check, oldest first (the document lane's work).
    edited: dict[Path, None] = field(default_factory=dict)
    quick_running: bool = False
    #: Other files' drifts may be out of date: a project check is owed until one is published.
    whole_wanted: bool = False
    #: The owed project check is for a change only it sees (the index, a new file): run it after
    #: the debounce, not once the writer pauses.
    whole_urgent: bool = False
    whole_running: bool = False
