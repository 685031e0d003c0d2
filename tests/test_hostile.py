"""The attack corpus (issue 28): every folder of ``tests/hostile/`` is one hostile repository.

Each ``tests/hostile/<attack>/`` holds ``repo/`` (the repository's files) and ``attack.yaml``:

``about``
    One English line: what the attack tries.
``runs``
    Which front-ends it goes through, a subset of ``[check, export, build, mcp, sphinx]``
    (default: all; ``sphinx`` is ``sphinx-build`` with ``mdmark.sphinx_ext``, the user's own build).
``markers``
    File names that must never be created anywhere under the temporary root (default ``[PWNED]``).
``expect``
    Optional: texts every ``check`` answer (CLI and MCP) must contain (the document's path, say),
    so the attack is answered with a drift, not passed over.
``expect_mcp_read_doc``
    Optional: texts the MCP ``read_doc`` answers must contain.
``fifos``
    Optional: paths (relative to the repository) made FIFOs after the copy (git cannot hold them).
``generate``
    Optional: big files written after the copy, each ``{file, head, line, times, tail}``: ``head``,
    then ``line`` ``times`` times (``{i}`` is the line's number), then ``tail``.

The runner copies ``repo/`` to ``<tmp>/work/repo`` (a git repository), writes a random token into
``<tmp>/secret.txt``, replaces ``@SECRET_ABS@`` (the absolute path of secret.txt) and
``@SECRET_REL@`` (its path relative to the repository) in every text file of the copy, then runs
it through the CLI (``check``, ``check --format json``, ``export`` of each document, ``build``
when the config has ``build``), the MCP tools of ONE shared ``mdmark serve`` over HTTP (check,
outline, read_doc, find_docs, export_html, build_site), ``mdmark serve --stdio`` (check), and
``sphinx-build`` when asked. It asserts: no marker file anywhere under the temporary root; the
token (plain and base64) in no output (stdout, stderr, MCP answers, written files, the server's
log); no byte changed outside the output paths; the shared server still answers a ``check`` of a
second, clean project within 5 s while the attack's own ``check`` is at work and after it; every
refusal is Japanese sentences (no traceback, no English-only message, no internal error).
"""

from __future__ import annotations

import base64
import concurrent.futures
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from test_mcp import Served, call, connect, make_project, start_server, stop_server

pytestmark = pytest.mark.anyio

HOSTILE = Path(__file__).resolve().parent / "hostile"
ATTACKS = sorted(p.name for p in HOSTILE.iterdir() if (p / "attack.yaml").is_file()) if HOSTILE.is_dir() else []
RUNS = ("check", "export", "build", "mcp", "sphinx")

#: The bounds the test server and CLI run with: small enough that a blocked or runaway document
#: costs seconds, large enough for a cold worker to read a small document on a loaded machine.
LIMITS_ENV = {"MDMARK_PARSE_TIMEOUT": "6", "MDMARK_PARSE_CPU": "6", "MDMARK_CALL_TIMEOUT": "90"}
#: How long the clean project's check may take while and after an attack runs.
ANSWER_SECONDS = 5.0

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Attack:
    name: str
    about: str
    runs: tuple[str, ...]
    markers: tuple[str, ...]
    expect: tuple[str, ...]
    expect_read_doc: tuple[str, ...]
    fifos: tuple[str, ...]
    generate: tuple[dict[str, Any], ...]

    @classmethod
    def load(cls, name: str) -> Attack:
        data = yaml.safe_load((HOSTILE / name / "attack.yaml").read_text(encoding="utf-8")) or {}
        unknown = set(data) - {"about", "runs", "markers", "expect", "expect_mcp_read_doc", "fifos", "generate"}
        assert not unknown, f"{name}/attack.yaml: unknown keys {unknown}"
        runs = tuple(data.get("runs", RUNS))
        assert set(runs) <= set(RUNS), f"{name}/attack.yaml: runs {runs}"
        assert isinstance(data.get("about"), str), f"{name}/attack.yaml: about"
        return cls(
            name=name,
            about=data["about"],
            runs=runs,
            markers=tuple(data.get("markers", ["PWNED"])),
            expect=tuple(data.get("expect", [])),
            expect_read_doc=tuple(data.get("expect_mcp_read_doc", [])),
            fifos=tuple(data.get("fifos", [])),
            generate=tuple(data.get("generate", [])),
        )


