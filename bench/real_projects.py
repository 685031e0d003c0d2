"""Fetch and prepare real MyST projects of 50–200 documents for ``bench_project.py --project`` (issue 23).

    .venv/bin/python bench/real_projects.py DEST [--mirror DIR] [--only NAME]
    .venv/bin/pip install -c <(.venv/bin/pip freeze | grep -iE '^(sphinx|docutils|myst-parser)==') \\
        $(.venv/bin/python bench/real_projects.py --requirements)
    .venv/bin/python bench/bench_project.py --project DEST/the-littlest-jupyterhub --project DEST/jupyterhub

Each project is taken at a pinned commit (``git archive`` of the folders its documentation reads),
into ``DEST/<name>``, with an ``mdmark.config.yaml`` naming its own conf.py; nothing of it is
committed here (BSD-3-Clause projects of several MB with images). ``--mirror DIR`` reads the
repositories from ``DIR/<owner>+<name>/repo`` (bare git folders, as this project's search tool
lays them out); without it each is cloned from GitHub. ``--requirements`` prints what their
conf.py and extensions import, to install into the benchmark's environment beside Sphinx, MyST
and docutils as they are (the constraint above keeps pip from changing them).

The projects' conf.py run unchanged, as ``sphinx-build`` runs them (``bench_project.py`` trusts its
copies explicitly, under a private ``XDG_CONFIG_HOME``). What was done to make them build offline
and without their repository's tooling:

* jupyterhub: its Makefile's ``metrics`` step runs first (``docs/generate-metrics.py`` writes
  ``docs/source/includes/metrics_table.md``, which ``reference/metrics.md`` includes); autodoc
  imports the ``jupyterhub`` package installed from PyPI (the requirements), not the repository's
  source. ``examples/`` and ``jupyterhub/event-schemas/`` come along for the documents'
  ``literalinclude`` and ``jsonschema`` directives.
* Both name intersphinx inventories on the web: offline (as here) the fetch fails at once, in
  ``sphinx-build`` and in mdmark alike, and the references to them are reported as missing by both;
  with a network both download them, and the figures include that.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable

CONFIG = """\
docs:
  include: ["{src}**/*.md"]
build:
  title: {name}
  include: ["{src}**/*.md"]
  out: dist/bench.html
sphinx:
  conf: {src}conf.py
"""


@dataclass(frozen=True)
class RealProject:
    """One upstream project: where it lives, the commit measured, what of it the documentation reads."""

    name: str
    repo: str  # owner/name on GitHub
    commit: str
    paths: tuple[str, ...]  # folders and files taken from the commit
    src: str  # the folder of conf.py, relative to the project, ending in "/"
    requirements: tuple[str, ...]
    #: Commands run in the prepared copy before it is measured (its build's own preparation).
    steps: tuple[tuple[str, ...], ...] = field(default=())


PROJECTS: tuple[RealProject, ...] = (
    RealProject(
        name="the-littlest-jupyterhub",
        repo="jupyterhub/the-littlest-jupyterhub",
        commit="84ed38fd1f7c239c30378fecc23079911224066c",
        paths=("docs", "LICENSE"),
        src="docs/",
        requirements=("pydata-sphinx-theme", "sphinx-copybutton", "sphinxext-opengraph", "sphinxext-rediraffe"),
    ),
    RealProject(
        name="jupyterhub",
        repo="jupyterhub/jupyterhub",
        commit="2841153db6c1c25d8b50955e2f4b39f78f3d0119",
        paths=("docs", "examples", "jupyterhub/event-schemas", "pyproject.toml", "LICENSE"),
        src="docs/source/",
        requirements=(
            "jupyterhub", "autodoc-traits", "intersphinx-registry", "jupyterhub-sphinx-theme", "pytablewriter",
            "ruamel.yaml", "sphinx-copybutton", "sphinx-jsonschema", "sphinxext-opengraph", "sphinxext-rediraffe",
        ),
        steps=(("docs", PYTHON, "generate-metrics.py"),),
    ),
)


def _git_dir(project: RealProject, mirror: Path | None, scratch: Path) -> Path:
    """A git folder holding ``project.commit``: the mirror's, else a fresh clone."""
    if mirror is not None:
        found = mirror / project.repo.replace("/", "+") / "repo"
        if not found.is_dir():
            sys.exit(f"{found} is not there: fetch {project.repo} first, or leave out --mirror")
        return found
    target = scratch / project.name
    subprocess.run(
        ["git", "clone", "--bare", "--filter=blob:none", f"https://github.com/{project.repo}", str(target)], check=True
    )
    return target


def prepare(project: RealProject, dest: Path, mirror: Path | None) -> Path:
    """``dest/<name>``: the project's files at its commit, its preparation steps run, a config beside it."""
    out = dest / project.name
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="mdmark-real-") as scratch:
        git = _git_dir(project, mirror, Path(scratch))
        archive = subprocess.run(
            ["git", "--git-dir", str(git), "archive", project.commit, *project.paths], check=True, capture_output=True
        ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    for folder, *command in project.steps:
        subprocess.run(command, cwd=out / folder, check=True)
    (out / "mdmark.config.yaml").write_text(CONFIG.format(src=project.src, name=project.name), encoding="utf-8")
    documents = sum(1 for _ in (out / project.src).rglob("*.md"))
    print(f"{project.name}: {documents} Markdown documents at {project.commit[:10]} in {out}", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dest", type=Path, nargs="?", help="the folder to prepare the projects in")
    parser.add_argument("--mirror", type=Path, help="read the repositories from DIR/<owner>+<name>/repo")
    parser.add_argument("--only", action="append", default=[], help="prepare only this project (by name)")
    parser.add_argument("--requirements", action="store_true", help="print the projects' requirements and stop")
    args = parser.parse_args()
    chosen = [p for p in PROJECTS if not args.only or p.name in args.only]
    if args.requirements:
        print(" ".join(sorted({r for p in chosen for r in p.requirements})))
        return 0
    if args.dest is None:
        parser.error("DEST is needed")
    for project in chosen:
        prepare(project, args.dest.resolve(), args.mirror)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
