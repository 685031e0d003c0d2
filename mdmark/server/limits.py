"""Bounds on a tool call: how long it may run, and stopping it when it may not go on.

A call runs in a thread of its own (:class:`Job`). When its time is up, when its client goes
away, or when the server stops, the thread is sent :class:`CallStopped` — an exception raised
inside it at its next Python instruction — so the work really ends instead of running on
unseen (a hostile document set could otherwise keep a worker busy and growing for minutes).
``CallStopped`` is a ``BaseException``: the library's ``except Exception`` guards (one document's
parse failure) do not swallow it, while ``with`` blocks still release their locks.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: Seconds a tool call may run before the server answers with an error and stops it.
DEFAULT_CALL_SECONDS = 300.0
CALL_SECONDS_ENV = "MDMARK_CALL_TIMEOUT"


class CallStopped(BaseException):
    """Raised inside a call's thread to stop it."""


def call_seconds() -> float:
    """The per-call bound: ``MDMARK_CALL_TIMEOUT`` when it is a positive number, else the default."""
    try:
        value = float(os.environ.get(CALL_SECONDS_ENV, ""))
    except ValueError:
        return DEFAULT_CALL_SECONDS
    return value if value > 0 else DEFAULT_CALL_SECONDS


def timeout_message(name: str, seconds: float) -> str:
    return (
        f"`{name}` が {seconds:g} 秒で終わらなかったので止めたため、対象を絞って呼び直すか、"
        f"環境変数 {CALL_SECONDS_ENV} で mdmark serve の時間の上限を延ばしてください。"
    )


def stopping_message(name: str) -> str:
    return f"mdmark serve が止まるので `{name}` を途中で止めたため、mdmark serve が動いているのを確かめてから呼び直してください。"


_RUNNING: set[Job[Any]] = set()
_RUNNING_LOCK = threading.Lock()


class Job(Generic[T]):
    """``fn()`` in a daemon thread that :meth:`stop` can end."""

    def __init__(self, fn: Callable[[], T]) -> None:
        self._fn = fn
        self.done = threading.Event()
        self.result: T | None = None
        self.error: BaseException | None = None
        self.stopped = False
        self._finished = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._outer, name="mdmark-call", daemon=True)

    def start(self) -> None:
        with _RUNNING_LOCK:
            _RUNNING.add(self)
        self._thread.start()

    def _outer(self) -> None:
        # A stop that lands after the work but before _finished is set is caught here too.
        try:
            self._run()
        except CallStopped:
            pass
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(self)
            self.done.set()

    def _run(self) -> None:
        try:
            self.result = self._fn()
        except CallStopped:
            raise
        except BaseException as exc:  # handed to the waiting side, which reports it
            self.error = exc
        finally:
            with self._lock:
                self._finished = True

    def stop(self) -> None:
        """Raise :class:`CallStopped` in the call's thread (nothing when it has finished)."""
        with self._lock:
            if self._finished or self._thread.ident is None:
                return
            self.stopped = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self._thread.ident), ctypes.py_object(CallStopped)
            )


def stop_all() -> None:
    """Stop every running call (the server is stopping)."""
    with _RUNNING_LOCK:
        jobs = list(_RUNNING)
    for job in jobs:
        job.stop()