@dataclass
class Scene:
    """One attack's copy: where it lives and what it must not leak."""

    root: Path
    repo: Path
    token: str
    env: dict[str, str]
    outputs: list[str] = field(default_factory=list)
    #: Every answer seen (stdout, stderr, MCP texts), with where it came from.
    answers: list[tuple[str, str]] = field(default_factory=list)

    def leaks(self, text: str) -> bool:
        return any(form in text for form in _token_forms(self.token))


def _token_forms(token: str) -> list[str]:
    """The token, and its base64 at each of the three alignments it can have inside a longer text."""
    forms = [token]
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + token.encode()).decode()
        # Drop the characters that depend on the bytes around the token.
        forms.append(encoded[(pad * 4 + 2) // 3 + 1 : -4])
    return [f for f in forms if len(f) >= 12]


# -- setting up ------------------------------------------------------------------------------------


def stage(attack: Attack, root: Path, cache: Path) -> Scene:
    repo = root / "work" / "repo"
    shutil.copytree(HOSTILE / attack.name / "repo", repo, symlinks=True)
    secret = root / "secret.txt"
    token = "MDMARK-SECRET-" + secrets.token_hex(16)
    secret.write_text(token, encoding="utf-8")
    rel = os.path.relpath(secret, repo)
    for path in sorted(repo.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if "@SECRET_" in text:
            path.write_text(text.replace("@SECRET_ABS@", str(secret)).replace("@SECRET_REL@", rel), encoding="utf-8")
    for spec in attack.generate:
        target = repo / spec["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        line = spec["line"]
        body = "".join(line.replace("{i}", str(i)) for i in range(int(spec["times"])))
        target.write_text(spec.get("head", "") + body + spec.get("tail", ""), encoding="utf-8")
    for fifo in attack.fifos:
        (repo / fifo).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(repo / fifo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    env = {**os.environ, **LIMITS_ENV, "XDG_CACHE_HOME": str(cache), "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    return Scene(root, repo, token, env)


def documents(repo: Path) -> list[Path]:
    found = []
    for path in sorted(repo.rglob("*.md")):
        rel = path.relative_to(repo)
        if any(part.startswith(".") for part in rel.parts) or path.is_symlink() or not path.is_file():
            continue
        found.append(path)
    return found[:8]


def config(repo: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load((repo / "mdmark.config.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def snapshot(root: Path, skip: tuple[Path, ...]) -> dict[str, str]:
    """Every file under ``root`` (outside ``skip``) by its digest; FIFOs and links by what they are."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = [d for d in dirnames if not any((here / d) == s for s in skip)]
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            path = here / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                seen[rel] = "link:" + os.readlink(path)
            elif path.is_fifo():
                seen[rel] = "fifo"
            elif path.is_file():
                seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


# -- the assertions ------------------------------------------------------------------------------------


def assert_answer(scene: Scene, where: str, text: str, refusal: bool) -> None:
    """No traceback, no internal error, no token; a refusal is Japanese sentences."""
    scene.answers.append((where, text))
    assert not scene.leaks(text), f"{where}: the secret reached the output: {text[:500]}"
    assert "Traceback" not in text, f"{where}: {text[-2000:]}"
    assert "内部のエラー" not in text and "内部エラー" not in text, f"{where}: {text[:1000]}"
    if refusal:
        for line in text.strip().splitlines():
            if line.strip():
                assert _JAPANESE.search(line), f"{where}: a line that is not Japanese: {line!r}"


def run_cli(scene: Scene, where: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "mdmark", *args],
        cwd=scene.repo,
        env=scene.env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode in (0, 1, 2), f"{where}: exit {done.returncode}: {done.stderr[-2000:]}"
    assert_answer(scene, f"{where} (stdout)", done.stdout, refusal=False)
    assert_answer(scene, f"{where} (stderr)", done.stderr, refusal=True)
    return done


def assert_expected(where: str, text: str, wanted: tuple[str, ...]) -> None:
    for part in wanted:
        assert part in text, f"{where}: expected {part!r} in {text[:2000]}"


# -- the shared server ---------------------------------------------------------------------------------


@dataclass
class Shared:
    served: Served
    clean: Path


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    folder = tmp_path_factory.mktemp("hostile-server")
    served = start_server(folder / "server", env={**LIMITS_ENV, "XDG_CACHE_HOME": str(folder / "cache")})
    clean = make_project(folder / "clean")
    shared = Shared(served, clean)
    anyio.run(clean_check, shared, False)  # the server knows the clean project before any attack
    yield shared
    assert stop_server(served) == 0, served.stderr()
    assert "Traceback" not in served.stderr(), served.stderr()


async def clean_check(shared: Shared, edit: bool) -> float:
    """Seconds the shared server takes to check the clean project (``edit``: one document changed
    first, so a worker must parse it)."""
    if edit:
        doc = shared.clean / "docs" / "cli.md"
        doc.write_text(f"# CLI\n\nコマンドの引数を並べる（{time.monotonic_ns()}）。\n", encoding="utf-8")
    start = time.monotonic()
    async with connect(shared.served) as client:
        result = await call(client, "check", {"project_dir": str(shared.clean)})
    took = time.monotonic() - start
    assert not result.is_error, result.texts
    assert json.loads(result.texts[0])["issues"] == [], result.texts
    return took


async def mcp_race(scene: Scene, shared: Shared, attack: Attack) -> None:
    """The attack's check at work, and meanwhile a clean project's check with a changed document
    (a worker must parse it): the clean one is answered within the bound."""
    answers: list[Any] = []

    async def attack_check() -> None:
        async with connect(shared.served) as client:
            answers.append(await call(client, "check", {"project_dir": str(scene.repo)}))

    async with anyio.create_task_group() as group:
        group.start_soon(attack_check)
        await anyio.sleep(0.5)
        took = await clean_check(shared, edit=True)
        assert took < ANSWER_SECONDS, f"the clean project waited {took:.1f} s behind {attack.name}"
    text = "\n".join(answers[0].texts)
    assert_answer(scene, "mcp check (race)", text, refusal=answers[0].is_error)
    assert_expected("mcp check (race)", text, attack.expect)


async def mcp_run(scene: Scene, shared: Shared, attack: Attack) -> None:
    project = {"project_dir": str(scene.repo)}
    docs = documents(scene.repo)
    out = scene.repo / "mdmark-out"
    scene.outputs.append("work/repo/mdmark-out")

    async def tool(name: str, **arguments: Any) -> str:
        async with connect(shared.served) as client:
            result = await client.call_tool(name, {**arguments, **project})
        texts = [block.text for block in result.content if block.type == "text"]
        for block in result.content:
            if block.type == "image":
                assert not scene.leaks(base64.b64decode(block.data).decode("latin-1")), f"mcp {name}: image leaks"
        text = "\n".join(texts)
        assert_answer(scene, f"mcp {name} {arguments}", text, refusal=bool(result.is_error))
        return text

    assert_expected("mcp check", await tool("check"), attack.expect)
    await tool("find_docs")
    await tool("outline", target=".")
    for doc in docs:
        rel = doc.relative_to(scene.repo).as_posix()
        answer = await tool("read_doc", target=rel)
        assert_expected(f"mcp read_doc {rel}", answer, attack.expect_read_doc)
        await tool("outline", target=rel)
        await tool("export_html", file=rel, out=str((out / (doc.stem + ".html")).relative_to(scene.repo)))
    if "build" in config(scene.repo):
        await tool("build_site")


def stdio_check(scene: Scene, attack: Attack) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> str:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "mdmark", "serve", "--stdio"], cwd=str(scene.root), env=scene.env
        )
        async with Client(params) as client:
            result = await client.call_tool("check", {"project_dir": str(scene.repo)})
        text = "\n".join(block.text for block in result.content if block.type == "text")
        assert_answer(scene, "stdio check", text, refusal=bool(result.is_error))
        return text

    text = anyio.run(main)
    assert_expected("stdio check", text, attack.expect)


def sphinx_run(scene: Scene) -> None:
    out = scene.root / "sphinx-out"
    scene.outputs.append("sphinx-out")
    conf = [p for p in (scene.repo / "conf.py", scene.repo / "docs" / "conf.py") if p.is_file()]
    if conf:
        args = ["-b", "html", "-d", str(out / ".doctrees"), str(conf[0].parent), str(out)]
    else:
        docs = documents(scene.repo)
        root_doc = docs[0].relative_to(scene.repo).with_suffix("").as_posix() if docs else "index"
        args = ["-C", "-D", "extensions=mdmark.sphinx_ext", "-D", f"root_doc={root_doc}", "-b", "html"]
        args += ["-d", str(out / ".doctrees"), str(scene.repo), str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", *args],
        cwd=scene.root,
        env=scene.env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # sphinx-build is the user's own build and speaks Sphinx's language; it must not leak or crash.
    assert not scene.leaks(done.stdout + done.stderr), "sphinx-build: the secret reached the output"
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


# -- the test ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ATTACKS)
def test_attack(name: str, shared: Shared, tmp_path: Path) -> None:
    attack = Attack.load(name)
    root = tmp_path / "root"
    root.mkdir()
    scene = stage(attack, root, tmp_path / "cache")
    before = snapshot(root, ())
    docs = documents(scene.repo)
    build = config(scene.repo).get("build")

    if "mcp" in attack.runs:
        anyio.run(mcp_race, scene, shared, attack)

    # The front-ends run side by side (the bounds are waited for once, not once per front-end);
    # the MCP calls run here, the others in threads.
    jobs: list[Callable[[], object]] = []
    if "check" in attack.runs:

        def check() -> None:
            text = run_cli(scene, "mdmark check", "check").stdout
            assert_expected("mdmark check", text, attack.expect)

        jobs += [check, lambda: run_cli(scene, "mdmark check --format json", "check", "--format", "json")]
    if "export" in attack.runs:
        for doc in docs:
            rel = doc.relative_to(scene.repo).as_posix()
            scene.outputs.append(str(doc.with_suffix(".html").relative_to(root)))
            jobs.append(functools.partial(run_cli, scene, f"mdmark export {rel}", "export", rel))
    if "build" in attack.runs and isinstance(build, dict):
        out = build.get("out")
        if isinstance(out, str):
            scene.outputs.append(str((scene.repo / out).relative_to(root)) if not os.path.isabs(out) else out)
            scene.outputs.append(str((scene.repo / out).parent.relative_to(root)) if not os.path.isabs(out) else out)
        jobs.append(lambda: run_cli(scene, "mdmark build", "build"))
    if "mcp" in attack.runs:
        jobs.append(lambda: stdio_check(scene, attack))
    if "sphinx" in attack.runs:
        jobs.append(lambda: sphinx_run(scene))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        running = [pool.submit(job) for job in jobs]
        if "mcp" in attack.runs:
            anyio.run(mcp_run, scene, shared, attack)
        for future in running:
            future.result()

    # The server still answers another project at once.
    took = anyio.run(clean_check, shared, False)
    assert took < ANSWER_SECONDS, f"the clean project took {took:.1f} s after {name}"

    # Nothing was planted, nothing leaked into a file, nothing changed outside the outputs.
    for dirpath, dirnames, filenames in os.walk(tmp_path):
        for marker in attack.markers:
            assert marker not in filenames and marker not in dirnames, f"{name}: {marker} created in {dirpath}"
    for dirpath, _dirnames, filenames in os.walk(root):
        for filename in filenames:
            path = Path(dirpath) / filename
            if path == root / "secret.txt" or path.is_symlink() or not path.is_file():
                continue
            if path.stat().st_size > 20_000_000:
                continue
            data = path.read_bytes().decode("latin-1")
            assert not scene.leaks(data), f"{name}: the secret was written into {path.relative_to(root)}"
    def kept(files: dict[str, str]) -> set[tuple[str, str]]:
        return {(rel, digest) for rel, digest in files.items() if not any(rel == o or rel.startswith(o + "/") for o in scene.outputs)}

    changed = sorted(kept(before) ^ kept(snapshot(root, ())))
    assert not changed, f"{name}: files changed outside the outputs: {changed[:10]}"
    assert not scene.leaks(shared.served.stderr()), f"{name}: the secret reached the server's log"


async def test_a_client_that_goes_away_stops_its_worker(shared: Shared, tmp_path: Path) -> None:
    """A check whose client disconnects mid-parse: the worker at work is killed, not left to burn a core."""
    from test_untrusted import alive, worker_children

    project = tmp_path / "slow"
    (project / "docs").mkdir(parents=True)
    (project / "mdmark.config.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\n', encoding="utf-8")
    # Seconds of a worker's CPU, under the headings a document may hold (mdmark.pipeline.nesting).
    body = "".join(f"## 見出し {i}\n\n本文 {i}。\n\n" for i in range(45_000))
    (project / "docs" / "big.md").write_text("# 大きい\n\n" + body, encoding="utf-8")
    pid = shared.served.proc.pid
    before = {p: _cpu_ticks(p) for p in worker_children(pid)}

    async def doomed() -> None:
        async with connect(shared.served) as client:
            await call(client, "check", {"project_dir": str(project)})

    busy: list[int] = []
    with anyio.move_on_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(doomed)
            # Wait until a worker is burning CPU on the document, then drop the client.
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not busy:
                await anyio.sleep(0.2)
                busy[:] = [p for p in worker_children(pid) if _cpu_ticks(p) - before.get(p, 0) > 100 and alive(p)]
            group.cancel_scope.cancel()
    assert busy, "no worker took the document"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(p) for p in busy):
        await anyio.sleep(0.2)
    assert not any(alive(p) for p in busy), "the worker of a client that went away still runs"
    assert await clean_check(shared, edit=True) < ANSWER_SECONDS


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])
