"""Trust is the user's, never the repository's: whether a project's ``conf.py`` may run.

A repository's own ``mdmark.config.yaml`` may name a ``conf.py`` (``sphinx.conf``), but naming it
does not make it run. It runs only after the user said so with ``mdmark trust`` (CLI only), which
records, in the user's config folder (``$XDG_CONFIG_HOME/mdmark/`` or ``~/.config/mdmark/``, folder
0700, file 0600, written atomically), a digest of that ``conf.py`` and of every local module it
imports: extensions under the project (through the folders ``conf.py`` adds to ``sys.path``),
autodoc targets under the project, and — because a static guess misses ``import _lib.tools`` or an
extension named by an expression — every module that actually loaded from inside the project while
``mdmark trust`` ran conf.py once (in a child process, as a trusted check would: an import hook
records each module file, :func:`imported_modules`). A changed digest is untrusted again, and every
front-end says the trust *lapsed* (what changed, the command that trusts again) rather than "not
trusted yet": :func:`untrusted_sentence` is the one sentence, :func:`trust_state` the one test.

Until then ``conf.py`` is data: :mod:`mdmark.host.static_conf` reads its literal settings, of which
only :data:`STATIC_SETTINGS` are used, and only the extensions of :data:`STATIC_EXTENSIONS` that are
installed outside the project are loaded (an extension is code: a name from the allow-list, taken
from the environment, never from the repository). The check says so once, as a ``config_value``
drift with the command that trusts the project (:func:`untrusted_sentence`).

MCP tools never trust and never ask: they read the user's record as the CLI does. ``mdmark.sphinx_ext``
inside ``sphinx-build`` is the user running their own build and does not ask either.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import importlib.util
import json
import os
import re
import secrets
import shlex
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmark.core.errors import MdmarkError
from mdmark.host.static_conf import UNREAD, StaticConf, has_unread, read_conf
from mdmark.util.files import read_regular

TRUST_FILE = "trusted.json"
_LOCK_FILE = ".trusted.lock"
#: A trust file larger than this is not read (it is the user's own; a huge one is damaged).
_MAX_TRUST_BYTES = 5 * 1024 * 1024
#: Local module files a fingerprint covers at most (a larger package is still covered by conf.py's digest).
_MAX_MODULE_FILES = 5000
#: Documents scanned for autodoc targets at most, and bytes read of each.
_MAX_SCANNED_DOCS = 5000
_MAX_SCANNED_BYTES = 5 * 1024 * 1024
_SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", "_build", "build", "dist"}

#: Settings an untrusted conf.py may give (statically read): data that shapes how documents read,
#: none that names code, a program, a template or a network address.
STATIC_SETTINGS: frozenset[str] = frozenset(
    {
        "project", "author", "copyright", "version", "release", "today", "today_fmt",
        "root_doc", "master_doc", "source_suffix", "exclude_patterns", "include_patterns",
        "numfig", "numfig_format", "numfig_secnum_depth", "language",
        "suppress_warnings", "nitpicky", "nitpick_ignore", "show_warning_types",
        "primary_domain", "default_role", "highlight_language", "rst_prolog", "rst_epilog",
        "math_number_all", "math_eqref_format", "math_numfig",
        "extlinks", "extlinks_detect_hardcoded_links", "todo_include_todos", "todo_emit_warnings",
        "autosectionlabel_prefix_document", "autosectionlabel_maxdepth",
    }
)  # fmt: skip
#: Prefixes of further settings read statically (MyST's and sphinx-design's are data) …
STATIC_PREFIXES: tuple[str, ...] = ("myst_", "sd_")
#: … except these, which name code to import.
STATIC_EXCLUDED: frozenset[str] = frozenset({"myst_heading_slug_func"})

#: Extensions an untrusted project may load, when installed outside the project: they read
#: documents and add directives and roles, and run no program, import nothing by a name a document
#: gives, and evaluate no document text. Any other extension waits for ``mdmark trust``.
STATIC_EXTENSIONS: frozenset[str] = frozenset(
    {
        "myst_parser", "sphinx_design", "mdmark.sphinx_ext",
        "sphinx.ext.todo", "sphinx.ext.extlinks", "sphinx.ext.mathjax", "sphinx.ext.githubpages",
        "sphinx.ext.autosectionlabel", "sphinx.ext.napoleon", "sphinx.ext.duration",
        "sphinx_copybutton", "sphinx_togglebutton", "sphinx_inline_tabs", "sphinxext.opengraph",
    }
)  # fmt: skip

#: Directives an untrusted ``sd_custom_directives`` entry may inherit from: sphinx-design's own and
#: the admonitions. Inheriting ``include`` or ``raw`` would make a name that reads files.
SD_INHERITABLE: frozenset[str] = frozenset(
    {
        "dropdown", "card", "card-carousel", "grid", "grid-item", "grid-item-card", "tab-set", "tab-item",
        "tab-set-code", "article-info", "button-link", "button-ref", "div",
        "admonition", "note", "warning", "tip", "important", "hint", "caution", "danger", "error", "attention", "seealso",
    }
)  # fmt: skip

_AUTODOC = re.compile(
    rb"(?:\{|\.\.\s+)(?:py:)?auto(?:module|class|function|exception|data|method|attribute|property|decorator|summary)"
    rb"(?:\}|::)[ \t]*([A-Za-z_][\w.]*)"
)


# -- what is read of an untrusted conf.py -----------------------------------------------------------


def _strings(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)


def _str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


#: The shape each setting must have to be used (anything else keeps Sphinx's default): a literal
#: in an odd shape must not reach code that expects the real one.
_SHAPES: dict[str, Any] = {
    "root_doc": lambda v: isinstance(v, str),
    "master_doc": lambda v: isinstance(v, str),
    "numfig": lambda v: isinstance(v, bool),
    "numfig_format": _str_map,
    "numfig_secnum_depth": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "suppress_warnings": _strings,
    "nitpicky": lambda v: isinstance(v, bool),
    "nitpick_ignore": lambda v: isinstance(v, (list, tuple, set))
    and all(isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in v),
    "exclude_patterns": _strings,
    "include_patterns": _strings,
    "source_suffix": lambda v: isinstance(v, str) or _strings(v) or _str_map(v),
    "extlinks": lambda v: isinstance(v, dict)
    and all(isinstance(k, str) and isinstance(p, (list, tuple)) and len(p) == 2 for k, p in v.items()),
    "myst_heading_anchors": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 6,
    "myst_enable_extensions": _strings,
    "todo_include_todos": lambda v: isinstance(v, bool),
}


def static_setting(name: str) -> bool:
    """Whether an untrusted conf.py's literal value of ``name`` is used."""
    if name in STATIC_EXCLUDED:
        return False
    return name in STATIC_SETTINGS or name.startswith(STATIC_PREFIXES)


