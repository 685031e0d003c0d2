"""What the preview serves: the page of ``build`` (or ``export``), its drift panel, and a version.

Each refresh calls the same library functions as the commands (``build_site``/``export_html`` with
a page writer that keeps the text instead of writing it, and ``check.collect``), in this process:
the workspace keeps every parsed document and rendered fragment warm, so a refresh after one save
parses and renders that document alone. A refresh that fails keeps the last good page and puts
the failure's sentence in the panel; the version goes up only when what is served changes.
"""

from __future__ import annotations

import html as htmllib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError
from mdmark.preview.inject import DriftLine, blank_page, inject, panel

if TYPE_CHECKING:
    from mdmark.core.diagnostics import Diagnostic
    from mdmark.project.main import Project

Progress = Callable[[int, int], None]

_SECTION_OPEN = '<section class="mdmark-doc" id="'
_SECTION = re.compile(re.escape(_SECTION_OPEN) + r'([^"]*)" data-source="([^"]*)"')


def unexpected(exc: BaseException) -> str:
    """The panel's sentence for a failure that is no :class:`MdmarkError` (the server goes on)."""
    return (
        f"ページを作り直せなかった（{type(exc).__name__}: {exc}）ので、保存したファイルを確かめてから、"
        "もう一度保存してください。"
    )


@dataclass(frozen=True)
class Served:
    version: int
    html: str


