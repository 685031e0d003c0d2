"""The child ``mdmark trust`` starts to learn what conf.py really imports (see :mod:`mdmark.host.trust`).

It creates the trusted application once — conf.py and the extensions' ``setup()`` run, as in a
trusted check — with an import hook in front of ``sys.meta_path``, and prints, on its last line, a
JSON list of the file of every module found (the parent keeps those inside the project). A module
that conf.py imports and then drops from ``sys.modules`` is still seen by the hook.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mdmark.util.meta_path import find_elsewhere


class _ImportRecorder:
    """A ``sys.meta_path`` entry that asks the others and notes the file of every module found."""

    def __init__(self) -> None:
        self.origins: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        spec = find_elsewhere(self, name, path, target)
        if spec is not None and spec.origin and spec.origin not in ("built-in", "frozen"):
            self.origins.append(spec.origin)
        return spec


def _confine(config_root: Path, conf: Path, work: str) -> None:
    """Run conf.py under the confinement of a trusted project's workers (:mod:`mdmark.util.landlock`):
    it may read and write inside the project, as ``sphinx-build`` lets it, and nothing of the
    user's outside it. Where the kernel has no Landlock, as the workers do, it runs unconfined."""
    from mdmark.util import landlock
    from mdmark.util.conflock import ensure_lock
    from mdmark.util.roots import project_root

    version = landlock.abi()
    if version <= 0:
        return
    places = tuple(dict.fromkeys(str(p) for p in (project_root(conf.parent.resolve()), config_root.resolve(), conf.parent.resolve())))
    # The lock that orders conf.py's runs is the workers' too (mdmark.util.conflock).
    lock = ensure_lock(conf)
    write = (*places, *((str(lock),) if lock is not None else ()))
    # Raises OSError when the kernel refuses: conf.py then does not run unconfined.
    landlock.enter(landlock.Confinement(read=places, write=write, trusted=True), work, version)


def main(argv: Sequence[str]) -> int:
    """The child of :func:`mdmark.host.trust_fingerprint.imported_modules`: create the trusted application (conf.py and the
    extensions' ``setup()`` run, as in a trusted check) and print the module files it loaded."""
    config_path = Path(argv[0])
    recorder = _ImportRecorder()
    sys.meta_path.insert(0, recorder)
    try:
        from mdmark.config.main import load_config
        from mdmark.host.app import create_app

        config = load_config(config_path.parent, config_path)
        conf = config.sphinx_conf
        if conf is not None:
            with tempfile.TemporaryDirectory(prefix="mdmark-trust-") as work:
                try:
                    _confine(config.root, conf, work)
                except OSError:
                    return 3  # no list: the parent says conf.py could not be run to learn its imports
                create_app(conf.parent, config.markdown, conf, Path(work), trusted=True)
    except BaseException:  # noqa: BLE001 — conf.py failing is the check's to say; what loaded still counts
        pass
    finally:
        if recorder in sys.meta_path:  # conf.py may have rebuilt the list
            sys.meta_path.remove(recorder)
    origins = [*recorder.origins, *(getattr(m, "__file__", None) or "" for m in list(sys.modules.values()))]
    # On a line of its own: conf.py may have printed without an ending newline.
    sys.stdout.write("\n" + json.dumps([o for o in origins if o]) + "\n")
    return 0