def installed_outside(name: str, root: Path) -> bool | None:
    """Whether extension ``name`` is importable from the environment, outside ``root``: True, False
    when it resolves inside ``root`` (the repository's own), None when it is not importable at all.

    Only a name of :data:`STATIC_EXTENSIONS` is looked up whole (finding ``a.b`` imports ``a``); any
    other is looked up by its top-level name, which imports nothing."""
    probe = name if name in STATIC_EXTENSIONS else name.split(".")[0]
    if not all(part.isidentifier() for part in probe.split(".")):
        return None
    try:
        spec = importlib.util.find_spec(probe)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    places = [spec.origin] if spec.origin and spec.origin not in ("built-in", "frozen") else []
    places += list(spec.submodule_search_locations or [])
    for place in places:
        try:
            Path(place).resolve().relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        return False
    return True


@dataclass(frozen=True)
class StaticPlan:
    """How an untrusted conf.py is used: the settings given to Sphinx, the extensions loaded, and
    what waits for trust."""

    values: dict[str, Any]
    extensions: tuple[str, ...]
    #: Extensions not loaded until the project is trusted (not on the allow-list, or the project's own).
    held: tuple[str, ...]
    #: Extensions that are nowhere to be imported: (name, reason).
    missing: tuple[tuple[str, str], ...]
    #: Why conf.py could not be read at all, if so.
    problem: str | None = None


