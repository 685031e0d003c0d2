"""The Claude Code plugin: its manifests, its hooks as programs, and the real ``claude`` CLI.

The hooks are run the way Claude Code runs them: a separate ``python3`` process, the event as
JSON on stdin, the answer as JSON on stdout. The ``claude`` tests use a temporary HOME, no login
and no network; they skip only when the ``claude`` command is absent, and then only outside CI
(``CI=true`` fails instead).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import needs_program, program


def _plugin_module(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INSTALL_HINT: str = _plugin_module(Path(__file__).resolve().parent.parent / "plugin" / "lib" / "find_mdmark.py").INSTALL_HINT

REPO = Path(__file__).resolve().parent.parent
PLUGIN = REPO / "plugin"
HOOKS = PLUGIN / "hooks"
PRE_TOOL_USE = HOOKS / "project_dir.py"
SESSION_START = HOOKS / "session_start.py"
PREFIX = "mcp__plugin_mdmark_mdmark__"
#: The python3 Claude Code finds on PATH, not the venv's: the hooks must run on the standard library.
SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or sys.executable
VENV_BIN = str(Path(sys.executable).parent)


def _base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"CLAUDE_PROJECT_DIR", "MDMARK_PORT", "VIRTUAL_ENV"}}
    env.update(extra)
    return env


def run_hook(script: Path, event: object | str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a hook as Claude Code does; the working folder is one without an ``mdmark`` package in it."""
    stdin = event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)
    return subprocess.run(
        [SYSTEM_PYTHON, str(script)], input=stdin, capture_output=True, text=True, env=env, timeout=60, cwd="/"
    )


def pre_tool_use(tool: str, tool_input: object, project_dir: str | None) -> subprocess.CompletedProcess[str]:
    env = _base_env() if project_dir is None else _base_env(CLAUDE_PROJECT_DIR=project_dir)
    event = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": "/somewhere/else",
    }
    return run_hook(PRE_TOOL_USE, event, env)


# --- manifests -------------------------------------------------------------------------------


def test_plugin_manifest_names_the_plugin() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "mdmark"
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert manifest["description"]


def test_mcp_json_declares_the_http_server() -> None:
    data = json.loads((PLUGIN / ".mcp.json").read_text(encoding="utf-8"))
    # ?project=${PWD}: the session's folder for resource reads (a header cannot carry a non-ASCII path).
    assert data == {"mcpServers": {"mdmark": {"type": "http", "url": "http://127.0.0.1:${MDMARK_PORT:-8782}/mcp?project=${PWD}"}}}


def test_marketplace_lists_the_plugin() -> None:
    data = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    assert data["owner"]["name"]
    assert [(p["name"], p["source"]) for p in data["plugins"]] == [("mdmark", "./plugin")]
    assert data["plugins"][0]["description"]
    assert (REPO / data["plugins"][0]["source"] / ".claude-plugin" / "plugin.json").is_file()


def test_hooks_json_runs_the_scripts_with_python3() -> None:
    data = json.loads((HOOKS / "hooks.json").read_text(encoding="utf-8"))
    (pre,) = data["hooks"]["PreToolUse"]
    (start,) = data["hooks"]["SessionStart"]
    matcher = re.compile(pre["matcher"])
    for tool in ("read_guide", "export_html", "build_site", "check", "find_docs", "list_tags", "update_index", "outline", "read_doc"):
        assert matcher.search(PREFIX + tool)
    for other in ("Bash", "Read", "mcp__other__check", "mcp__plugin_other_mdmark__check"):
        assert not matcher.search(other)
    for group, script in ((pre, PRE_TOOL_USE), (start, SESSION_START)):
        (hook,) = group["hooks"]
        assert hook["type"] == "command"
        # -I: isolated, so nothing of the opened repository or the environment is on sys.path.
        assert hook["command"] == f'python3 -I "${{CLAUDE_PLUGIN_ROOT}}/hooks/{script.name}"'
        assert script.is_file()


