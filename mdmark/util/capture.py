"""What the project's own code prints never becomes mdmark's answer.

conf.py, the extensions it loads (their ``setup()``), and documents that run code (``myst-nb``,
``{eval-rst}`` with a directive that prints) may write to stdout or stderr — from Python, from C or
from a subprocess they start. mdmark's stdout is an answer (``--format json``, ``--format github``,
the ``serve --stdio`` channel), so while that code runs both file descriptors point at a scratch
file (:func:`project_output`); afterwards what was written is shown on stderr as notes, each line
marked as the project's, never on stdout.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator

_LOCK = threading.RLock()
_depth = 0

#: How a note of the project's output starts (one per line written).
NOTE_PREFIX = "mdmark: プロジェクトのコード（conf.py・拡張・文書）が出力しました: "


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def show_notes(text: str) -> None:
    """Write what the project printed to stderr, each line a note (stderr is never an answer)."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return
    data = "".join(f"{NOTE_PREFIX}{line}\n" for line in lines).encode("utf-8", "replace")
    try:
        os.write(2, data)
    except OSError:
        pass


@contextlib.contextmanager
def project_output() -> Iterator[None]:
    """Inside the block, whatever is written to file descriptors 1 and 2 (Python, C, subprocesses)
    goes to a scratch file; on leaving, it is shown on stderr as notes. Nested blocks share the
    outermost one."""
    global _depth
    with _LOCK:
        if _depth > 0:
            _depth += 1
            try:
                yield
            finally:
                _depth -= 1
            return
        _flush()
        try:
            scratch = tempfile.TemporaryFile()
            saved = (os.dup(1), os.dup(2))
        except OSError:  # no descriptors to spare: run the code as is
            yield
            return
        _depth = 1
        try:
            os.dup2(scratch.fileno(), 1)
            os.dup2(scratch.fileno(), 2)
            yield
        finally:
            _flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            _depth = 0
            scratch.seek(0)
            captured = scratch.read().decode("utf-8", "replace")
            scratch.close()
            show_notes(captured)


def set_aside_stdout() -> int:
    """Set aside file descriptor 1 for the ``serve --stdio`` channel and point fd 1 (and
    ``sys.stdout``) at stderr, so nothing else the process runs can write into the channel — not
    even code that runs outside :func:`project_output`. Returns the descriptor the channel uses."""
    _flush()
    channel = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel
