"""``base`` (the CLI's ``--base REF``): which files changed between a git ref and the working tree.

"Changed" means everything a reviewer of the pending change would see: files that differ between
``REF`` and the working tree (committed since ``REF``, staged or not yet staged, deleted ones too)
plus untracked files that git does not ignore (a new source file under a ``paths`` glob is a
change). Renames count as a deletion plus an addition, so both names are listed.

git is asked through plumbing only, because the repository may be a stranger's (CI runs ``--base``
on pull requests): ``rev-parse`` resolves the ref, ``ls-tree`` lists the base side with each blob's
id and size, ``ls-files`` lists what the working tree holds, and mdmark hashes the working tree's
files itself (git's blob hash, read as bytes). No ``diff``, ``status`` or ``hash-object`` runs, so
no filter (clean/smudge/process), textconv, diff driver or submodule of the repository is ever
started; fsmonitor and hooks are switched off on the command line, and git runs with a fixed
environment (no system or global config, nothing of the caller's ``GIT_*`` but the ceiling).

Content is compared byte for byte, as git stores it: a file whose only difference is what a
filter or ``core.autocrlf`` would undo counts as changed. Submodules are not looked into.

An unresolvable ref, a folder outside any git repository or a missing ``git`` is an
:class:`~mdmark.core.errors.MdmarkError` with exit code 2: the check then does not run at all.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from mdmark.core.errors import MdmarkError

#: How the sentences name the option: the CLI's ``--base`` and the MCP tools' ``base`` alike.
BASE_ARG = "基準の ref（CLI の `--base`、MCP のツールの `base`）"

#: ``-c`` settings every git call runs with: a repository's own ``.git/config`` (shipped in an
#: archive, or written by anyone who could write the folder) must not make git run a program.
#: The commands mdmark runs start none of the rest (filters, textconv, diff drivers, submodules).
SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "core.sshCommand=",
    "core.pager=cat",
    "core.askPass=",
    "credential.helper=",
    "protocol.allow=never",
)

#: The caller's variables git may keep: where to look for programs, HOME (git reads nothing from
#: it with GIT_CONFIG_GLOBAL set) and the ceiling a caller set to stop the repository search.
_KEPT_ENV = ("PATH", "HOME", "GIT_CEILING_DIRECTORIES", "SYSTEMROOT")

#: The mode of a submodule's entry in a tree.
GITLINK = "160000"

_DUBIOUS = re.compile(r"dubious ownership in repository at '([^']+)'")


def _env() -> dict[str, str]:
    # Built from nothing: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_COUNT/KEY/VALUE,
    # GIT_EXTERNAL_DIFF… of the caller must not steer git to another repository or program.
    env = {key: os.environ[key] for key in _KEPT_ENV if key in os.environ}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "LC_ALL": "C",
            "LANGUAGE": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_NO_LAZY_FETCH": "1",
        }
    )
    return env


def _spawn(command: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            command, cwd=cwd, env=_env(), capture_output=True, check=False, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise MdmarkError(
            f"{BASE_ARG}には git が要るのに git のコマンドが見つからないので、git を入れるか基準の ref を外してください。",
            exit_code=2,
        ) from None
    except OSError as exc:
        raise MdmarkError(
            f"{BASE_ARG}のための git を動かせない（{exc.strerror}）ので、git が使えるか確かめるか基準の ref を外してください。",
            exit_code=2,
        ) from None


@dataclass(frozen=True)
class Repo:
    """A working tree mdmark may ask git about: its top folder and the ``-c`` settings for it."""

    top: Path
    settings: tuple[str, ...]

    def git(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return _spawn(["git", *self.settings, *args], self.top)


def _settings(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(part for setting in (*SAFE_CONFIG, *extra) for part in ("-c", setting))


def _git_words(data: bytes) -> str:
    """git's first line of complaint, quoted as git's own words inside a Japanese sentence."""
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return "（git の言葉: 「" + line.strip().removeprefix("fatal: ") + "」）"
    return ""


def open_repository(folder: Path) -> Repo:
    """The git working tree holding ``folder``; exit 2 with one sentence when there is none.

    A repository owned by another user (a CI checkout, a shared folder) is read all the same: git
    refuses it to keep that user's config from running programs, and nothing mdmark asks can run
    one (see :data:`SAFE_CONFIG`), so the folder git names is marked safe for these calls only."""
    settings = _settings()
    result = _spawn(["git", *settings, "rev-parse", "--show-toplevel"], folder)
    dubious = _DUBIOUS.search(result.stderr.decode("utf-8", "replace")) if result.returncode != 0 else None
    if dubious is not None:
        settings = _settings((f"safe.directory={dubious.group(1)}",))
        result = _spawn(["git", *settings, "rev-parse", "--show-toplevel"], folder)
    if result.returncode != 0:
        if _DUBIOUS.search(result.stderr.decode("utf-8", "replace")):
            reason = "はほかの利用者のもので git が読むのを断る"
        else:
            reason = "は git のリポジトリの中に無い"
        raise MdmarkError(
            f"`{folder}` {reason}ので、{BASE_ARG}を外すか、自分の git のリポジトリの中で点検してください。",
            exit_code=2,
        )
    top = Path(result.stdout.decode("utf-8", "surrogateescape").strip()).resolve()
    return Repo(top, settings)


def resolve_ref(repo: Repo, ref: str) -> str:
    """The commit id ``ref`` names; exit 2 with one sentence when it names none."""
    if not ref.strip() or ref.startswith("-"):
        commit = None
    else:
        result = repo.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        commit = result.stdout.decode().strip() if result.returncode == 0 else None
    if not commit:
        raise MdmarkError(
            f"基準の ref `{ref}` を git で引けないので、ブランチ名・タグ・コミット（例: `origin/main`、`HEAD~1`）を確かめてください"
            "（CI では `fetch-depth: 0` などで履歴を取ってきてください）。",
            exit_code=2,
        )
    return commit


def _failed(what: str, result: subprocess.CompletedProcess[bytes]) -> MdmarkError:
    return MdmarkError(
        f"{what}を git で読めない{_git_words(result.stderr)}ので、リポジトリの状態を確かめるか{BASE_ARG}を外してください。",
        exit_code=2,
    )


def _names(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0") if part]


@dataclass(frozen=True)
class _Blob:
    mode: str
    oid: str
    size: int


def _base_side(repo: Repo, commit: str, ref: str) -> dict[str, _Blob]:
    """Every blob and submodule (mode :data:`GITLINK`) of ``commit``'s tree by path, from ``ls-tree``."""
    listed = repo.git("ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    if listed.returncode != 0:
        raise _failed(f"基準の ref `{ref}` のファイルの一覧", listed)
    out: dict[str, _Blob] = {}
    for entry in listed.stdout.split(b"\0"):
        head, tab, name = entry.partition(b"\t")
        fields = head.split()
        if not tab or len(fields) != 4 or fields[1] not in {b"blob", b"commit"}:
            continue
        size = int(fields[3]) if fields[3].isdigit() else -1  # a submodule's size is "-"
        out[name.decode("utf-8", "surrogateescape")] = _Blob(fields[0].decode(), fields[2].decode(), size)
    return out


def _hasher(repo: Repo) -> str:
    """The repository's object hash (sha1, or sha256 for a repository made with it)."""
    result = repo.git("rev-parse", "--show-object-format")
    name = result.stdout.decode().strip() if result.returncode == 0 else ""
    return name if name in {"sha1", "sha256"} else "sha1"


def blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """git's object id of a blob holding ``data``, computed here: no git process, no filter."""
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()


def _same(path: Path, blob: _Blob, algorithm: str) -> bool:
    """Whether the working tree's ``path`` holds what ``blob`` holds (content, link target, exec bit)."""
    try:
        info = path.lstat()
        if blob.mode == "120000":
            return stat.S_ISLNK(info.st_mode) and blob_id(os.fsencode(os.readlink(path)), algorithm) == blob.oid
        if not stat.S_ISREG(info.st_mode) or info.st_size != blob.size:
            return False
        if (blob.mode == "100755") != bool(info.st_mode & stat.S_IXUSR):
            return False
        return blob_id(path.read_bytes(), algorithm) == blob.oid
    except OSError:
        return False


def changed_files(folder: Path, ref: str) -> set[Path]:
    """Absolute paths of the files that differ between ``ref`` and the working tree, plus untracked ones.

    ``folder`` is any folder inside the working tree (the config folder).
    """
    repo = open_repository(folder)
    commit = resolve_ref(repo, ref)
    base = _base_side(repo, commit, ref)
    # The index's files and the untracked ones git does not ignore: what the working tree holds.
    listed = repo.git("-c", "core.quotepath=off", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed.returncode != 0:
        raise _failed("作業ツリーのファイルの一覧", listed)
    algorithm = _hasher(repo)
    changed: set[Path] = set()
    for name in {*base, *_names(listed.stdout)}:
        blob = base.get(name)
        path = repo.top / name
        if (blob is not None and blob.mode == GITLINK) or (blob is None and path.is_dir() and not path.is_symlink()):
            continue  # a submodule: its own repository, not looked into
        if blob is None or not _same(path, blob, algorithm):
            changed.add(repo.top / name)
    return changed


def ignored_files(folder: Path, pattern: str) -> list[Path]:
    """The files under ``folder`` matching ``pattern`` (a glob relative to it) that git ignores —
    what a build writes into the sources and ``.gitignore`` keeps out of the repository, such as a
    changelog conf.py copies in. Asked with ``ls-files`` (plumbing, as above); none when ``folder``
    is in no git working tree or git cannot run: the caller does without."""
    try:
        repo = open_repository(folder)
    except MdmarkError:
        return []
    try:
        rel = folder.resolve().relative_to(repo.top).as_posix()
    except ValueError:
        return []
    spec = pattern if rel == "." else f"{rel}/{pattern}"
    result = repo.git("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", f":(glob){spec}")
    if result.returncode != 0:
        return []
    return [repo.top / name for name in _names(result.stdout)]
