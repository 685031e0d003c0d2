"""Every drift of ``mdmark check`` as a Sphinx warning (``type="mdmark"``, ``subtype=<kind>``).

The check runs once per build, on ``build-finished``: after the write phase every document Sphinx
reads has its facts in the environment (see :mod:`.facts`), and a no-op incremental build still
reports the drift that is there (``-W`` must keep failing until it is fixed). Documents the check
needs but Sphinx did not read (outside the srcdir, excluded, another source folder) are parsed by
the mdmark pipeline; that happens after the write phase so the second Sphinx application it
creates cannot disturb this build.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from collections.abc import Callable

from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.project.main import Project

from .facts import stored
from .state import docname_for_path, get_state

if TYPE_CHECKING:
    from mdmark.core.diagnostics import Diagnostic
    from sphinx.application import Sphinx


def _facts_provider(app: Sphinx, project: Project) -> Callable[[list[Path]], list[DocFacts]]:
    """A ``facts`` callable for :func:`mdmark.check.collect`: Sphinx's facts, else the pipeline's."""
    env = app.env
    have = stored(env)

    def facts(paths: list[Path]) -> list[DocFacts]:
        results: list[DocFacts | None] = []
        missing: list[tuple[int, Path]] = []
        for path in paths:
            found: DocFacts | None = None
            docname = docname_for_path(env, path)
            if docname is not None and docname in have and path.is_file():
                found = have[docname]
            if found is None:
                missing.append((len(results), path))
            results.append(found)
        if missing:
            # The pipeline's own Sphinx application runs in a session, which leaves this build's
            # logging as it found it.
            parsed = project.facts_for([p for _, p in missing])
            for (i, _), item in zip(missing, parsed, strict=True):
                results[i] = item
        return [r for r in results if r is not None]

    return facts


def _location(app: Sphinx, root: Path, diag: Diagnostic) -> str | tuple[str, int | None]:
    path = (root / diag.file).resolve()
    docname = docname_for_path(app.env, path)
    if docname is not None:
        return (docname, diag.line)
    return f"{path}:{diag.line}" if diag.line else f"{path}:"


def _message(diag: Diagnostic) -> str:
    # A YAML key path tells which item is meant; a Markdown line is already in the location.
    if diag.where and not diag.where.isdigit():
        return f"{diag.where}: {diag.message}"
    return diag.message


#: Warning types of broken references Sphinx itself reports while building (see Project.host_reports).
SPHINX_REPORTS: tuple[str, ...] = ("ref", "toc", "math")


def on_build_finished(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or not app.config.mdmark_check:
        return
    state = get_state(app)
    if state.config is None:
        return
    from mdmark.check.collect import collect
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger("mdmark.sphinx_ext")
    # Sphinx reports broken roles and toctree entries itself in this very build.
    # The conf.py this very build runs is the user's own build: the pipeline may run it too.
    conf = state.config.sphinx_conf
    runs = conf is not None and conf == (Path(app.confdir) / "conf.py").resolve()
    project = Project(state.config, state.confdir, host_reports=SPHINX_REPORTS, host_runs_conf=runs)
    provider = _facts_provider(app, project)
    try:
        diagnostics = collect(project, facts=provider)
    except MdmarkError as exc:
        logger.warning(exc.message, type="mdmark", subtype="check")
        return
    for diag in diagnostics:
        logger.warning(
            "%s", _message(diag), type="mdmark", subtype=diag.kind, location=_location(app, state.config.root, diag)
        )
