"""What trusting a ``conf.py`` pins: the project's own modules it imports — found by reading (its
extensions and autodoc targets under the project) and by running it once at trust time (an import
hook in a child process, :mod:`mdmark.host.trust_probe`) — and one digest over them and conf.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mdmark.core.errors import MdmarkError
from mdmark.host.static_conf import StaticConf, read_conf
from mdmark.util.files import read_regular

#: Local module files a fingerprint covers at most (a larger package is still covered by conf.py's digest).
_MAX_MODULE_FILES = 5000
#: Documents scanned for autodoc targets at most, and bytes read of each.
_MAX_SCANNED_DOCS = 5000
_MAX_SCANNED_BYTES = 5 * 1024 * 1024
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", "_build", "build", "dist"}

_AUTODOC = re.compile(
    rb"(?:\{|\.\.\s+)(?:py:)?auto(?:module|class|function|exception|data|method|attribute|property|decorator|summary)"
    rb"(?:\}|::)[ \t]*([A-Za-z_][\w.]*)"
)


def import_dirs(conf: Path, root: Path, static: StaticConf) -> list[Path]:
    """Folders a trusted conf.py may import the project's own modules from (all inside ``root``)."""
    found = [conf.parent, *static.sys_path, root, root / "src"]
    out: list[Path] = []
    for folder in found:
        try:
            real = folder.resolve()
            real.relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        if real.is_dir() and real not in out:
            out.append(real)
    return out


def local_module_files(name: str, dirs: list[Path]) -> list[Path]:
    """The files of module ``name`` (its top-level package: every ``.py`` under it; a single module:
    the ``.py`` files beside it, which it may import) in the first of ``dirs`` that holds it."""
    top = name.split(".")[0]
    if not top.isidentifier():
        return []
    for folder in dirs:
        package = folder / top
        if package.is_dir() and ((package / "__init__.py").is_file() or any(package.glob("*.py"))):
            return _python_files(package, recursive=True)
        if (folder / f"{top}.py").is_file():
            return _python_files(folder, recursive=False)
    return []


def _python_files(folder: Path, recursive: bool) -> list[Path]:
    found: list[Path] = []
    if not recursive:
        return sorted(p for p in folder.glob("*.py") if p.is_file())
    for current, subdirs, files in os.walk(folder):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS and not d.startswith("."))
        found.extend(Path(current) / f for f in sorted(files) if f.endswith(".py"))
        if len(found) > _MAX_MODULE_FILES:
            break
    return found[:_MAX_MODULE_FILES]


def _autodoc_targets(srcdir: Path) -> list[str]:
    """Module names the documents under ``srcdir`` document with autodoc directives."""
    names: list[str] = []
    seen = 0
    for current, subdirs, files in os.walk(srcdir):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS and not d.startswith("."))
        for file in sorted(files):
            if not file.endswith((".md", ".rst", ".txt")):
                continue
            seen += 1
            if seen > _MAX_SCANNED_DOCS:
                return names
            try:
                data = read_regular(Path(current) / file, _MAX_SCANNED_BYTES)
            except OSError:  # not a regular file (a FIFO must not block), too big, unreadable
                continue
            if b"auto" in data:
                names.extend(m.group(1).decode("ascii", "replace") for m in _AUTODOC.finditer(data))
    return list(dict.fromkeys(names))


def local_modules(conf: Path, root: Path, static: StaticConf | None = None) -> list[Path]:
    """The project's own module files ``conf`` imports: its extensions and autodoc targets that
    resolve to files under the project ``root``, and the files it ``exec``s (sorted, without conf.py itself)."""
    static = static if static is not None else read_conf(conf)
    dirs = import_dirs(conf, root, static)
    names = list(static.extensions or ())
    if static.extensions is None or any("auto" in name for name in names):
        names += _autodoc_targets(conf.parent)
    files: set[Path] = set()
    for name in names:
        files.update(local_module_files(name, dirs))
    # Files conf.py exec()s are its own text: the static reading uses them, so trust pins them too.
    files.update(static.files)
    files.discard(conf.resolve())
    return sorted(files)


