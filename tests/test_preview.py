"""``mdmark preview``: a real server process, real saves on disk, real headless Chromium.

The page must follow the saves without a manual reload and stay at the section in view, show
the drift ``mdmark check`` prints, keep the last good page when a save is broken, refuse foreign
Hosts and Origins like ``mdmark serve``, and stop promptly on Ctrl+C.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cdp import Browser, chromium
from conftest import drain_pty, needs_program, run_mdmark

EXECUTABLE = chromium()

CONFIG = """\
index: index.yaml
docs: ["docs/*.md"]
build:
  title: 下書きの試験
  include: ["docs/*.md"]
  out: dist/site.html
"""

INDEX = """\
docs:
  - id: a
    path: docs/a.md
    title: 文書 A
  - id: b
    path: docs/b.md
    title: 文書 B
"""

DOC_A = "# 文書 A\n\n[B の詳細](b.md#b-の詳細) と [無い節](b.md#無い節)。\n\n## A の節\n\nA の本文。\n"

DOC_B = (
    "# 文書 B\n\n"
    + "".join(f"前の段落 {n}。\n\n" for n in range(60))
    + "## B の詳細\n\nここに着く。\n\n"
    + "".join(f"後の段落 {n}。\n\n" for n in range(60))
)


@dataclass
class Running:
    proc: subprocess.Popen[bytes]
    port: int
    errfile: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def stderr(self) -> str:
        return self.errfile.read_text(encoding="utf-8", errors="replace")


def start_preview(folder: Path, *extra: str, env: dict[str, str] | None = None) -> Running:
    """``mdmark preview --port 0`` (a free port; the startup line names it)."""
    errfile = folder.parent / f"{folder.name}-preview.err"
    with errfile.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mdmark", "preview", "--port", "0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            cwd=folder,
            env={**os.environ, **(env or {})},
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/ ", errfile.read_text(encoding="utf-8", errors="replace"))
        if found:
            return Running(proc, int(found.group(1)), errfile)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"mdmark preview did not start: {errfile.read_text(encoding='utf-8', errors='replace')}")


def stop(running: Running) -> tuple[int, float]:
    """SIGINT (Ctrl+C); the exit code and the seconds it took."""
    began = time.monotonic()
    running.proc.send_signal(signal.SIGINT)
    try:
        code = running.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        running.proc.kill()
        raise
    return code, time.monotonic() - began


def make_project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "index.yaml").write_text(INDEX, encoding="utf-8")
    (root / "docs" / "a.md").write_text(DOC_A, encoding="utf-8")
    (root / "docs" / "b.md").write_text(DOC_B, encoding="utf-8")
    return root


def save(path: Path, text: str) -> None:
    """A save as editors do it: a new file renamed over the old one."""
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def wait_for(condition: Callable[[], object], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        for key, value in {"Host": f"127.0.0.1:{port}", **(headers or {})}.items():
            connection.putheader(key, value)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read() if path != "/events" or response.status != 200 else b""
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("preview") / "proj")


@pytest.fixture(scope="module")
def preview(project: Path) -> Iterator[Running]:
    running = start_preview(project)
    yield running
    if running.proc.poll() is None:
        code, _seconds = stop(running)
        assert code == 0, running.stderr()
    assert "Traceback" not in running.stderr(), running.stderr()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert EXECUTABLE is not None
    instance = Browser(EXECUTABLE)
    for domain in ("Network", "Page", "Runtime", "Log"):
        instance.call(f"{domain}.enable")
    yield instance
    instance.close()


def _panel(browser: Browser) -> dict[str, object]:
    """The panel's state, text, lines and links; empty while the page is between two loads."""
    try:
        value = browser.evaluate(
            "(() => { const p = document.getElementById('mdmark-preview'); if (!p) return null;"
            " return {state: p.dataset.state, version: p.dataset.version, text: p.textContent,"
            " lines: [...p.querySelectorAll('li')].map(li => li.textContent),"
            " links: [...p.querySelectorAll('li a')].map(a => a.getAttribute('href'))}; })()"
        )
    except RuntimeError:
        return {}
    return value if isinstance(value, dict) else {}


def _section_top(browser: Browser, heading: str) -> float:
    top = browser.evaluate(
        "(() => { for (const h of document.querySelectorAll('main h2')) {"
        f" if (h.textContent.includes({json.dumps(heading)})) return h.closest('section').getBoundingClientRect().top; }}"
        " return null; })()"
    )
    assert isinstance(top, (int, float)), heading
    return float(top)


