"""Trust is the user's, never the repository's: whether a project's ``conf.py`` may run.

A repository's own ``mdmark.config.yaml`` may name a ``conf.py`` (``sphinx.conf``), but naming it
does not make it run. It runs only after the user said so with ``mdmark trust`` (CLI only), which
records, in the user's config folder (``$XDG_CONFIG_HOME/mdmark/`` or ``~/.config/mdmark/``, folder
0700, file 0600, written atomically), a digest of that ``conf.py`` and of every local module it
imports: extensions under the project (through the folders ``conf.py`` adds to ``sys.path``),
autodoc targets under the project, and — because a static guess misses ``import _lib.tools`` or an
extension named by an expression — every module that actually loaded from inside the project while
``mdmark trust`` ran conf.py once (in a child process, as a trusted check would: an import hook
records each module file; :mod:`mdmark.host.trust_fingerprint`). A changed digest is untrusted
again, and every front-end says the trust *lapsed* (what changed, the command that trusts again)
rather than "not trusted yet": :func:`untrusted_sentence` is the one sentence, :func:`trust_state`
the one test. The record itself is :mod:`mdmark.host.trust_records`.

Until then ``conf.py`` is data: :mod:`mdmark.host.static_conf` reads its literal settings, of which
only :data:`~mdmark.host.static_plan.STATIC_SETTINGS` are used, and only the extensions of
:data:`~mdmark.host.static_plan.STATIC_EXTENSIONS` that are installed outside the project are loaded
(an extension is code: a name from the allow-list, taken from the environment, never from the
repository; :mod:`mdmark.host.static_plan`). The check says so once, as a ``config_value`` drift
with the command that trusts the project (:func:`untrusted_sentence`).

MCP tools never trust and never ask: they read the user's record as the CLI does. ``mdmark.sphinx_ext``
inside ``sphinx-build`` is the user running their own build and does not ask either.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import secrets
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mdmark.core.errors import MdmarkError
from mdmark.host.trust_fingerprint import Fingerprint, fingerprint, imported_modules, relative
from mdmark.host.trust_records import TrustRecord, locked, read_records, write_records


def trust_config_name(config_path: Path | None) -> str | None:
    """The config's file name when ``mdmark trust`` would not find it by itself (not the default
    name); None: plain ``mdmark trust`` from the project. Never a machine's absolute path: the
    sentence is read in editors, CI logs and MCP answers."""
    from mdmark.config.main import CONFIG_NAME

    return config_path.name if config_path is not None and config_path.name != CONFIG_NAME else None


@dataclass(frozen=True)
class Unread:
    """What the untrusted reading of conf.py could not find, for the trust notice: the settings it
    could not read, how conf.py runs other code into its namespace (``exec``, ``from x import *``),
    and how many drifts were held because of them (:mod:`mdmark.references.held`)."""

    settings: tuple[str, ...]
    opaque: tuple[str, ...]
    held: int


def untrusted_sentence(
    conf_shown: str,
    config_name: str | None,
    held: tuple[str, ...],
    unchecked: Mapping[str, int] | None = None,
    conf: Path | None = None,
    unread: Unread | None = None,
) -> str:
    """The one sentence an untrusted conf.py gets (a ``config_value`` drift at ``sphinx.conf``, and
    the same warning in build and export).

    ``config_name``: see :func:`trust_config_name` (said as ``--config NAME`` from the config's
    folder). ``unchecked``: the blocks and roles of each held extension left unchecked (extension →
    count, :mod:`mdmark.host.held_markup`). ``unread``: the settings not read and the drifts held
    for them. With ``conf``: when the user trusted it and it changed since, the sentence says the
    trust lapsed and what changed, not that it was never trusted."""
    what = f" と拡張 {'・'.join(f'`{h}`' for h in held)} " if held else " "
    command = "mdmark trust" + (f" --config {shlex.quote(config_name)}" if config_name is not None else "")
    where = "設定のフォルダで" if config_name is not None else ""
    # Each clause as it goes on (連用形) and as it ends the parenthesis.
    parts: list[tuple[str, str]] = []
    if unchecked:
        counts = "・".join(f"`{name}` の {count} 箇所" for name, count in sorted(unchecked.items()))
        kept = f"それらのディレクティブとロールの {sum(unchecked.values())} 箇所、{counts}は確かめずに"
        parts.append((kept + "残し", kept + "残した"))
    if unread is not None:
        parts.append(_unread_words(unread))
    left = f"（{''.join(going + '、' for going, _end in parts[:-1])}{parts[-1][1]}）" if parts else ""
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


#: Settings an unread-settings clause names at most (the rest are counted).
_NAMED_SETTINGS = 6


def _unread_words(unread: Unread) -> tuple[str, str]:
    """The clause of :func:`untrusted_sentence` on the settings not read: ``値を確かめられなかった設定
    `extensions`・… と `exec` で書かれうるほかの設定で起こりうるずれ 47 件は報告を控えた``
    (going on, and ending)."""
    named = "・".join(f"`{name}`" for name in unread.settings[:_NAMED_SETTINGS])
    rest = len(unread.settings) - _NAMED_SETTINGS
    if rest > 0:
        named += f" ほか {rest} 個"
    forms = "・".join(f"`{form}`" for form in unread.opaque)
    if named and forms:
        what = f"値を確かめられなかった設定 {named} と {forms} で書かれうるほかの設定"
    elif named:
        what = f"値を確かめられなかった設定 {named}"
    else:
        what = f"{forms} で書かれうる設定"
    what += " " if what.endswith("`") else ""
    if unread.held:
        clause = f"{what}で起こりうるずれ {unread.held} 件は報告を控え"
        return clause, clause + "た"
    clause = f"{what}で起こりうるずれは無"
    return clause + "く", clause + "かった"


#: Changed files a lapsed-trust sentence names at most (the rest are counted).
_NAMED_CHANGES = 5


def _changed_words(changed: Sequence[str]) -> str:
    if not changed:
        return " conf.py かそれが読み込むモジュール"
    named = "・".join(f"`{name}`" for name in changed[:_NAMED_CHANGES])
    rest = len(changed) - _NAMED_CHANGES
    return f" {named}" + (f" ほか {rest} 個" if rest > 0 else "")



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
    record = read_records().get(str(real))
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


def trusted_now(conf: Path) -> tuple[TrustRecord, Fingerprint] | None:
    """The user's record of ``conf`` and the fingerprint of its files now, when the user trusted
    ``conf`` as it is now (else None)."""
    try:
        real = conf.resolve()
    except (OSError, RuntimeError):
        return None
    record = read_records().get(str(real))
    if record is None or not real.is_file():
        return None
    now = _now(record)
    return (record, now) if secrets.compare_digest(now.digest, record.digest) else None


def trusted_digest(conf: Path) -> str | None:
    """The fingerprint's digest when the user trusted ``conf`` as it is now, else None."""
    found = trusted_now(conf)
    return found[0].digest if found is not None else None


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
    old = read_records().get(str(conf.resolve()))
    noted = [r for r in old.imported if r not in dict(old.digests)] if old is not None and Path(old.root) == root else []
    imported = sorted({*imported_modules(config, conf, root), *(r for r in noted if (root / r).is_file())})
    found = fingerprint(conf, root, imported)
    files = [relative(path, root.resolve()) for path in found.files]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    record = TrustRecord(
        str(conf), str(config), str(root), found.digest, tuple(files), now, tuple(imported), tuple(sorted(found.digests.items()))
    )
    with locked():
        records = read_records()
        records[record.conf] = record
        write_records(records)
    return record


def revoke(config_path: Path) -> TrustRecord | None:
    """Forget the trust in the project of ``config_path`` (its conf.py, or any record made with that
    config file when it is gone); the record removed, None when there was none."""
    wanted = {str(Path(os.path.abspath(config_path)))}
    with contextlib.suppress(MdmarkError, OSError):
        config, conf, _ = _project_of(config_path)
        wanted |= {str(config), str(conf)}
    with locked():
        records = read_records()
        gone = [key for key, rec in records.items() if rec.conf in wanted or rec.config in wanted]
        removed = records.pop(gone[0]) if gone else None
        for key in gone[1:]:
            records.pop(key)
        if gone:
            write_records(records)
    return removed


@dataclass(frozen=True)
class TrustedProject:
    record: TrustRecord
    #: "trusted" (unchanged since), "changed" (untrusted again) or "missing" (conf.py is gone).
    state: str


def trusted_projects() -> list[TrustedProject]:
    """Every recorded project, with whether its trust still holds."""
    out = []
    for key in sorted(records := read_records()):
        record = records[key]
        if not Path(record.conf).is_file():
            state = "missing"
        else:
            state = "trusted" if _current(record) else "changed"
        out.append(TrustedProject(record, state))
    return out