FIND_MDMARK = PLUGIN / "lib" / "find_mdmark.py"


def test_hooks_import_only_the_standard_library() -> None:
    for script in (PRE_TOOL_USE, SESSION_START, FIND_MDMARK):
        imported = set(re.findall(r"^(?:from|import) (\w+)", script.read_text(encoding="utf-8"), re.M))
        # find_mdmark: the plugin's own module, from the plugin's folder.
        assert imported <= set(sys.stdlib_module_names) | {"__future__", "find_mdmark"}, script.name


# --- PreToolUse: project_dir -----------------------------------------------------------------


def _updated(done: subprocess.CompletedProcess[str]) -> object:
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = json.loads(done.stdout)
    assert list(out) == ["hookSpecificOutput"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert set(out["hookSpecificOutput"]) == {"hookEventName", "updatedInput"}
    return out["hookSpecificOutput"]["updatedInput"]


@pytest.mark.parametrize(
    "tool", ["export_html", "build_site", "check", "find_docs", "list_tags", "update_index", "outline", "read_doc"]
)
def test_project_dir_is_added(tool: str, tmp_path: Path) -> None:
    done = pre_tool_use(PREFIX + tool, {"config": "a/mdmark.config.yaml"}, str(tmp_path))
    assert _updated(done) == {"config": "a/mdmark.config.yaml", "project_dir": str(tmp_path)}


def test_agents_project_dir_is_replaced(tmp_path: Path) -> None:
    tool_input = {"kind": "doc", "id": "b", "item": {"path": "b.md", "title": "文書 B"}, "project_dir": "/tmp/agent"}
    done = pre_tool_use(PREFIX + "update_index", tool_input, str(tmp_path))
    assert _updated(done) == {**tool_input, "project_dir": str(tmp_path)}


def test_empty_input_gets_project_dir(tmp_path: Path) -> None:
    assert _updated(pre_tool_use(PREFIX + "build_site", {}, str(tmp_path))) == {"project_dir": str(tmp_path)}


def test_missing_tool_input_gets_project_dir(tmp_path: Path) -> None:
    event = {"hook_event_name": "PreToolUse", "tool_name": PREFIX + "check"}
    done = run_hook(PRE_TOOL_USE, event, _base_env(CLAUDE_PROJECT_DIR=str(tmp_path)))
    assert _updated(done) == {"project_dir": str(tmp_path)}


def _untouched(done: subprocess.CompletedProcess[str]) -> None:
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_read_guide_is_left_alone(tmp_path: Path) -> None:
    _untouched(pre_tool_use(PREFIX + "read_guide", {"names": ["install"]}, str(tmp_path)))


def test_read_guide_keeps_the_agents_project_dir(tmp_path: Path) -> None:
    # The server rejects project_dir on read_guide; the hook neither adds nor removes it.
    _untouched(pre_tool_use(PREFIX + "read_guide", {"names": ["cli"], "project_dir": "/x"}, str(tmp_path)))


@pytest.mark.parametrize("tool_input", [{"file": "a.md"}, {"file": "a.md", "project_dir": "/tmp/agent"}, {}])
def test_without_claude_project_dir_the_input_is_left_alone(tool_input: dict[str, str]) -> None:
    _untouched(pre_tool_use(PREFIX + "export_html", tool_input, None))


def test_empty_claude_project_dir_counts_as_missing() -> None:
    _untouched(pre_tool_use(PREFIX + "check", {}, ""))


@pytest.mark.parametrize("tool", ["Bash", "mcp__other__check", "mcp__plugin_other_other__find_docs"])
def test_other_tools_are_left_alone(tool: str, tmp_path: Path) -> None:
    _untouched(pre_tool_use(tool, {"command": "ls", "project_dir": "/x"}, str(tmp_path)))


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"tool_name": 3}'])
def test_unreadable_events_are_left_alone(stdin: str, tmp_path: Path) -> None:
    _untouched(run_hook(PRE_TOOL_USE, stdin, _base_env(CLAUDE_PROJECT_DIR=str(tmp_path))))


