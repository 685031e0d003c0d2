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


class _ImportRecorder:
    """A ``sys.meta_path`` entry that asks the others and notes the file of every module found."""

    def __init__(self) -> None:
        self.origins: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.origin and spec.origin not in ("built-in", "frozen"):
                    self.origins.append(spec.origin)
                return spec
        return None


def _confined(config_path: Path, conf: Path, work: str) -> bool:
    """Confine this process as a trusted project's workers are (:meth:`Pipeline.worker_confinement
    <mdmark.pipeline.pipeline.Pipeline.worker_confinement>`): conf.py may read the project, Python
    and the system, and write the project and ``work`` — not ``~/.ssh``, not outside. True when
    confined or where the kernel has no Landlock (today's door); False when the kernel refused."""
    from mdmark.host.confine import project_root
    from mdmark.util import landlock
    from mdmark.util.conflock import ensure_lock

    version = landlock.abi()
    if version < 1:
        return True
    config_root = config_path.parent.resolve()
    project = tuple(dict.fromkeys(str(p) for p in (project_root(config_root), config_root, conf.resolve().parent)))
    lock = ensure_lock(conf)
    write = (*project, *((str(lock),) if lock is not None else ()))
    try:
        landlock.enter(landlock.Confinement(read=project, write=write, trusted=True), work, version)
    except OSError:
        return False
    return True


def main(argv: Sequence[str]) -> int:
    """The child of :func:`mdmark.host.trust.imported_modules`: create the trusted application (conf.py and the
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
                if not _confined(config_path, conf, work):
                    return 3  # never run conf.py unconfined where it should be confined: nothing printed
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
