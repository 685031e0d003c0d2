"""The wheel a user installs: built from a copy of the source tree, installed into a fresh virtual
environment (dependencies from the package registry), and used there as a user would.

Proves the namespaced layout of the design card: ``sphinx_ext/`` installs as ``mdmark.sphinx_ext``,
``templates/`` as ``mdmark.templates`` (package data), the guide as ``mdmark.guide`` data; every
Python package and every data file of the source tree is in the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

#: Source folder → installed package, as pyproject.toml maps them.
PACKAGE_ROOTS = {"mdmark": "mdmark", "sphinx_ext": "mdmark.sphinx_ext", "templates": "mdmark.templates"}

_OFFLINE_SIGNS = (
    "Temporary failure in name resolution",
    "Failed to establish a new connection",
    "Network is unreachable",
    "No matching distribution found",
    "Could not find a version that satisfies",
)


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def _registry_or_skip(result: subprocess.CompletedProcess[str], what: str) -> None:
    if result.returncode != 0:
        output = result.stdout + result.stderr
        if any(sign in output for sign in _OFFLINE_SIGNS):
            pytest.skip(f"the package registry is unreachable ({what})")
        raise AssertionError(f"{what} failed:\n{output[-4000:]}")


def _source_copy(dest: Path) -> Path:
    """The files a build sees, without the venv, caches or tests (so builds never touch the repo)."""
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".mdmark_cache", ".pytest_cache", ".mypy_cache", "tests", "bench"
    )
    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


def expected_contents() -> tuple[set[str], set[str]]:
    """(installed packages, installed data files as paths inside site-packages) of the source tree."""
    packages: set[str] = set()
    data: set[str] = set()
    for folder, package in PACKAGE_ROOTS.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(root)
            name = ".".join([package, *rel.parts]) if rel.parts else package
            # sphinx_ext and templates live inside mdmark/'s tree only through the mapping
            if folder == "mdmark" and rel.parts[:1] in (("sphinx_ext",), ("templates",)):
                continue
            packages.add(name)
            for path in init.parent.iterdir():
                if path.is_file() and path.suffix not in (".py", ".pyc"):
                    data.add("/".join([*package.split("."), *rel.parts, path.name]))
    return packages, data


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel, the venv's python) — built and installed once for the tests of this module."""
    work = tmp_path_factory.mktemp("packaging")
    src = _source_copy(work / "src")
    out = work / "dist"
    build = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(src)], cwd=work)
    _registry_or_skip(build, "python -m build --wheel")
    [wheel] = list(out.glob("mdmark-*.whl"))
    venv = work / "venv"
    # No pip of its own (ensurepip: 4 s): this pip installs into it, as a user's pip would.
    created = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=work)
    assert created.returncode == 0, created.stderr
    python = venv / "bin" / "python"
    install = _run([sys.executable, "-m", "pip", "--python", str(python), "install", str(wheel)], cwd=work)
    _registry_or_skip(install, "pip install of the wheel")
    return wheel, python


def test_wheel_holds_every_package_and_data_file(installed: tuple[Path, Path]) -> None:
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    packages, data = expected_contents()
    missing_packages = sorted(p for p in packages if "/".join(p.split(".")) + "/__init__.py" not in names)
    assert missing_packages == [], "packages missing from the wheel (pyproject.toml [tool.setuptools] packages)"
    missing_data = sorted(d for d in data if d not in names)
    assert missing_data == [], "data files missing from the wheel (pyproject.toml package-data)"
    assert "mdmark/py.typed" in names
    # nothing of the source layout leaks out as a top-level package
    assert not any(n.startswith(("sphinx_ext/", "templates/", "tests/")) for n in names)


def test_installed_package_imports_and_finds_its_data(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _, python = installed
    script = (
        "import json, importlib, sys\n"
        "from importlib.resources import files\n"
        "import mdmark, mdmark.sphinx_ext\n"
        "from mdmark.cli import main\n"
        "from mdmark.pipeline import pipeline, extract\n"
        "from mdmark.config import main as config\n"
        "from mdmark.index import model\n"
        "out = {\n"
        "  'mdmark': mdmark.__file__,\n"
        "  'sphinx_ext': mdmark.sphinx_ext.__file__,\n"
        "  'templates': sorted(p.name for p in files('mdmark.templates').iterdir() if not p.name.endswith(('.py', '.pyc')) and p.is_file()),\n"
        "  'guide': sorted(p.name for p in files('mdmark.guide').iterdir() if p.name.endswith(('.md', '.yaml'))),\n"
        "  'has_setup': hasattr(mdmark.sphinx_ext, 'setup'),\n"
        "}\n"
        "print(json.dumps(out))\n"
    )
    result = _run([str(python), "-c", script], cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    venv = python.parent.parent.resolve()
    for key in ("mdmark", "sphinx_ext"):
        assert Path(report[key]).resolve().is_relative_to(venv), f"{key} imported from outside the venv"
    assert report["has_setup"]
    source_templates = sorted(p.name for p in (REPO / "templates").iterdir() if p.is_file() and p.suffix != ".py")
    assert report["templates"] == source_templates and source_templates
    assert "index.yaml" in report["guide"]
    assert sorted(p.name for p in (REPO / "mdmark" / "guide").iterdir() if p.suffix in (".md", ".yaml")) == report["guide"]


def test_console_script_help_init_and_check(installed: tuple[Path, Path], tmp_path: Path) -> None:
    _, python = installed
    script = python.parent / "mdmark"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
    helped = _run([str(script), "--help"], cwd=tmp_path, env=env, timeout=120)
    assert helped.returncode == 0, helped.stderr
    assert "使い方集" in helped.stdout
    project = tmp_path / "project"
    project.mkdir()
    init = _run([str(script), "init"], cwd=project, env=env, timeout=120)
    assert init.returncode == 0, init.stderr
    assert (project / "mdmark.config.yaml").is_file() and (project / "docs" / "welcome.md").is_file()
    checked = _run([str(script), "check"], cwd=project, env=env, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    as_json = _run([str(script), "check", "--format", "json"], cwd=project, env=env, timeout=300)
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == {"issues": []}