def test_non_object_tool_input_is_left_alone(tmp_path: Path) -> None:
    _untouched(pre_tool_use(PREFIX + "check", ["x"], str(tmp_path)))


def test_non_ascii_project_dir_and_values_survive(tmp_path: Path) -> None:
    folder = tmp_path / "設計 文書"
    folder.mkdir()
    done = pre_tool_use(PREFIX + "find_docs", {"text": "アーキテクチャ", "tags": ["設計"]}, str(folder))
    assert _updated(done) == {"text": "アーキテクチャ", "tags": ["設計"], "project_dir": str(folder)}


# --- SessionStart: the guide index and the server line ------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def session_start(env: dict[str, str]) -> str:
    event = {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "/"}
    done = run_hook(SESSION_START, event, env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = json.loads(done.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context: str = out["hookSpecificOutput"]["additionalContext"]
    return context


def _guide_lines() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "mdmark", "guide"], capture_output=True, text=True, timeout=60, check=True
    )
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    return [f"- {name}: {title} — {description}" for name, title, description in rows]


def test_session_start_lists_the_guide_and_how_to_start_the_server() -> None:
    port = _free_port()
    env = _base_env(MDMARK_PORT=str(port), PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    context = session_start(env)
    lines = context.splitlines()
    assert lines[0].startswith("mdmark の使い方集の索引")
    guide = _guide_lines()
    assert lines[1 : 1 + len(guide)] == guide
    # Then the prompts as slash commands (their list is held to the server's in test_prompts.py).
    assert lines[1 + len(guide)].startswith("mdmark のプロンプト")
    assert "`/mcp__plugin_mdmark_mdmark__write_doc topic [tags]`" in lines[1 + len(guide)]
    names = [line.split(":", 1)[0][2:] for line in guide]
    for name in ("install", "mcp-tools", "serve", "config", "index", "cli", "notation", "extension", "read", "toon"):
        assert name in names
    # How to read a document with the tools, and the guide page that says more.
    assert lines[2 + len(guide)].startswith("設計文書を読むときは") and "outline" in lines[2 + len(guide)]
    assert "read_doc" in lines[2 + len(guide)] and "read" in names
    assert lines[-1] == (
        f"mdmark の MCP サーバーが http://127.0.0.1:{port}/mcp で応答しないので、ツールを使う前に、ターミナルで "
        f"`MDMARK_PORT={port} mdmark serve` を起動するよう利用者に頼んでください（常駐させる手順は使い方集の serve）。"
    )


def test_session_start_says_when_the_server_is_up() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        env = _base_env(MDMARK_PORT=str(port), PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        context = session_start(env)
    assert context.splitlines()[-1] == f"mdmark の MCP サーバーは http://127.0.0.1:{port}/mcp で動いています。"


def test_session_start_default_port_line_says_mdmark_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    # Run the function in-process to see the default-port sentence without depending on port 8782.
    sys.path.insert(0, str(HOOKS))
    try:
        import session_start as hook
    finally:
        sys.path.remove(str(HOOKS))
    monkeypatch.setattr(hook, "server_running", lambda port: False)
    monkeypatch.setattr(hook, "guide_entries", lambda: [("install", "プラグインを入れる", "入れ方")])
    assert hook.context({}).splitlines() == [
        "mdmark の使い方集の索引（MCP のツール read_guide の names に名前を渡すと本文を読めます。シェルでは `mdmark guide 名前`）:",
        "- install: プラグインを入れる — 入れ方",
        hook.prompts_line(),
        "設計文書を読むときは、ファイルを丸ごと読む前に、MCP のツール outline で見出しの索引（アンカー・行・文字数・画像の数）を見て、"
        "read_doc の section にアンカーを渡して要る節だけを図ごと読んでください（使い方集の read）。",
        "mdmark の MCP サーバーが http://127.0.0.1:8782/mcp で応答しないので、ツールを使う前に、ターミナルで `mdmark serve` "
        "を起動するよう利用者に頼んでください（常駐させる手順は使い方集の serve）。",
    ]
    assert hook.context({"MDMARK_PORT": "http"}).splitlines()[-2] == (
        "環境変数 MDMARK_PORT の値 `http` はポート番号ではないので、1〜65535 の整数にしてください。"
    )


def test_session_start_without_mdmark_says_how_to_install(tmp_path: Path) -> None:
    # A PATH with python3 but no mdmark command, and a python3 that cannot import mdmark.
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").symlink_to(SYSTEM_PYTHON)
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import mdmark"], capture_output=True, env=_base_env(PATH=str(bare)), cwd="/"
    )
    if probe.returncode == 0:
        pytest.skip("the system python3 can import mdmark, so the no-mdmark case cannot be staged")
    port = _free_port()
    context = session_start(_base_env(PATH=str(bare), MDMARK_PORT=str(port), PYTHONPATH=""))
    assert context.splitlines() == [
        INSTALL_HINT,
        f"mdmark の MCP サーバーが http://127.0.0.1:{port}/mcp で応答しないので、ツールを使う前に、ターミナルで "
        f"`MDMARK_PORT={port} mdmark serve` を起動するよう利用者に頼んでください（常駐させる手順は使い方集の serve）。",
    ]


# --- the real claude CLI ---------------------------------------------------------------------

CLAUDE = program("claude")
needs_claude = needs_program("claude")


@pytest.fixture
def claude_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = _base_env(
        HOME=str(home),
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        # A busy machine changes the time, never the answer: claude's own connect-and-list wait
        # (shorter by default) once ran out at load 12 ("tools fetch failed").
        MCP_TIMEOUT="60000",
        PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    for key in ("ANTHROPIC_API_KEY", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"):
        env.pop(key, None)
    return env


def claude(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=180, stdin=subprocess.DEVNULL
    )


@pytest.fixture
def marketplace(tmp_path: Path) -> Path:
    """A copy of the repository's marketplace and plugin, as a user's clone holds them."""
    root = tmp_path / "mdmark-repo"
    shutil.copytree(REPO / ".claude-plugin", root / ".claude-plugin")
    shutil.copytree(PLUGIN, root / "plugin", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@needs_claude
def test_claude_validates_the_plugin_and_the_marketplace(claude_env: dict[str, str], tmp_path: Path) -> None:
    done = claude("plugin", "validate", "--strict", str(PLUGIN / ".claude-plugin" / "plugin.json"), env=claude_env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
    done = claude("plugin", "validate", "--strict", str(REPO / ".claude-plugin" / "marketplace.json"), env=claude_env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout


INSTALL_PAGE = REPO / "mdmark" / "guide" / "install.md"
ADDED = "✔ Successfully added marketplace: mdmark (declared in user settings)"
INSTALLED = "✔ Successfully installed plugin: mdmark@mdmark (scope: user)"


def test_install_page_shows_the_claude_output() -> None:
    page = INSTALL_PAGE.read_text(encoding="utf-8")
    assert ADDED in page
    assert INSTALLED in page
    assert "plugin:mdmark:mdmark: http://127.0.0.1:8782/mcp?project=/home/you/project (HTTP) - ✔ Connected" in page


@pytest.fixture
def installed(claude_env: dict[str, str], marketplace: Path, tmp_path: Path) -> dict[str, str]:
    done = claude("plugin", "marketplace", "add", str(marketplace), env=claude_env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mdmark" in done.stdout
    # The install page shows these lines; they must stay what claude prints.
    assert ADDED in done.stdout, done.stdout
    done = claude("plugin", "install", "mdmark@mdmark", env=claude_env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert INSTALLED in done.stdout, done.stdout
    done = claude("plugin", "list", env=claude_env, cwd=tmp_path)
    assert "mdmark@mdmark" in done.stdout, done.stdout + done.stderr
    return claude_env


@pytest.fixture
def mdmark_server(tmp_path: Path) -> Iterator[int]:
    """A real ``mdmark serve`` on a free port, stopped with SIGTERM afterwards."""
    port = _free_port()
    work = tmp_path / "serve"
    work.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mdmark", "serve", "--port", str(port)],
        cwd=work,
        env=_base_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"mdmark serve exited with {proc.returncode}: {out}{err}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("mdmark serve did not start listening")
                time.sleep(0.1)
        yield port
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _mcp_line(stdout: str) -> str:
    lines = [line for line in stdout.splitlines() if line.startswith("plugin:mdmark:mdmark:")]
    assert len(lines) == 1, stdout
    return lines[0]


def mcp_list(env: dict[str, str], cwd: Path, tries: int = 3) -> subprocess.CompletedProcess[str]:
    """``claude mcp list``, asked again (up to ``tries`` times) while it does not show mdmark's server
    connected: its health check waits a fixed few seconds that ``MCP_TIMEOUT`` does not stretch, and
    a busy machine changes the time, never the answer (the server answers; claude stopped waiting)."""
    for _ in range(tries):
        done = claude("mcp", "list", env=env, cwd=cwd)
        if any(line.startswith("plugin:mdmark:mdmark:") and line.endswith("✔ Connected") for line in done.stdout.splitlines()):
            break
    return done


@needs_claude
def test_claude_sees_the_hooks_and_the_server(installed: dict[str, str], tmp_path: Path) -> None:
    done = claude("plugin", "details", "mdmark@mdmark", env=installed, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Hooks \(2\)\s+PreToolUse, SessionStart", done.stdout), done.stdout
    assert re.search(r"MCP servers \(1\)\s+mdmark\b", done.stdout), done.stdout


@needs_claude
def test_claude_connects_to_mdmark_serve(installed: dict[str, str], mdmark_server: int, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**installed, "MDMARK_PORT": str(mdmark_server), "PWD": str(project)}  # PWD as the user's shell sets it
    done = mcp_list(env, project)
    assert done.returncode == 0, done.stdout + done.stderr
    line = _mcp_line(done.stdout)
    assert f"http://127.0.0.1:{mdmark_server}/mcp?project={project} (HTTP)" in line
    assert line.endswith("✔ Connected"), line
    # The line the install page tells a newcomer to look for.
    shown = line.replace(str(mdmark_server), "8782").replace(str(project), "/home/you/project")
    assert shown in INSTALL_PAGE.read_text(encoding="utf-8")


@needs_claude
def test_claude_reports_a_stopped_server(installed: dict[str, str], tmp_path: Path) -> None:
    env = {**installed, "MDMARK_PORT": str(_free_port())}
    done = claude("mcp", "list", env=env, cwd=tmp_path)
    line = _mcp_line(done.stdout)
    assert line.endswith("✘ Failed to connect"), line


# --- the language server ----------------------------------------------------------------------

LSP_LAUNCHER = PLUGIN / "bin" / "mdmark_lsp.py"
#: A PATH with the system's programs (python3, claude) but not the venv's mdmark.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def test_manifest_declares_the_language_server_for_markdown() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    server = manifest["lspServers"]["mdmark"]
    assert server["command"] == "python3"
    assert server["args"] == ["-I", "${CLAUDE_PLUGIN_ROOT}/bin/mdmark_lsp.py"]
    assert server["extensionToLanguage"] == {".md": "markdown"}
    imported = set(re.findall(r"^(?:from|import) (\w+)", LSP_LAUNCHER.read_text(encoding="utf-8"), re.M))
    assert imported <= set(sys.stdlib_module_names) | {"__future__", "find_mdmark"}


def _lsp_message(body: dict[str, object]) -> bytes:
    data = json.dumps(body).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def _launch_lsp(env: dict[str, str], cwd: Path | str) -> None:
    """Start the launcher as Claude Code does (``python3 -I launcher`` in the project) and see
    ``mdmark lsp`` answer ``initialize``."""
    request = _lsp_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    done = subprocess.Popen(
        [SYSTEM_PYTHON, "-I", str(LSP_LAUNCHER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    try:
        assert done.stdin is not None and done.stdout is not None
        done.stdin.write(request)
        done.stdin.flush()
        header = done.stdout.readline()
        assert header.startswith(b"Content-Length:"), header
        length = int(header.split(b":")[1])
        while done.stdout.readline().strip():  # other headers (Content-Type), then the blank line
            pass
        answer = json.loads(done.stdout.read(length))
        assert answer["id"] == 1
        capabilities = answer["result"]["capabilities"]
        assert capabilities["definitionProvider"] and capabilities["referencesProvider"] and capabilities["renameProvider"]
        assert answer["result"]["serverInfo"]["name"] == "mdmark"
    finally:
        done.kill()
        done.wait(timeout=30)


def test_launcher_finds_mdmark_on_path(tmp_path: Path) -> None:
    _launch_lsp(_base_env(CLAUDE_PROJECT_DIR=str(tmp_path), PATH=f"{VENV_BIN}{os.pathsep}{SYSTEM_PATH}"), tmp_path)


def test_launcher_without_mdmark_says_how_to_install(tmp_path: Path) -> None:
    env = _base_env(CLAUDE_PROJECT_DIR=str(tmp_path), PATH="/nonexistent")
    done = subprocess.run([SYSTEM_PYTHON, "-I", str(LSP_LAUNCHER)], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    # The same sentence as the SessionStart hook's, and the install command the guide's page gives.
    assert done.stderr == INSTALL_HINT + "\n"
    assert "`pipx install .`" in INSTALL_HINT and "$ pipx install .\n" in INSTALL_PAGE.read_text(encoding="utf-8")


# --- a hostile repository: nothing it holds runs (issue 37) ------------------------------------------


@pytest.fixture
def trapped(tmp_path: Path) -> tuple[Path, Path]:
    """A repository holding every way a launcher could run its code, each writing ``MARKER`` when
    run: its own ``mdmark`` package (``python -m mdmark`` from the repository), ``.venv`` and
    ``venv`` in it and ``.venv`` in its parent folder, each with ``bin/mdmark`` and ``bin/python3``."""
    marker = tmp_path / "MARKER"
    parent = tmp_path / "parent"
    repo = parent / "repo"
    (repo / "mdmark").mkdir(parents=True)
    trap_py = f"open({str(marker)!r}, 'a').write('ran ' + __file__ + '\\n')\n"
    (repo / "mdmark" / "__init__.py").write_text(trap_py, encoding="utf-8")
    (repo / "mdmark" / "__main__.py").write_text(trap_py, encoding="utf-8")
    (repo / "sitecustomize.py").write_text(trap_py, encoding="utf-8")
    for venv in (repo / ".venv", repo / "venv", parent / ".venv", parent / "venv"):
        (venv / "bin").mkdir(parents=True)
        for name in ("mdmark", "python3", "python"):
            trap = venv / "bin" / name
            trap.write_text(f"#!/bin/sh\necho \"ran $0\" >> '{marker}'\n", encoding="utf-8")
            trap.chmod(0o755)
    (repo / "doc.md").write_text("# 文書\n", encoding="utf-8")
    return repo, marker


def test_session_start_runs_nothing_of_the_repository(trapped: tuple[Path, Path]) -> None:
    repo, marker = trapped
    event = json.dumps({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(repo)})
    port = str(_free_port())
    # No mdmark installed: the install sentence; installed (the venv's, on PATH): the guide.
    # The repository's own .venv/bin first on PATH (an activated venv of the repository) is skipped.
    for path, installed in ((SYSTEM_PATH, False), (f"{repo / '.venv' / 'bin'}{os.pathsep}{VENV_BIN}{os.pathsep}{SYSTEM_PATH}", True)):
        env = _base_env(CLAUDE_PROJECT_DIR=str(repo), PATH=path, MDMARK_PORT=port, VIRTUAL_ENV=str(repo / ".venv"))
        done = subprocess.run(
            [SYSTEM_PYTHON, "-I", str(SESSION_START)], input=event, capture_output=True, text=True, env=env, timeout=60, cwd=repo
        )
        assert done.returncode == 0, done.stderr
        context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        if installed:
            assert context.splitlines()[1 : 1 + len(_guide_lines())] == _guide_lines()
        elif shutil.which("mdmark", path=SYSTEM_PATH) is None:
            assert context.splitlines()[0] == INSTALL_HINT
        assert not marker.exists(), marker.read_text(encoding="utf-8")
    # No mdmark on PATH, but the python3 running the hook imports it: that python, isolated, from /.
    env = _base_env(CLAUDE_PROJECT_DIR=str(repo), PATH=SYSTEM_PATH, MDMARK_PORT=port)
    done = subprocess.run(
        [sys.executable, "-I", str(SESSION_START)], input=event, capture_output=True, text=True, env=env, timeout=60, cwd=repo
    )
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[1 : 1 + len(_guide_lines())] == _guide_lines()
    assert not marker.exists(), marker.read_text(encoding="utf-8")


def test_launcher_runs_nothing_of_the_repository(trapped: tuple[Path, Path]) -> None:
    repo, marker = trapped
    env = _base_env(CLAUDE_PROJECT_DIR=str(repo), PATH=f"{repo / 'venv' / 'bin'}{os.pathsep}{SYSTEM_PATH}", VIRTUAL_ENV=str(repo / ".venv"))
    done = subprocess.run([SYSTEM_PYTHON, "-I", str(LSP_LAUNCHER)], capture_output=True, text=True, env=env, cwd=repo, timeout=60)
    if shutil.which("mdmark", path=SYSTEM_PATH) is None:
        assert (done.returncode, done.stderr) == (1, INSTALL_HINT + "\n")
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    # With mdmark installed the real server starts, from /, and nothing of the repository runs either.
    _launch_lsp({**env, "PATH": f"{repo / '.venv' / 'bin'}{os.pathsep}{VENV_BIN}{os.pathsep}{SYSTEM_PATH}"}, repo)
    assert not marker.exists(), marker.read_text(encoding="utf-8")


@needs_claude
def test_claude_session_in_a_hostile_repository_runs_nothing_of_it(
    installed: dict[str, str], trapped: tuple[Path, Path]
) -> None:
    """The real claude opens the repository: its SessionStart hook answers, no trap runs."""
    repo, marker = trapped
    env = {**installed, "PATH": f"{VENV_BIN}{os.pathsep}{SYSTEM_PATH}", "MDMARK_PORT": str(_free_port())}
    done = claude("-p", "hi", "--output-format", "stream-json", "--verbose", "--include-hook-events", env=env, cwd=repo)
    context = _session_start_context(done.stdout)
    assert context.splitlines()[1 : 1 + len(_guide_lines())] == _guide_lines()
    assert not marker.exists(), marker.read_text(encoding="utf-8")


# --- mdmark only in the venv: the guide and the prompts come from the running server ------------------


def _no_mdmark_on_system_path() -> None:
    probe = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import mdmark"], capture_output=True, env=_base_env(PATH=SYSTEM_PATH), cwd="/"
    )
    found = shutil.which("mdmark", path=SYSTEM_PATH)
    if probe.returncode == 0 or found:
        pytest.skip("mdmark is installed outside the venv, so the venv-only case cannot be staged")


def _server_lines() -> tuple[list[str], str]:
    """The guide lines and the prompt line the hook must print, from mdmark itself."""
    sys.path.insert(0, str(HOOKS))
    try:
        import session_start as hook
    finally:
        sys.path.remove(str(HOOKS))
    from mdmark.server.prompts import PROMPTS as SERVER_PROMPTS

    prompts = [
        (p.name, " ".join(a.name if a.required else f"[{a.name}]" for a in p.arguments), p.title) for p in SERVER_PROMPTS
    ]
    return _guide_lines(), hook.prompts_line(prompts)


def test_hook_and_server_agree_on_the_guide_heading() -> None:
    from mdmark.server.app import GUIDE_HEADING, instructions

    sys.path.insert(0, str(HOOKS))
    try:
        import session_start as hook
    finally:
        sys.path.remove(str(HOOKS))
    assert hook.GUIDE_HEADING == GUIDE_HEADING
    entries = hook.guide_from_instructions(instructions())
    assert entries is not None
    assert [f"- {n}: {t} — {d}" for n, t, d in entries] == _guide_lines()


def test_session_start_reads_the_running_server_when_mdmark_is_only_in_the_venv(mdmark_server: int) -> None:
    _no_mdmark_on_system_path()
    context = session_start(_base_env(PATH=SYSTEM_PATH, MDMARK_PORT=str(mdmark_server)))
    guide, prompt_line = _server_lines()
    lines = context.splitlines()
    assert lines[0].startswith("mdmark の使い方集の索引")
    assert lines[1 : 1 + len(guide)] == guide
    assert lines[1 + len(guide)] == prompt_line
    assert lines[2 + len(guide)].startswith("設計文書を読むときは")
    assert lines[-1] == f"mdmark の MCP サーバーは http://127.0.0.1:{mdmark_server}/mcp で動いています。"
    assert "mdmark が見つからない" not in context


def test_session_start_ignores_a_port_that_is_not_mdmark() -> None:
    # Something else listens on the port: the hook falls back to the installed mdmark (the venv's on PATH).
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        env = _base_env(MDMARK_PORT=str(port), PATH=f"{VENV_BIN}{os.pathsep}{SYSTEM_PATH}")
        started = time.monotonic()
        context = session_start(env)
    assert time.monotonic() - started < 25
    assert context.splitlines()[1 : 1 + len(_guide_lines())] == _guide_lines()


def _session_start_context(stdout: str) -> str:
    """The additionalContext of the SessionStart hook in ``claude -p --include-hook-events`` output."""
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("subtype") == "hook_response" and event.get("hook_event") == "SessionStart":
            output = json.loads(event["output"])
            context: str = output["hookSpecificOutput"]["additionalContext"]
            return context
    raise AssertionError(f"no SessionStart hook_response in: {stdout[:2000]}")


@needs_claude
def test_claude_session_start_with_mdmark_only_in_the_venv(
    installed: dict[str, str], mdmark_server: int, tmp_path: Path
) -> None:
    """The real claude runs the hook (no login: the session stops at the model call, after the hook)."""
    _no_mdmark_on_system_path()
    env = {**installed, "PATH": SYSTEM_PATH, "MDMARK_PORT": str(mdmark_server)}
    work = tmp_path / "work"
    work.mkdir()
    done = claude("-p", "hi", "--output-format", "stream-json", "--verbose", "--include-hook-events", env=env, cwd=work)
    context = _session_start_context(done.stdout)
    guide, prompt_line = _server_lines()
    lines = context.splitlines()
    assert lines[1 : 1 + len(guide)] == guide
    assert prompt_line in lines
    assert lines[-1] == f"mdmark の MCP サーバーは http://127.0.0.1:{mdmark_server}/mcp で動いています。"
