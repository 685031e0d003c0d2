"""The guide's editor configurations (guide page lsp), as printed, in the real editors.

Neovim (the 0.7–0.10 form; the 0.11 form too when the installed Neovim has ``vim.lsp.config``)
runs headless and Emacs in batch mode with eglot, each opening a document of a small project with a
broken link: ``mdmark lsp`` starts and the editor receives its diagnostic. The other blocks
(Helix, Sublime LSP, Zed) are read as the TOML and JSON their editors read. Outside CI a missing
editor skips its test; CI installs both (``.ci/run``) and must run them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import REPO

GUIDE = REPO / "mdmark" / "guide" / "lsp.md"
BROKEN = "リンク先のファイル `nowhere.md` が無いので、パスを直すか、リンクを消してください。"


def section_block(heading: str, language: str) -> str:
    """The first ``language`` code block under the guide's heading ``heading`` (exact line)."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    found = re.search(rf"```{language}\n(.*?)```", text[start:], re.S)
    assert found is not None, heading
    return found.group(1)


def need(editor: str) -> str:
    path = shutil.which(editor)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{editor} is not installed: .ci/run installs it")
        pytest.skip(f"{editor} is not installed")
    return path


def small_project(root: Path) -> Path:
    """A git work tree (eglot's project) with one document whose link leads nowhere."""
    (root / "docs").mkdir(parents=True)
    (root / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    (root / "index.yaml").write_text("docs:\n  - id: a\n    path: docs/a.md\n    title: 文書 A\n", encoding="utf-8")
    (root / "docs" / "a.md").write_text("# 文書 A\n\n本文の [壊れた](nowhere.md) リンク。\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def editor_env(tmp_path: Path) -> dict[str, str]:
    """``mdmark`` on PATH (as after ``pipx install``), the editors' own files under ``tmp_path``."""
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share"),
           "XDG_STATE_HOME": str(home / ".local/state"), "XDG_CACHE_HOME": str(home / ".cache")}  # fmt: skip
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


NVIM_HARNESS = """\
vim.wait(120000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(lines, string.format("%d:%d:%s:%s", d.lnum + 1, d.col, tostring(d.code), d.message))
end
vim.fn.writefile(lines, os.getenv("MDMARK_EDITOR_OUT"))
vim.cmd("qa!")
"""


def nvim_version(nvim: str) -> tuple[int, int]:
    first = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    found = re.search(r"v(\d+)\.(\d+)", first)
    assert found is not None, first
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("form", ["### Neovim 0.7 から 0.10", "## Neovim"])
def test_neovim_gets_the_diagnostic(tmp_path: Path, form: str) -> None:
    nvim = need("nvim")
    if form == "## Neovim" and nvim_version(nvim) < (0, 11):
        pytest.skip(f"the 0.11 form needs Neovim 0.11 (installed: {nvim_version(nvim)})")
    project = small_project(tmp_path / "project")
    init = tmp_path / "init.lua"
    init.write_text(section_block(form, "lua"), encoding="utf-8")
    harness = tmp_path / "harness.lua"
    harness.write_text(NVIM_HARNESS, encoding="utf-8")
    out = tmp_path / "diagnostics.txt"
    env = {**editor_env(tmp_path), "MDMARK_EDITOR_OUT": str(out)}
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-u", str(init), "docs/a.md", "-c", f"luafile {harness}"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.is_file(), done.stdout + done.stderr
    # line 3, the target's own column (Neovim counts UTF-8 bytes from 0: `本文の [壊れた](` is 22),
    # the drift kind as the code, check's sentence
    assert out.read_text(encoding="utf-8").splitlines() == [f"3:22:broken_link:{BROKEN}"]


EMACS_HARNESS = """\
(require 'markdown-mode)
(find-file (getenv "MDMARK_EDITOR_FILE"))
;; eglot-ensure connects after the command that opened the file: the command loop's hook, run by hand in batch.
(run-hooks 'post-command-hook)
(let ((deadline (+ (float-time) 120)))
  (while (and (null (flymake-diagnostics)) (< (float-time) deadline))
    (accept-process-output nil 0.2)))
(let ((found (mapcar (lambda (d) (format "%d:%s" (line-number-at-pos (flymake-diagnostic-beg d)) (flymake-diagnostic-text d)))
                     (flymake-diagnostics))))
  (with-temp-file (getenv "MDMARK_EDITOR_OUT")
    (dolist (line found) (insert line "\\n"))))
(kill-emacs 0)
"""


def test_emacs_eglot_gets_the_diagnostic(tmp_path: Path) -> None:
    emacs = need("emacs")
    project = small_project(tmp_path / "project")
    init = tmp_path / "init.el"
    init.write_text(section_block("## Emacs（eglot）", "elisp"), encoding="utf-8")
    harness = tmp_path / "harness.el"
    harness.write_text(EMACS_HARNESS, encoding="utf-8")
    out = tmp_path / "diagnostics.txt"
    env = {**editor_env(tmp_path), "MDMARK_EDITOR_OUT": str(out), "MDMARK_EDITOR_FILE": "docs/a.md"}
    done = subprocess.run(
        [emacs, "--batch", "-q", "-l", str(init), "-l", str(harness)],
        cwd=project, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.is_file(), done.stdout + done.stderr
    assert out.read_text(encoding="utf-8").splitlines() == [f"3:mdmark [broken_link]: {BROKEN}"], done.stderr


def test_the_other_editors_blocks_read_as_their_editors_read_them() -> None:
    helix = tomllib.loads(section_block("## Helix", "toml"))
    assert helix["language-server"]["mdmark"] == {"command": "mdmark", "args": ["lsp"]}
    assert "mdmark" in helix["language"][0]["language-servers"]
    sublime = json.loads(section_block("## Sublime Text（LSP パッケージ）", "json"))
    assert sublime["clients"]["mdmark"]["command"] == ["mdmark", "lsp"]
    zed = json.loads(section_block("## Zed", "json"))
    assert zed[0]["command"] == "mdmark" and zed[0]["args"] == ["check"]
