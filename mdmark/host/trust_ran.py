"""Trust covers what actually ran: the project's modules a trusted conf.py loads in each run.

``mdmark trust`` pins conf.py and the project's modules it imported when it ran once then
(:mod:`mdmark.host.trust_probe`). A conf.py may choose at run time what it imports (an environment
variable, the date): a module it did not load at trust time would run unpinned. So each run
carries the pins to the process that runs conf.py:

- :func:`trust_pins` is the trust string a trusted project's pipeline is given (instead of the bare
  digest): the record's digest, then the pinned files and their digests as they are now (they
  match the record, or the trust would have lapsed already).
- :class:`PinnedImports`, in front of ``sys.meta_path`` while conf.py and the extensions'
  ``setup()`` run (:func:`mdmark.host.app.create_app`), refuses to load a module from inside the
  project that is not pinned or whose bytes differ from the pin (an :class:`ImportError`, before
  the module's code runs), and notes it. Modules loaded around the import system (a loader called
  by hand) are found afterwards in ``sys.modules``. Either way the application is made again
  without conf.py — the run goes on untrusted, as with a lapsed trust — and its
  :class:`~mdmark.host.confinfo.ConfInfo` names the modules (``lapsed``).
- :func:`note_lapsed`, in the process that answers, adds those modules to the record's modules
  without changing its digest, so the trust is *lapsed* everywhere (the same sentence names them,
  ``mdmark trust --list`` says changed) until the user runs ``mdmark trust`` again, which pins them
  too (:func:`mdmark.host.trust.trust` keeps the record's modules that are not in its digests).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# At the top, not in the finder: an import inside find_spec would come back to it for ever.
from mdmark.host.trust import trusted_now
from mdmark.host.trust_fingerprint import _outside_environment, file_digest
from mdmark.host.trust_records import _plain_relative, locked, read_records, write_records
from mdmark.util.meta_path import find_elsewhere

#: Between the digest and the pins in the trust string (a digest is hex, never holds one).
_SEPARATOR = "\n"


#: The file in the project's cache folder where the process that ran conf.py leaves the modules it
#: refused (it may write there, not in the user's trust record).
NOTE_NAME = "trust-lapsed.json"


def trust_pins(conf: Path, cache_dir: Path | None) -> str | None:
    """The trust string of ``conf`` when the user trusts it as it is now (else None): the record's
    digest, then a JSON object of the project root, every pinned file's digest and where to leave
    a note of a lapse (in ``cache_dir``). A note an earlier run left makes the trust lapse first."""
    if cache_dir is not None:
        _take_note(conf, cache_dir / NOTE_NAME)
    found = trusted_now(conf)
    if found is None:
        return None
    record, now = found  # the files' digests the fingerprint hashed are kept for the pins
    pins = {"root": record.root, "files": now.digests, "note": str(cache_dir / NOTE_NAME) if cache_dir else ""}
    return record.digest + _SEPARATOR + json.dumps(pins, sort_keys=True, ensure_ascii=False)


def _take_note(conf: Path, note: Path) -> None:
    """Make the trust lapse for the modules an earlier run's note names, and remove the note."""
    from mdmark.core.errors import MdmarkError
    from mdmark.util.files import read_text

    if not note.is_file():
        return
    try:
        # A regular file of bounded size only (a planted link or a FIFO is not read).
        data = json.loads(read_text(note))
    except (MdmarkError, ValueError):
        return
    if isinstance(data, dict) and data.get("conf") == str(conf.resolve()) and isinstance(data.get("lapsed"), list):
        note_lapsed(conf, [str(rel) for rel in data["lapsed"]], str(data.get("digest", "")))
    with contextlib.suppress(OSError):
        note.unlink()


@dataclass(frozen=True)
class Pins:
    """What a trust string pins: the project root, each pinned file's digest, where to leave a note."""

    root: Path
    files: dict[str, str]
    note: str
    #: The record's digest the pins were made from (a note applies to that record only).
    digest: str


def parse_pins(trust: str | None) -> Pins | None:
    """The pins of a trust string; None for a bare digest (``sphinx-build`` running its own conf.py)
    or no trust."""
    if not trust or _SEPARATOR not in trust:
        return None
    try:
        digest, text = trust.split(_SEPARATOR, 1)
        data = json.loads(text)
        return Pins(Path(str(data["root"])), {str(k): str(v) for k, v in dict(data["files"]).items()}, str(data.get("note") or ""), digest)
    except (ValueError, KeyError, TypeError):
        return None


class PinnedImports:
    """A ``sys.meta_path`` entry that lets the project's modules load only as pinned."""

    def __init__(self, pins: Pins) -> None:
        self.root = pins.root.resolve()
        self.files = pins.files
        self.note = pins.note
        self.digest = pins.digest
        #: The project's modules refused (or found loaded unpinned), relative to the root.
        self.lapsed: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        spec = find_elsewhere(self, name, path, target)
        rel = self._unpinned(spec.origin) if spec is not None else None
        if rel is not None:
            if rel not in self.lapsed:
                self.lapsed.append(rel)
            raise ImportError(f"mdmark: `{rel}` is not pinned by `mdmark trust`", name=name)
        return spec

    def _unpinned(self, origin: object) -> str | None:
        """``origin``'s path relative to the root when it is a project file the trust does not pin
        as it is now; None for anything else (outside the project, the Python installation)."""
        if not isinstance(origin, str) or origin in ("built-in", "frozen"):
            return None
        try:
            path = Path(origin).resolve()
            rel = path.relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):
            return None
        if not _outside_environment(path):
            return None
        try:
            digest = file_digest(path).hex()
        except OSError:
            digest = "unreadable"
        return None if self.files.get(rel) == digest else rel

    def sweep(self, before: Iterable[str]) -> None:
        """Note the project's modules that loaded since ``before`` (module names) without passing here."""
        known = set(before)
        for name, module in list(sys.modules.items()):
            if name in known or module is None:
                continue
            rel = self._unpinned(getattr(module, "__file__", None))
            if rel is not None and rel not in self.lapsed:
                self.lapsed.append(rel)

    def leave_note(self, conf: Path) -> None:
        """Tell the process that answers (now, or on its next run) which modules lapsed the trust."""
        if not self.note or not self.lapsed:
            return
        with contextlib.suppress(OSError):
            Path(self.note).write_text(json.dumps({"conf": str(conf.resolve()), "digest": self.digest, "lapsed": self.lapsed}), encoding="utf-8")


def note_lapsed(conf: Path, lapsed: Iterable[str], digest: str | None = None) -> None:
    """Make the user's trust in ``conf`` lapse for the modules ``lapsed`` (relative to the project
    root) a trusted run loaded unpinned: they join the record's modules, its digest stays, so the
    fingerprint no longer matches and every front-end names them. With ``digest``: only while the
    record is the one the run was trusted by (a note of a run before ``mdmark trust`` is moot)."""
    import dataclasses

    wanted = sorted({rel for rel in lapsed if _plain_relative(rel)})
    if not wanted:
        return
    key = str(conf.resolve())
    with locked():
        records = read_records()
        record = records.get(key)
        if record is None or set(wanted) <= set(record.imported) or (digest is not None and record.digest != digest):
            return
        records[key] = dataclasses.replace(record, imported=tuple(sorted({*record.imported, *wanted})))
        write_records(records)