def _has_text(browser: Browser, text: str) -> bool:
    try:
        return bool(browser.evaluate(f"document.querySelector('main').textContent.includes({json.dumps(text)})"))
    except RuntimeError:  # the page is between two loads
        return False


@needs_program("chromium")
def test_a_save_reloads_the_page_at_the_same_section(browser: Browser, preview: Running, project: Path) -> None:
    mark = len(browser.events)
    browser.open(preview.url)
    assert browser.evaluate("document.title") == "下書きの試験"
    assert _has_text(browser, "ここに着く。")
    browser.evaluate(
        "(() => { for (const h of document.querySelectorAll('main h2')) {"
        " if (h.textContent.includes('B の詳細')) { h.closest('section').scrollIntoView(); return; } } })()"
    )
    assert browser.evaluate("window.scrollY") > 1000
    before = _section_top(browser, "B の詳細")
    assert 0 <= before < 100
    # Wait until the page's event stream is open, so the save is seen by a connected page.
    time.sleep(0.5)

    save(project / "docs" / "b.md", DOC_B.replace("ここに着く。", "ここに着く。保存で足した一文。"))
    wait_for(lambda: _has_text(browser, "保存で足した一文。"), "the saved text in the page")
    assert browser.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
    # The section that was at the top of the window is there again.
    wait_for(lambda: abs(_section_top(browser, "B の詳細") - before) < 2, "the section back where it was")

    # Nothing was asked of anyone but the preview, and the page's CSP refused nothing.
    urls = [e["params"]["request"]["url"] for e in browser.events[mark:] if e.get("method") == "Network.requestWillBeSent"]
    assert urls and all(u.startswith(preview.url) or u.startswith("data:") for u in urls), urls
    refused = [m for m in browser.console_messages() if "Content Security Policy" in m or "Refused" in m]
    assert refused == []


@needs_program("chromium")
def test_the_panel_shows_the_drift_mdmark_check_prints(browser: Browser, preview: Running, project: Path) -> None:
    browser.open(preview.url)
    checked = run_mdmark("check", cwd=project)
    assert checked.returncode == 1, checked.stderr
    expected = checked.stdout.splitlines()
    assert any("broken_anchor" in line for line in expected)
    wait_for(lambda: _panel(browser).get("state") == "drift", "the panel")
    panel = _panel(browser)
    assert panel["lines"] == expected
    # The broken anchor's line links to its document's section in the page.
    links = panel["links"]
    assert isinstance(links, list) and links
    for href in links:
        assert browser.evaluate(f"document.getElementById({json.dumps(href[1:])}) !== null"), href


@needs_program("chromium")
def test_the_panel_follows_a_save_that_changes_the_drift(browser: Browser, preview: Running, project: Path) -> None:
    """A save that mends one drift and makes another: the reloaded page's panel lists what
    ``mdmark check`` prints now, with nothing of the old one."""
    browser.open(preview.url)
    wait_for(lambda: _panel(browser).get("state") == "drift", "the panel")
    doc = project / "docs" / "a.md"
    good = doc.read_text(encoding="utf-8")
    assert "[無い節](b.md#無い節)" in good
    save(doc, good.replace("[無い節](b.md#無い節)", "[別の無い節](b.md#別の無い節)"))
    try:
        checked = run_mdmark("check", cwd=project)
        expected = checked.stdout.splitlines()
        assert any("別の無い節" in line for line in expected) and not any("`無い節`" in line for line in expected)
        wait_for(lambda: _panel(browser).get("lines") == expected, "the panel of the saved document")
        assert browser.evaluate("performance.getEntriesByType('navigation')[0].type") == "reload"
    finally:
        save(doc, good)
    wait_for(lambda: any("`無い節`" in str(line) for line in _panel(browser).get("lines") or []), "the panel back")


@needs_program("chromium")
def test_a_broken_save_keeps_the_page_and_shows_the_sentence(browser: Browser, preview: Running, project: Path) -> None:
    browser.open(preview.url)
    # The save a test before this one restored may still reload the page once (the page is then between two loads).
    wait_for(lambda: _has_text(browser, "文書 A"), "the page")
    good = (project / "index.yaml").read_text(encoding="utf-8")
    broken = good.replace("    title: 文書 B\n", "    title: [文書 B\n")
    save(project / "index.yaml", broken)
    # The sentence is the one `mdmark check` gives for the same file.
    sentence = run_mdmark("check", cwd=project).stderr.strip().splitlines()[0]
    assert "index.yaml" in sentence
    wait_for(lambda: _panel(browser).get("state") == "error", "the error in the panel")
    panel = _panel(browser)
    assert sentence in str(panel["text"])
    assert _has_text(browser, "文書 A") and _has_text(browser, "ここに着く。")

    # A half-written document (cut in the middle of a character) keeps the page too.
    save(project / "index.yaml", good)
    wait_for(lambda: _panel(browser).get("state") == "drift", "the panel cleared")
    doc = project / "docs" / "a.md"
    doc.write_bytes(DOC_A.encode("utf-8") + "途中".encode("utf-8")[:4])
    wait_for(lambda: _panel(browser).get("state") == "error", "the half-written file in the panel")
    assert "docs/a.md" in str(_panel(browser)["text"])
    assert _has_text(browser, "A の本文。")
    save(doc, DOC_A)
    wait_for(lambda: _panel(browser).get("state") == "drift", "the panel cleared again")
    assert preview.proc.poll() is None