class Preview:
    """The preview of the config's ``build`` page, or with ``file`` of that one document's export."""

    def __init__(self, start: Path, file: str | None = None, config: str | None = None) -> None:
        self.start = start
        self.file = file
        self.config = config
        self._good: str | None = None
        self._shown_key: tuple[str, str] | None = None
        self._served = Served(0, "")
        self._lock = threading.Lock()

    @property
    def served(self) -> Served:
        return self._served

    def ensure_startable(self) -> None:
        """Refuse to start with nothing to show: no config for the ``build`` page, or no ``file``
        (the sentences of ``mdmark build`` and ``mdmark export``). A config or file that exists but
        does not parse starts the preview: fixing it is the next save."""
        from mdmark.config.main import find_config
        from mdmark.util.files import display
        from mdmark.project.main import Project

        if self.file is None:
            config = self.start / self.config if self.config is not None else find_config(self.start)
            if config is None or not config.is_file():
                Project.open(self.start, self.config)  # raises the sentence `mdmark build` gives
            return
        source = self.start / self.file
        if not source.is_file():
            raise MdmarkError(f"`{display(source, self.start)}` が見つからないので、見せる Markdown のパスを確かめてください。")

    # -- what to watch ----------------------------------------------------------------------------

    def roots(self) -> list[Path]:
        """The folders to watch: the project root (the git work tree holding the config folder,
        inside which every embedded file lies), and the source folder of conf.py or the
        exported file when they lie outside it."""
        from mdmark.config.main import find_config
        from mdmark.host.confine import inside, project_root

        folders: list[Path] = []
        try:
            project = self._project()
            folders += [project.root, project.source_dir]
        except MdmarkError:
            # An unreadable config is watched too: fixing it is the next save.
            found = Path(self.start / self.config) if self.config is not None else find_config(self.start)
            folders.append(found.parent if found is not None else self.start)
        if self.file is not None:
            folders.append((self.start / self.file).parent)
        roots: list[Path] = []
        for folder in [project_root(folders[0]), *folders[1:]]:
            real = folder.resolve()
            if real.is_dir() and not any(inside(real, root) for root in roots):
                roots = [r for r in roots if not inside(r, real)] + [real]
        return roots

    # -- one refresh ------------------------------------------------------------------------------

    def _project(self) -> Project:
        from mdmark.project.main import Project

        return Project.open(self.start, self.config) if self.file is None else Project.for_export(self.start, self.config)

    def _render(self, progress: Progress | None) -> str:
        kept: list[str] = []

        def keep(_out: Path, text: str, _shown: str) -> None:
            kept.append(text)

        if self.file is None:
            from mdmark.builders.build import build_site

            build_site(self.start, self.config, progress, write=keep)
        else:
            from mdmark.builders.export import export_html

            export_html(self.start, self.file, config=self.config, confined=False, write=keep)
        return kept[-1]

    def _drift(self, progress: Progress | None, page: str | None) -> tuple[list[DriftLine], str | None]:
        from mdmark.check.collect import collect

        project = self._project()
        if project.config.path is None:
            return [], "設定（mdmark.config.yaml）が無いので、ずれは点検していません。"
        place = self._places(project, page or "")
        return [DriftLine(d.text_line(), place(d)) for d in collect(project, progress=progress)], None

    def _places(self, project: Project, page: str) -> Callable[[Diagnostic], str | None]:
        """Where a drift is in the page: its document's heading at or above the line, else the
        document itself; None for a file the page does not show (config, index)."""
        root = project.root
        # Each document's section id and where its section lies in the page: a heading's id is
        # looked for there, not in the whole page (a thousand documents make a page of megabytes).
        spans: dict[str, tuple[int, int]] = {}
        if self.file is None:
            prefixes: dict[str, str] = {}
            # The sections' opening tags found with str.find from one to the next (a regular
            # expression over the page's megabytes took longer than finding them one by one).
            starts: list[int] = []
            at = page.find(_SECTION_OPEN)
            while at >= 0:
                starts.append(at)
                at = page.find(_SECTION_OPEN, at + len(_SECTION_OPEN))
            for number, start in enumerate(starts):
                match = _SECTION.match(page, start)
                if match is None:
                    continue
                src = htmllib.unescape(match.group(2))
                prefixes[src] = htmllib.unescape(match.group(1))
                spans[src] = (start, starts[number + 1] if number + 1 < len(starts) else len(page))
        else:
            try:
                rel = (self.start / self.file).resolve().relative_to(root.resolve()).as_posix()
            except ValueError:
                rel = ""
            prefixes = {rel: ""} if rel else {}

        def place(diag: Diagnostic) -> str | None:
            prefix = prefixes.get(diag.file)
            if prefix is None:
                return None
            whole = f"#{prefix}" if prefix else "#mdmark-main"
            if diag.line is None:
                return whole
            try:
                facts = project.pipeline.facts(root / diag.file)
            except (MdmarkError, OSError):
                return whole
            above = [h for h in facts.headings if h.ids and not h.included and h.line <= diag.line]
            if not above:
                return whole
            anchor = f"{prefix}:{above[-1].ids[0]}" if prefix else above[-1].ids[0]
            start, end = spans.get(diag.file, (0, len(page)))
            return f"#{anchor}" if page.find(f'id="{htmllib.escape(anchor)}"', start, end) >= 0 else whole

        return place

    def refresh(self, build_progress: Progress | None = None, check_progress: Progress | None = None) -> bool:
        """Build the page and the drift again; True when what is served changed (a new version)."""
        with self._lock:
            errors: list[str] = []
            try:
                self._good = self._render(build_progress)
            except MdmarkError as exc:
                errors.append(exc.message)
            except Exception as exc:  # a save the library did not foresee must not stop the server
                errors.append(unexpected(exc))
            drift: list[DriftLine] = []
            note: str | None = None
            try:
                drift, note = self._drift(check_progress, self._good)
            except MdmarkError as exc:
                if exc.message not in errors:
                    errors.append(exc.message)
            except Exception as exc:
                errors.append(unexpected(exc))
            page = self._good if self._good is not None else blank_page(_page_csp())
            key = (page, panel(0, drift, errors, note))
            if key == self._shown_key:
                return False
            version = self._served.version + 1
            self._served = Served(version, inject(page, panel(version, drift, errors, note)))
            self._shown_key = key
            return True


def _page_csp() -> str:
    from mdmark.html.page import CSP

    return CSP
