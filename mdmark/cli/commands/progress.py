"""A one-line progress counter on a terminal, shared by the commands that read many documents."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

Progress = Callable[[int, int], None]


@contextlib.contextmanager
def progress_line(label: str, enabled: bool = True) -> Iterator[Progress | None]:
    """``label done/total`` rewritten in place on stderr, erased at the end; None (nothing shown)
    when stderr is a file or a pipe, or when not ``enabled`` (machine-readable output)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return

    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r{label} {done}/{total}\x1b[K")
        sys.stderr.flush()

    try:
        yield show
    finally:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