def test_foreign_host_is_421_and_foreign_origin_is_403(preview: Running) -> None:
    port = preview.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost"):
        status, headers, body = get(port, "/", {"Host": host})
        assert status == 200, host
        assert "script-src 'sha256-" in headers["content-security-policy"]
        assert b'id="mdmark-preview"' in body
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", f"127.0.0.1:{port + 1}"):
        for path in ("/", "/events"):
            status, _headers, body = get(port, path, {"Host": host})
            assert status == 421, (host, path)
            assert "mdmark preview" in body.decode()
    for origin in ("https://evil.example", "http://localhost:3000", f"http://127.0.0.1:{port + 1}", "null"):
        for path in ("/", "/events"):
            status, _headers, _body = get(port, path, {"Origin": origin})
            assert status == 403, (origin, path)
    # The page's own origin (its event stream) is served.
    status, headers, _body = get(port, "/events", {"Origin": f"http://127.0.0.1:{port}"})
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    status, _headers, body = get(port, "/nothere.html")
    assert status == 404 and "nothere.html" in body.decode()


def test_ctrl_c_stops_promptly_with_a_page_open(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    running = start_preview(project)
    # An open event stream (a page left open) must not hold the stop up.
    connection = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    connection.request("GET", "/events?v=0")
    response = connection.getresponse()
    assert response.status == 200
    seen = b""
    while b"event: reload" not in seen:  # the stream's first event: the page's version 0 is old
        seen += response.read1(4096)
    code, seconds = stop(running)
    connection.close()
    assert code == 0, running.stderr()
    assert seconds < 2, seconds
    assert "止めました" in running.stderr()
    assert "Traceback" not in running.stderr()


def test_open_hands_the_url_to_the_users_browser(tmp_path: Path) -> None:
    """``--open``: the browser the user's ``BROWSER`` names is started with the page's URL."""
    project = make_project(tmp_path / "proj")
    record = tmp_path / "opened.txt"
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{record}"\n', encoding="utf-8")
    script.chmod(0o755)
    running = start_preview(project, "--open", env={"BROWSER": str(script)})
    try:
        wait_for(record.exists, "the browser started")
        wait_for(lambda: record.read_text(encoding="utf-8").endswith("\n"), "the URL written")
        assert record.read_text(encoding="utf-8") == f"{running.url}\n"
        status, _headers, body = get(running.port, "/")
        assert status == 200 and "A の本文。".encode() in body
    finally:
        code, _seconds = stop(running)
    assert code == 0, running.stderr()


def test_export_of_one_file_and_a_port_in_use(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    running = start_preview(project, "docs/a.md")
    try:
        status, _headers, body = get(running.port, "/")
        page = body.decode()
        assert status == 200 and "A の本文。" in page and "ここに着く。" not in page
        busy = run_mdmark("preview", "--port", str(running.port), cwd=project, timeout=120)
        assert busy.returncode == 1
        assert busy.stderr.strip() == (
            f"ポート {running.port} はほかのプログラムが使っているので、動いている mdmark preview を止めるか、"
            "--port か環境変数 MDMARK_PREVIEW_PORT で別のポートを指定してください。"
        )
    finally:
        code, _seconds = stop(running)
    assert code == 0, running.stderr()


def test_cold_build_progress_on_a_terminal(tmp_path: Path) -> None:
    """On a terminal the cold build counts like `mdmark build`, then the line is erased for the URL."""
    import pty

    project = make_project(tmp_path / "proj")
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mdmark", "preview", "--port", "0"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        while b"Ctrl+C" not in seen and time.monotonic() < deadline:
            seen += os.read(leader, 65536)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        seen += drain_pty(leader)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    text = seen.decode("utf-8", "replace")
    assert "\r文書を読んで書き出しています 2/2" in text
    assert "\r\x1b[Kmdmark preview: http://127.0.0.1:" in text
    assert "止めました" in text
