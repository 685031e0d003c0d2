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
    # The line is redrawn with control characters of its own: past the CLI's escaping writer.
    stream = getattr(sys.stderr, "unescaped", sys.stderr)

    def show(done: int, total: int) -> None:
        stream.write(f"\r{label} {done}/{total}\x1b[K")
        stream.flush()

    try:
        yield show
    finally:
        stream.write("\r\x1b[K")
        stream.flush()
