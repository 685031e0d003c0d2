"""``--base REF``: which files changed between a git ref and the working tree, with real git.

"Changed" means everything a reviewer of the pending change would see: files that differ between
``REF`` and the working tree (committed since ``REF``, staged or not yet staged, deleted ones too)
plus untracked files that git does not ignore (a new source file under a ``paths`` glob is a
change). Renames count as a deletion plus an addition, so both names are listed.

An unresolvable ref, a folder outside any git repository or a missing ``git`` is an
:class:`~mdmark.core.errors.MdmarkError` with exit code 2: the check then does not run at all.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mdmark.core.errors import MdmarkError

#: ``-c`` settings every git call runs with: a repository's own ``.git/config`` (shipped in an
#: archive, or written by anyone who could write the folder) must not make git run a program —
#: no fsmonitor daemon, no hooks (an index refresh runs ``post-index-change``), no ssh or pager
#: command, no external diff.
SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.sshCommand=",
    "core.pager=cat",
    "core.askPass=",
    "diff.external=",
    "credential.helper=",
    "protocol.allow=never",
)

#: The keys of a filter driver (``.gitattributes`` ``filter=NAME``): git runs them to compare a
#: changed file with the index, so each one the repository defines is emptied.
_FILTER_KEYS = ("clean", "smudge", "process")


def _env() -> dict[str, str]:
    # A fixed, non-interactive environment: no pager, no prompt, no localised messages to parse,
    # no system-wide config, and no index written back (nothing on disk changes).
    return {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
    }


def _spawn(command: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            command, cwd=cwd, env=_env(), capture_output=True, check=False, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise MdmarkError(
            "`--base` には git が要るのに git のコマンドが見つからないので、git を入れるか `--base` を外してください。",
            exit_code=2,
        ) from None
    except OSError as exc:
        raise MdmarkError(
            f"`--base` のための git を動かせない（{exc.strerror}）ので、git が使えるか確かめるか `--base` を外してください。",
            exit_code=2,
        ) from None


def _safe(args: list[str]) -> list[str]:
    return ["git", *(part for setting in SAFE_CONFIG for part in ("-c", setting)), *args]


def _filter_overrides(cwd: Path) -> list[str]:
    """``-c filter.NAME.clean=`` … for every filter driver the repository's config defines."""
    listed = _spawn(_safe(["config", "-z", "--name-only", "--get-regexp", r"^filter\."]), cwd)
    names: set[str] = set()
    for key in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if key.startswith("filter.") and "." in key[len("filter.") :]:
            names.add(key[len("filter.") : key.rindex(".")])
    out: list[str] = []
    for name in sorted(names):
        for key in _FILTER_KEYS:
            out += ["-c", f"filter.{name}.{key}="]
        out += ["-c", f"filter.{name}.required=false"]
    return out


def run_git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The one way mdmark runs git: with :data:`SAFE_CONFIG`, the repository's filter drivers
    emptied, and :func:`_env`. Diffs must also pass ``--no-ext-diff --no-textconv``."""
    return _spawn([*_safe(_filter_overrides(cwd)), *args], cwd)


def _first_line(data: bytes) -> str:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip().removeprefix("fatal: ")
    return ""


def repository_root(folder: Path) -> Path:
    """The top folder of the git working tree holding ``folder``; exit 2 when there is none."""
    result = run_git(["rev-parse", "--show-toplevel"], folder)
    if result.returncode != 0:
        reason = _first_line(result.stderr)
        detail = f"（{reason}）" if reason else ""
        raise MdmarkError(
            f"`{folder}` は git のリポジトリの中に無い{detail}ので、`--base` を外すか、git のリポジトリの中で点検してください。",
            exit_code=2,
        )
    return Path(result.stdout.decode("utf-8", "surrogateescape").strip()).resolve()


def resolve_ref(top: Path, ref: str) -> str:
    """The commit id ``ref`` names; exit 2 with one sentence when it names none."""
    if not ref.strip() or ref.startswith("-"):
        commit = None
    else:
        result = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], top)
        commit = result.stdout.decode().strip() if result.returncode == 0 else None
    if not commit:
        raise MdmarkError(
            f"基準の ref `{ref}` を git で引けないので、ブランチ名・タグ・コミット（例: `origin/main`、`HEAD~1`）を確かめてください"
            "（CI では `fetch-depth: 0` などで履歴を取ってきてください）。",
            exit_code=2,
        )
    return commit


def _names(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


def changed_files(folder: Path, ref: str) -> set[Path]:
    """Absolute paths of the files that differ between ``ref`` and the working tree, plus untracked ones.

    ``folder`` is any folder inside the working tree (the config folder).
    """
    top = repository_root(folder)
    commit = resolve_ref(top, ref)
    diff = run_git(
        ["-c", "core.quotepath=off", "diff", "--no-ext-diff", "--no-textconv", "--name-only", "--no-renames", "-z", commit, "--"],
        top,
    )
    if diff.returncode != 0:
        raise MdmarkError(
            f"基準の ref `{ref}` と作業ツリーを git で比べられない（{_first_line(diff.stderr)}）ので、リポジトリの状態を確かめてください。",
            exit_code=2,
        )
    untracked = run_git(["ls-files", "--others", "--exclude-standard", "-z"], top)
    if untracked.returncode != 0:
        raise MdmarkError(
            f"git で追跡していないファイルを一覧できない（{_first_line(untracked.stderr)}）ので、リポジトリの状態を確かめてください。",
            exit_code=2,
        )
    return {top / name for name in (*_names(diff.stdout), *_names(untracked.stdout))}
