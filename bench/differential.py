"""Compare ``mdmark check`` with ``sphinx-build`` on a Sphinx + MyST project, before and after ``mdmark trust``.

    .venv/bin/python bench/differential.py PROJECT [PROJECT…] [--src docs/] [--keep-config]

PROJECT is a folder holding a Sphinx project (conf.py in the folder, ``docs/``, ``doc/``,
``docs/source/`` or ``doc/source/``). Without an ``mdmark.config.yaml`` there, one is made with
``mdmark init`` (the adoption a new user gets; ``--keep-config`` keeps an existing one). For each
project, in this order:

1. ``sphinx-build -E -q -b html`` into a temporary folder: every warning on a Markdown document
   (file, line, type);
2. ``mdmark check --format json`` before trust (under a private ``XDG_CONFIG_HOME``, so the user's
   trust record is neither read nor written);
3. ``mdmark trust``, then ``mdmark check --format json`` again.

Printed per project: Sphinx's warnings on Markdown documents, and for each check how many of them
it missed (no drift at that file and line; a toctree warning counts at any line of its
directive, as mdmark reports the entry's own line), the drifts where Sphinx says nothing (false
drifts, besides the one trust notice before trust), and the trust notice. ``--list`` prints each
missed warning and false drift. Warning types that need the network (intersphinx inventories) are
not compared: offline, both sides fail them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PYTHON = sys.executable
NETWORK_TYPES = {"intersphinx.external", "myst.iref_missing"}
_WARNING = re.compile(
    r"^(?P<file>[^\s:][^:]*?)(?::(?P<line>\d+))?: (?:WARNING|ERROR|CRITICAL|SEVERE): (?P<msg>.*?)(?: \[(?P<type>[\w.-]+)\])*$"
)

Place = tuple[str, int | None]


def _mdmark(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "mdmark", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _conf(project: Path) -> Path:
    from mdmark.queries.adopt import find_conf

    found = find_conf(project)
    if found is None:
        sys.exit(f"{project}: no conf.py")
    return found


def sphinx_warnings(project: Path, src: Path, out: Path) -> list[tuple[str, int | None, str, str]]:
    done = subprocess.run(
        [PYTHON, "-m", "sphinx", "--no-color", "-E", "-q", "-b", "html", str(src), str(out)],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"{project}: sphinx-build failed\n{done.stderr[-2000:]}")
    found = []
    for raw in done.stderr.splitlines():
        match = _WARNING.match(raw)
        if not match or not match.group("file").endswith(".md"):
            continue
        file = Path(match.group("file"))
        rel = (file if file.is_absolute() else project / file).resolve().relative_to(project.resolve()).as_posix()
        line = int(match.group("line")) if match.group("line") else None
        types = re.findall(r"\[([\w.-]+)\]", raw)
        found.append((rel, line, types[0] if types else "", match.group("msg")))
    return found


def _toctree_span(project: Path, file: str, line: int) -> list[Place]:
    lines = (project / file).read_text(encoding="utf-8").splitlines()
    fence = lines[line - 1].strip()[:3] if line <= len(lines) else ""
    end = line
    while end < len(lines) and not lines[end].strip().startswith(fence):
        end += 1
    return [(file, n) for n in range(line, end + 2)]


def compare(project: Path, warnings: list[tuple[str, int | None, str, str]], issues: list[dict[str, str]]) -> dict[str, list]:
    at: set[Place] = {(i["file"], int(i["where"]) if i["where"].isdecimal() else None) for i in issues}
    expected: set[Place] = {(f, n) for f, n, t, _m in warnings if t in NETWORK_TYPES}
    missed = []
    for file, line, type_, msg in warnings:
        if type_ in NETWORK_TYPES:
            continue
        places: list[Place] = [(file, line)]
        if type_.startswith("toc.") and line is not None and type_ != "toc.no_title":
            places = _toctree_span(project, file, line)
        expected.update(places)
        if not any(p in at for p in places):
            missed.append((file, line, type_, msg))
    notices = [i for i in issues if i["kind"] == "config_value" and "信頼" in i["message"]]
    false = [
        (i["file"], i["where"], i["kind"], i["message"])
        for i in issues
        if i not in notices and (i["file"], int(i["where"]) if i["where"].isdecimal() else None) not in expected
    ]
    return {"missed": missed, "false": false, "notices": notices}


def run(project: Path, keep_config: bool, listing: bool) -> None:
    project = project.resolve()
    conf = _conf(project)
    with tempfile.TemporaryDirectory(prefix="mdmark-diff-") as scratch:
        home = Path(scratch)
        env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache")}
        config = project / "mdmark.config.yaml"
        if not (keep_config and config.exists()):
            for name in ("mdmark.config.yaml", "index.yaml"):
                (project / name).unlink(missing_ok=True)
            done = _mdmark("init", cwd=project, env=env)
            if done.returncode != 0:
                sys.exit(f"{project}: mdmark init failed: {done.stdout}{done.stderr}")
        warnings = sphinx_warnings(project, conf.parent, home / "sphinx-out")
        counted = [w for w in warnings if w[2] not in NETWORK_TYPES]
        print(f"{project.name}: sphinx-build warnings on Markdown documents: {len(counted)} (+{len(warnings) - len(counted)} network)")
        for label, trust in (("before trust", False), ("after trust", True)):
            if trust:
                done = _mdmark("trust", "--config", str(config), cwd=project, env=env)
                if done.returncode != 0:
                    sys.exit(f"{project}: mdmark trust failed: {done.stderr}")
            done = _mdmark("check", "--format", "json", cwd=project, env=env)
            if done.returncode not in (0, 1):
                sys.exit(f"{project}: mdmark check failed: {done.stderr[-2000:]}")
            issues = json.loads(done.stdout)["issues"]
            found = compare(project, warnings, issues)
            print(
                f"  {label}: drifts {len(issues)}, missed {len(found['missed'])}, false {len(found['false'])}, "
                f"trust notices {len(found['notices'])}"
            )
            for notice in found["notices"]:
                print(f"    notice: {notice['message']}")
            if listing:
                for item in found["missed"]:
                    print("    missed:", *item)
                for item in found["false"]:
                    print("    false:", *item)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("projects", type=Path, nargs="+")
    parser.add_argument("--keep-config", action="store_true", help="use the project's mdmark.config.yaml instead of mdmark init's")
    parser.add_argument("--list", action="store_true", help="print every missed warning and false drift")
    args = parser.parse_args()
    for project in args.projects:
        run(project, args.keep_config, args.list)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