def static_plan(conf: Path, root: Path, static: StaticConf | None = None) -> StaticPlan:
    """What mdmark uses of an untrusted ``conf`` (inside project ``root``)."""
    static = static if static is not None else read_conf(conf)
    values = {
        k: v
        for k, v in ((k, _known_part(k, v)) for k, v in static.values.items())
        if static_setting(k) and not has_unread(v) and (k not in _SHAPES or _SHAPES[k](v))
    }
    custom = values.get("sd_custom_directives")
    if isinstance(custom, dict):
        values["sd_custom_directives"] = {
            k: v for k, v in custom.items() if isinstance(v, dict) and v.get("inherit") in SD_INHERITABLE
        }
    language = values.get("language")
    if language is not None and not (isinstance(language, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,20}", language)):
        values.pop("language")
    loaded: list[str] = []
    held: list[str] = []
    missing: list[tuple[str, str]] = []
    for name in static.extensions or ():
        where = installed_outside(name, root)
        if where is None:
            # The project's own module that is not on any path without conf.py: it waits for trust.
            if _local_module(name, _search_dirs(conf, root, static)):
                held.append(name)
            else:
                missing.append((name, f"ModuleNotFoundError: No module named '{name}'"))
        elif where and name in STATIC_EXTENSIONS:
            loaded.append(name)
        else:
            held.append(name)
    values.pop("extensions", None)
    return StaticPlan(values, tuple(dict.fromkeys(loaded)), tuple(dict.fromkeys(held)), tuple(missing), static.problem)


def trust_config_name(config_path: Path | None) -> str | None:
    """The config's file name when ``mdmark trust`` would not find it by itself (not the default
    name); None: plain ``mdmark trust`` from the project. Never a machine's absolute path: the
    sentence is read in editors, CI logs and MCP answers."""
    from mdmark.config.main import CONFIG_NAME

    return config_path.name if config_path is not None and config_path.name != CONFIG_NAME else None


def untrusted_sentence(
    conf_shown: str,
    config_name: str | None,
    held: tuple[str, ...],
    unchecked: Mapping[str, int] | None = None,
    conf: Path | None = None,
) -> str:
    """The one sentence an untrusted conf.py gets (a ``config_value`` drift at ``sphinx.conf``, and
    the same warning in build and export).

    ``config_name``: see :func:`trust_config_name` (said as ``--config NAME`` from the config's
    folder). ``unchecked``: the blocks and roles of each held extension left unchecked (extension →
    count, :mod:`mdmark.host.held_markup`). With ``conf``: when the user trusted it and it changed
    since, the sentence says the trust lapsed and what changed, not that it was never trusted."""
    what = f" と拡張 {'・'.join(f'`{h}`' for h in held)} " if held else " "
    command = "mdmark trust" + (f" --config {shlex.quote(config_name)}" if config_name is not None else "")
    where = "設定のフォルダで" if config_name is not None else ""
    left = ""
    if unchecked:
        counts = "・".join(f"`{name}` の {count} 箇所" for name, count in sorted(unchecked.items()))
        left = f"（それらのディレクティブとロールの {sum(unchecked.values())} 箇所、{counts}は確かめずに残した）"
    state = trust_state(conf) if conf is not None else None
    if state is not None and state.state == "lapsed":
        return (
            f"conf.py `{conf_shown}` は信頼した後に{_changed_words(state.changed)} が変わったので信頼が外れ、"
            f"conf.py{what}を動かさずに書かれた設定だけを読んだため{left}、変わったところを確かめて動かしてよければ"
            f"{where} `{command}` でもう一度信頼してください。"
        )
    return (
        f"conf.py `{conf_shown}` をまだ信頼していないので、conf.py{what}を動かさずに書かれた設定だけを読んだため{left}、"
        f"中身を確かめて動かしてよければ{where} `{command}` で信頼してください。"
    )


#: Changed files a lapsed-trust sentence names at most (the rest are counted).
_NAMED_CHANGES = 5


def _changed_words(changed: Sequence[str]) -> str:
    if not changed:
        return " conf.py かそれが読み込むモジュール"
    named = "・".join(f"`{name}`" for name in changed[:_NAMED_CHANGES])
    rest = len(changed) - _NAMED_CHANGES
    return f" {named}" + (f" ほか {rest} 個" if rest > 0 else "")


# -- fingerprints: conf.py and the local modules it imports -------------------------------------------


def _search_dirs(conf: Path, root: Path, static: StaticConf) -> list[Path]:
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


def _local_module(name: str, dirs: list[Path]) -> list[Path]:
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
    resolve to files under the project ``root`` (sorted, without conf.py itself)."""
    static = static if static is not None else read_conf(conf)
    dirs = _search_dirs(conf, root, static)
    names = list(static.extensions or ())
    if static.extensions is None or any("auto" in name for name in names):
        names += _autodoc_targets(conf.parent)
    files: set[Path] = set()
    for name in names:
        files.update(_local_module(name, dirs))
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


def _relative(path: Path, root: Path) -> str:
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
        rel = _relative(path, root)
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        try:
            own = _file_digest(path)
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


def _file_digest(path: Path) -> bytes:
    """SHA-256 of a regular file's whole content (any size: a large module must be pinned too);
    opened without blocking, so a FIFO is refused instead of hanging."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return hashlib.file_digest(handle, "sha256").digest()


# -- the user's record ----------------------------------------------------------------------------------


def trust_dir() -> Path:
    """``$XDG_CONFIG_HOME/mdmark``, else ``~/.config/mdmark``."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    folder = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return folder / "mdmark"


@dataclass(frozen=True)
class TrustRecord:
    """One trusted project as recorded."""

    conf: str
    config: str
    #: The project root the fingerprint was made in (module paths are relative to it).
    root: str
    digest: str
    files: tuple[str, ...]
    trusted_at: str
    #: The module files conf.py loaded from the project when it ran at trust time (relative to root).
    imported: tuple[str, ...] = ()
    #: Each pinned file's own digest (relative path → hex), to say what changed when trust lapses.
    digests: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "conf": self.conf,
            "config": self.config,
            "root": self.root,
            "digest": self.digest,
            "files": list(self.files),
            "trusted_at": self.trusted_at,
            "imported": list(self.imported),
            "digests": dict(self.digests),
        }

    @classmethod
    def from_json(cls, data: Any) -> TrustRecord | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                conf=str(data["conf"]),
                config=str(data["config"]),
                root=str(data["root"]),
                digest=str(data["digest"]),
                files=tuple(str(f) for f in data.get("files", [])),
                trusted_at=str(data.get("trusted_at", "")),
                imported=tuple(str(f) for f in data.get("imported", []) if _plain_relative(str(f))),
                digests=tuple((str(k), str(v)) for k, v in dict(data.get("digests", {})).items()),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _plain_relative(rel: str) -> bool:
    """A recorded module path stays inside the root it is relative to."""
    return bool(rel) and not os.path.isabs(rel) and ".." not in Path(rel).parts


def _private_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise MdmarkError(
            f"信頼の記録のフォルダ `{folder}` があなたのフォルダではないので、消すか XDG_CONFIG_HOME で別の場所を指定してください。"
        )
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)


def _read_records() -> dict[str, TrustRecord]:
    """The recorded projects by conf.py path. A file that is not the user's private regular file is
    not believed (someone else could have planted trust)."""
    path = trust_dir() / TRUST_FILE
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            return {}
        data = handle.read(_MAX_TRUST_BYTES + 1)
    if len(data) > _MAX_TRUST_BYTES:
        return {}
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    projects = parsed.get("projects") if isinstance(parsed, dict) else None
    out: dict[str, TrustRecord] = {}
    for item in projects if isinstance(projects, list) else []:
        record = TrustRecord.from_json(item)
        if record is not None:
            out[record.conf] = record
    return out


def _write_records(records: dict[str, TrustRecord]) -> None:
    folder = trust_dir()
    _private_folder(folder)
    text = json.dumps(
        {"version": 1, "projects": [records[k].to_json() for k in sorted(records)]}, ensure_ascii=False, indent=2
    )
    tmp = folder / f".{TRUST_FILE}.{os.getpid()}-{secrets.token_hex(6)}.mdmark-tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, folder / TRUST_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """One writer of the record at a time (two `mdmark trust` at once both land)."""
    folder = trust_dir()
    _private_folder(folder)
    fd = os.open(folder / _LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _now(record: TrustRecord) -> Fingerprint:
    return fingerprint(Path(record.conf), Path(record.root), record.imported)


def _current(record: TrustRecord) -> bool:
    return secrets.compare_digest(_now(record).digest, record.digest)


@dataclass(frozen=True)
class TrustState:
    """Where the user's trust in a conf.py stands now."""

    #: "trusted" (unchanged since ``mdmark trust``), "lapsed" (trusted, changed since) or "untrusted" (never).
    state: str
    #: For "lapsed": the pinned files that changed, appeared or vanished (relative to the project
    #: root); empty when the record is too old to say.
    changed: tuple[str, ...] = ()


def trust_state(conf: Path) -> TrustState:
    """Whether ``conf`` is trusted as it is now, was trusted and changed since, or never was."""
    try:
        real = conf.resolve()
    except (OSError, RuntimeError):
        return TrustState("untrusted")
    record = _read_records().get(str(real))
    if record is None:
        return TrustState("untrusted")
    now = _now(record)
    if real.is_file() and secrets.compare_digest(now.digest, record.digest):
        return TrustState("trusted")
    if not record.digests:
        return TrustState("lapsed")
    then = dict(record.digests)
    changed = [rel for rel in now.digests if then.get(rel) != now.digests[rel]]
    changed += [rel for rel in then if rel not in now.digests]
    return TrustState("lapsed", tuple(changed))


def trusted_digest(conf: Path) -> str | None:
    """The fingerprint's digest when the user trusted ``conf`` as it is now, else None."""
    try:
        real = conf.resolve()
    except (OSError, RuntimeError):
        return None
    record = _read_records().get(str(real))
    if record is None or not real.is_file():
        return None
    return record.digest if _current(record) else None


def _project_of(config_path: Path) -> tuple[Path, Path, Path]:
    """(config file, conf.py, project root) of the config at ``config_path``; one sentence when it
    names no usable conf.py."""
    from mdmark.config.main import load_config
    from mdmark.host.confine import project_root

    config = load_config(Path.cwd(), config_path)
    config.require("sphinx")
    assert config.path is not None
    if config.sphinx_conf is None:
        raise MdmarkError(
            f"設定 `{config_path}` は sphinx.conf で conf.py を指していないので信頼するものが無く、"
            "conf.py を使うなら sphinx.conf に書いてから `mdmark trust` を実行してください。"
        )
    return config.path, config.sphinx_conf, project_root(config.root)


def trust(config_path: Path) -> TrustRecord:
    """Record that the user trusts the conf.py the config at ``config_path`` names, as it is now."""
    config, conf, root = _project_of(config_path)
    # What trusted runs loaded beyond the last record (an import chosen at run time, see
    # mdmark.host.trust_ran: in its modules, not its digests) is pinned too.
    old = _read_records().get(str(conf.resolve()))
    noted = [r for r in old.imported if r not in dict(old.digests)] if old is not None and Path(old.root) == root else []
    imported = sorted({*imported_modules(config, conf, root), *(r for r in noted if (root / r).is_file())})
    found = fingerprint(conf, root, imported)
    files = [_relative(path, root.resolve()) for path in found.files]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    record = TrustRecord(
        str(conf), str(config), str(root), found.digest, tuple(files), now, tuple(imported), tuple(sorted(found.digests.items()))
    )
    with _locked():
        records = _read_records()
        records[record.conf] = record
        _write_records(records)
    return record


def revoke(config_path: Path) -> TrustRecord | None:
    """Forget the trust in the project of ``config_path`` (its conf.py, or any record made with that
    config file when it is gone); the record removed, None when there was none."""
    wanted = {str(Path(os.path.abspath(config_path)))}
    with contextlib.suppress(MdmarkError, OSError):
        config, conf, _ = _project_of(config_path)
        wanted |= {str(config), str(conf)}
    with _locked():
        records = _read_records()
        gone = [key for key, rec in records.items() if rec.conf in wanted or rec.config in wanted]
        removed = records.pop(gone[0]) if gone else None
        for key in gone[1:]:
            records.pop(key)
        if gone:
            _write_records(records)
    return removed


@dataclass(frozen=True)
class TrustedProject:
    record: TrustRecord
    #: "trusted" (unchanged since), "changed" (untrusted again) or "missing" (conf.py is gone).
    state: str


def trusted_projects() -> list[TrustedProject]:
    """Every recorded project, with whether its trust still holds."""
    out = []
    for key in sorted(records := _read_records()):
        record = records[key]
        if not Path(record.conf).is_file():
            state = "missing"
        else:
            state = "trusted" if _current(record) else "changed"
        out.append(TrustedProject(record, state))
    return out


def _known_part(name: str, value: Any) -> Any:
    """A substitution conf.py computes (a call in ``myst_substitutions``) is known to exist but not
    its text: it stands as an empty text, so a document that uses it is not a drift; any other
    setting with a value the reading could not follow is left to Sphinx's default."""
    if name == "myst_substitutions" and isinstance(value, dict):
        return {k: ("" if v is UNREAD else v) for k, v in value.items()}
    return value
