"""A tiny Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (standard library only)."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
    "--window-size=1200,900",
]


def chromium() -> str | None:
    from conftest import program

    return program("chromium")


class Browser:
    """One headless Chromium with one page; ``call`` sends a command to the page session."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="mdmark-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def child() -> None:
            # The pipe protocol: Chromium reads commands on fd 3 and writes answers on fd 4.
            os.dup2(to_chrome_r, 100)
            os.dup2(from_chrome_w, 101)
            os.dup2(100, 3)
            os.dup2(101, 4)
            os.close(100)
            os.close(101)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child,
            close_fds=False,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next = 0
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session: str | None = None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        box = self._answers.get(message["id"])
                    if box is not None:
                        box.put(message)
                else:
                    self.events.append(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = False, timeout: float = 60) -> Any:
        with self._lock:
            self._next += 1
            number = self._next
            box: queue.Queue[dict[str, Any]] = queue.Queue()
            self._answers[number] = box
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        answer = box.get(timeout=timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.send(method, params, session=True)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_event(self, method: str, since: int, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events[since:]:
                if event.get("method") == method:
                    return event
            time.sleep(0.05)
        raise TimeoutError(method)

    def wait_until(self, expression: str, timeout: float = 60) -> bool:
        """Whether ``expression`` became true in the page before ``timeout`` (a script still working)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(0.1)
        return False

    def frames(self) -> None:
        """Wait for two animation frames (the page's script updates what it shows on the next one)."""
        self.call(
            "Runtime.evaluate",
            {"expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", "awaitPromise": True},
        )

    def open(self, url: str) -> None:
        mark = len(self.events)
        self.call("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired", mark)

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
            " const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])
        path.write_bytes(data)
        return data

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def console_messages(self) -> list[str]:
        return [e["params"]["entry"]["text"] for e in self.events if e.get("method") == "Log.entryAdded"]

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