@dataclass(frozen=True)
class Fingerprint:
    """What trusting a conf.py pins: one digest over conf.py and its local modules."""

    digest: str
    #: conf.py first, then the local modules.
    files: tuple[Path, ...]
    #: Each file's own digest by its path relative to the project root ("unreadable" when it is not).
    digests: dict[str, str]


def relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def fingerprint(conf: Path, root: Path, imported: Sequence[str] = ()) -> Fingerprint:
    """The digest of ``conf`` and of every local module it imports from the project ``root`` (the
    project root of the config folder): the ones found by reading (:func:`local_modules`) and
    ``imported``, the paths (relative to ``root``) recorded when conf.py ran at trust time. An
    unreadable or vanished file counts as such, so it cannot match a digest made when it was there."""
    conf = conf.resolve()
    root = root.resolve()
    found = set(local_modules(conf, root))
    found.update(root / rel for rel in imported)
    found.discard(conf)
    files = (conf, *sorted(found))
    digest = hashlib.sha256(b"mdmark-trust-1\0")
    each: dict[str, str] = {}
    for path in files:
        rel = relative(path, root)
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        try:
            own = file_digest(path)
        except OSError:
            own = b"unreadable"
        digest.update(own)
        each[rel] = own.hex() if own != b"unreadable" else "unreadable"
    return Fingerprint(digest.hexdigest(), files, each)



# -- what conf.py really imports: run it once, at trust time --------------------------------------------

#: Wall-clock bound of the trust-time run of conf.py (a conf.py that blocks is not recorded).
_PROBE_SECONDS = 600


def _outside_environment(path: Path) -> bool:
    """Not part of the Python installation running mdmark (a venv inside the project holds Sphinx)."""
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        try:
            path.relative_to(Path(prefix).resolve())
            return False
        except ValueError:
            continue
    return not any(part in ("site-packages", "dist-packages") for part in path.parts)


def _module_files(origins: Sequence[str], root: Path, conf: Path) -> list[str]:
    """The module files among ``origins`` that lie in the project ``root``, relative to it."""
    found: set[str] = set()
    for origin in origins:
        try:
            path = Path(origin).resolve()
            rel = path.relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        if path != conf and path.is_file() and _outside_environment(path):
            found.add(rel.as_posix())
    return sorted(found)[:_MAX_MODULE_FILES]


def imported_modules(config_path: Path, conf: Path, root: Path) -> list[str]:
    """Run conf.py once in a child process, as a trusted check runs it, and return every module file
    (relative to ``root``) that loaded from inside the project; one sentence when it cannot run."""
    code = "import sys; from mdmark.host.trust_probe import main; sys.exit(main(sys.argv[1:]))"
    origins: object = None
    reason = ""
    with tempfile.TemporaryDirectory(prefix="mdmark-trust-cwd-") as cwd:
        try:
            # -P: the child's working folder is not on sys.path (conf.py adds what it wants itself).
            done = subprocess.run(
                [sys.executable, "-P", "-c", code, str(config_path)],
                cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=_PROBE_SECONDS, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            reason = f"{_PROBE_SECONDS} 秒で終わらない"
        except (OSError, subprocess.SubprocessError) as exc:
            reason = str(exc.strerror) if isinstance(exc, OSError) else exc.__class__.__name__
        else:
            lines = done.stdout.decode("utf-8", "surrogateescape").strip().splitlines()
            try:
                origins = json.loads(lines[-1]) if lines else None
            except ValueError:
                origins = None
            reason = f"終了コード {done.returncode}"
    if not isinstance(origins, list):
        raise MdmarkError(
            f"conf.py `{conf}` を一度動かして読み込むモジュールを調べられなかった（{reason}）ので信頼を記録せず、"
            "conf.py が止まらずに終わるか確かめてから、もう一度 `mdmark trust` を実行してください。"
        )
    return _module_files([str(o) for o in origins], root.resolve(), conf.resolve())


def file_digest(path: Path) -> bytes:
    """SHA-256 of a regular file's whole content (any size: a large module must be pinned too);
    opened without blocking, so a FIFO is refused instead of hanging."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return hashlib.file_digest(handle, "sha256").digest()

