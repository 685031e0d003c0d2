"""Worker processes end with the process that started them.

The parse and render pools run in worker processes; when their parent is killed (``kill -9`` of
``mdmark build``, an out-of-memory kill of the server) nothing tells them to stop, and each would
stay alive holding a Sphinx application. A watcher thread in each worker notices that its parent
is gone (the parent id changes when the parent dies) and ends the worker.
"""

from __future__ import annotations

import os
import threading
import time

#: Seconds between two looks at the parent.
POLL_SECONDS = 0.5


def die_with_parent() -> None:
    """Start the watcher in this (worker) process."""
    import multiprocessing

    process = multiprocessing.parent_process()
    sentinel = getattr(process, "sentinel", None) if process is not None else None
    if isinstance(sentinel, int):
        # The pipe end the parent holds open: it closes when the parent ends, however it ends.
        # (A worker forked from a fork server has the server, not the parent, as its OS parent.)
        from multiprocessing.connection import wait

        def watch_sentinel() -> None:
            wait([sentinel])
            os._exit(1)

        threading.Thread(target=watch_sentinel, name="mdmark-lifeline", daemon=True).start()
        return

    # The pid the pool recorded, not getppid(): a spawned worker may start after its parent died.
    parent = process.pid if process is not None and process.pid is not None else os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="mdmark-lifeline", daemon=True).start()
