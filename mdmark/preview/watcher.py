"""Seeing saves: :mod:`watchfiles` (the OS's file events) on the preview's folders, in a thread.

Every change under the watched folders (documents, index, config, conf.py, stylesheets, images)
asks for a refresh; a refresh that changes nothing on the page reloads nothing, so an
unrelated file costs one warm rebuild and no more. Editors' swap files, version-control and
cache folders are left out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

#: Folders whose changes never touch the page (besides watchfiles' own list: .git, .venv, ...).
IGNORED_DIRS = ("_build",)

#: How long (ms) watchfiles waits for more events before it reports a batch: an editor's
#: write-and-rename of one save arrives as one batch.
STEP_MS = 30


class Watcher:
    """Calls ``changed(paths)`` from its own thread for each batch of changes under ``roots``."""

    def __init__(self, roots: Sequence[Path], changed: Callable[[set[Path]], None]) -> None:
        self.roots = list(roots)
        self.changed = changed
        self.stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mdmark-preview-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stop_event.set()

    def _run(self) -> None:
        from watchfiles import DefaultFilter, watch

        only = DefaultFilter(ignore_dirs=(*DefaultFilter.ignore_dirs, *IGNORED_DIRS))
        try:
            for batch in watch(
                *self.roots,
                watch_filter=only,
                step=STEP_MS,
                # The stop event is looked at between waits; a short wait makes a stop prompt.
                rust_timeout=200,
                stop_event=self.stop_event,
                raise_interrupt=False,
            ):
                self.changed({Path(path) for _change, path in batch})
        except (OSError, RuntimeError):
            # A watched folder removed: nothing more to see; the page stays as it was.
            return
