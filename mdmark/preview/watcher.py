"""Seeing saves: :mod:`watchfiles` (the OS's file events) on the preview's folders, in a thread.

Every change under the watched folders (documents, index, config, conf.py, stylesheets, images)
asks for a refresh; a refresh that changes nothing on the page reloads nothing, so an
unrelated file costs one warm rebuild and no more. Editors' swap files, version-control and
cache folders are left out.

The folders are the project's own: each real folder under the roots, found without following
links and watched one by one (not recursively: the OS watcher follows links, so ``docs/usr ->
/usr`` added 16,000 watches outside the project, and a link to ``/`` ended the watch silently).
A folder created or removed makes the list again. A link inside the project is an entry of
its folder like any file: its change is seen, what it points to is not watched.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

#: Folders whose changes never touch the page (besides watchfiles' own list: .git, .venv, ...).
IGNORED_DIRS = ("_build",)
#: Folders watched at most (each is one watch of the OS): past them, the deepest are left out.
MAX_FOLDERS = 4096

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
        from watchfiles import Change, DefaultFilter, watch

        ignored = (*DefaultFilter.ignore_dirs, *IGNORED_DIRS)
        only = DefaultFilter(ignore_dirs=ignored)
        while not self.stop_event.is_set():
            folders = project_folders(self.roots, frozenset(ignored))
            if not folders:
                return
            watched = set(folders)
            try:
                for batch in watch(
                    *folders,
                    watch_filter=only,
                    step=STEP_MS,
                    # The stop event is looked at between waits; a short wait makes a stop prompt.
                    rust_timeout=200,
                    stop_event=self.stop_event,
                    raise_interrupt=False,
                    recursive=False,
                ):
                    self.changed({Path(path) for _change, path in batch})
                    if any(
                        (change == Change.added and os.path.isdir(path) and not os.path.islink(path))
                        or (change == Change.deleted and Path(path) in watched)
                        for change, path in batch
                    ):
                        break  # a folder came or went: watch the new list
                else:
                    return  # stopped
            except (OSError, RuntimeError):
                # A watched folder removed while the watch started: make the list again.
                if not any(root.is_dir() for root in self.roots):
                    return


def project_folders(roots: Sequence[Path], ignored: frozenset[str]) -> list[Path]:
    """The real folders under ``roots`` (each once), found without following links and without
    the ``ignored`` folders, breadth first, at most :data:`MAX_FOLDERS`."""
    found: dict[Path, None] = {}
    queue = [Path(os.path.realpath(root)) for root in roots]
    while queue and len(found) < MAX_FOLDERS:
        folder = queue.pop(0)
        if folder in found or not folder.is_dir():
            continue
        found[folder] = None
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        queue += [
            Path(e.path) for e in entries if e.name not in ignored and e.is_dir(follow_symlinks=False)
        ]
    return list(found)
