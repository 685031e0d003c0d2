"""Issue 37 item 4 and issue 33's lapsed trust: trust pins every module conf.py really imported
from the project (recorded while ``mdmark trust`` ran it once), and when any of them changes every
front-end says the trust *lapsed* — what changed and the command that trusts again.

All real: ``python -m mdmark`` and ``mdmark serve`` with the MCP SDK client, a private
``XDG_CONFIG_HOME`` per test for the trust record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import private_homes, run_mdmark, write_tree
from test_mcp import assert_json, call_in, connect, start_server, stop_server

#: conf.py imports a package of its own, names an extension by an expression and imports a module
#: in setup(): none of them is visible to a static reading.
CONF = """\
import os, sys
sys.path.insert(0, os.path.abspath("."))
import _lib.tools
name = "dyn" + "ext"
extensions = ["myst_parser", name]


def setup(app):
    import _lib.late
"""

MARKING = "import os\nopen(os.path.join(os.path.dirname(os.path.abspath(__file__)), {where!r}, {name!r}), 'a').close()\n"
FILES = {
    "docs/_lib/__init__.py": "",
    "docs/_lib/tools.py": MARKING.format(where="../..", name="RAN-TOOLS"),
    "docs/_lib/late.py": MARKING.format(where="../..", name="RAN-LATE"),
    "docs/dynext.py": MARKING.format(where="..", name="RAN-DYN") + "\n\ndef setup(app):\n    return {'parallel_read_safe': True}\n",
    "docs/index.md": "# 入口\n\n本文。\n",
    "mdmark.config.yaml": 'docs:\n  include: ["docs/*.md"]\nbuild:\n  include: ["docs/*.md"]\n  out: dist/docs.html\nsphinx:\n  conf: docs/conf.py\n',
}
MARKERS = ("RAN-TOOLS", "RAN-LATE", "RAN-DYN")
PINNED = ["docs/_lib/__init__.py", "docs/_lib/late.py", "docs/_lib/tools.py", "docs/dynext.py"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = write_tree(tmp_path / "p", {**FILES, "docs/conf.py": CONF})
    (root / ".git").mkdir()  # the project root, without running git
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return private_homes(tmp_path)


def ran(root: Path) -> list[str]:
    found = [name for name in MARKERS if (root / name).exists()]
    for name in MARKERS:
        (root / name).unlink(missing_ok=True)
    return found


def lapsed(root: Path, changed: str) -> str:
    # The config has the default name: `mdmark trust` from the project finds it (no machine path).
    return (
        f"conf.py `docs/conf.py` は信頼した後に `{changed}` が変わったので信頼が外れ、conf.py と拡張 `dynext` を動かさずに書かれた設定だけを読んだため、"
        "変わったところを確かめて動かしてよければ `mdmark trust` でもう一度信頼してください。"
    )


def test_trust_records_what_conf_py_really_imported(project: Path, env: dict[str, str]) -> None:
    said = run_mdmark("trust", cwd=project, env=env)
    assert said.returncode == 0, said.stderr
    assert "モジュール 4 個（" + "・".join(f"`{p}`" for p in PINNED) + "）" in said.stdout
    assert ran(project) == list(MARKERS)  # trusting ran conf.py once
    record = json.loads((Path(env["XDG_CONFIG_HOME"]) / "mdmark" / "trusted.json").read_text(encoding="utf-8"))
    (entry,) = record["projects"]
    assert entry["imported"] == PINNED
    assert sorted(entry["digests"]) == sorted(["docs/conf.py", *PINNED])

    checked = run_mdmark("check", cwd=project, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert ran(project) == list(MARKERS)

    # Each module conf.py imported, changed after trust: nothing runs and the trust is said lapsed.
    for rel in ("docs/_lib/tools.py", "docs/dynext.py", "docs/_lib/late.py"):
        path = project / rel
        path.write_text(path.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
        again = run_mdmark("check", cwd=project, env=env)
        assert again.stdout == f"mdmark.config.yaml:sphinx.conf: config_value: {lapsed(project, rel)}\n", again.stdout
        assert ran(project) == []
        assert run_mdmark("trust", cwd=project, env=env).returncode == 0
        assert ran(project) == list(MARKERS)

    # A pinned module that vanishes lapses the trust too.
    (project / "docs" / "_lib" / "late.py").unlink()
    gone = run_mdmark("check", cwd=project, env=env)
    assert lapsed(project, "docs/_lib/late.py") in gone.stdout and ran(project) == []


def test_never_trusted_is_said_as_not_yet(project: Path, env: dict[str, str]) -> None:
    checked = run_mdmark("check", cwd=project, env=env)
    assert "をまだ信頼していない" in checked.stdout and "信頼が外れ" not in checked.stdout
    assert ran(project) == []


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_every_front_end_says_the_trust_lapsed(project: Path, env: dict[str, str], tmp_path: Path) -> None:
    assert run_mdmark("trust", cwd=project, env=env).returncode == 0
    ran(project)
    (project / "docs" / "conf.py").write_text(CONF + "# changed\n", encoding="utf-8")
    sentence = lapsed(project, "docs/conf.py")
    # The CLI: check as a drift, build and export as the same warning (nothing dropped silently).
    assert f"mdmark.config.yaml:sphinx.conf: config_value: {sentence}" in run_mdmark("check", cwd=project, env=env).stdout
    for command in (["build"], ["export", "docs/index.md"]):
        done = run_mdmark(*command, cwd=project, env=env)
        assert done.returncode == 0, done.stderr
        assert f"mdmark.config.yaml: {sentence}" in done.stderr.splitlines(), done.stderr
    # The MCP tools, through a real server.
    served = start_server(tmp_path / "serve", env=env)
    try:
        async with connect(served) as client:
            checked = assert_json(await call_in(client, project, "check"))
            assert [i["message"] for i in checked["issues"]] == [sentence]
            for tool, arguments in (("build_site", {}), ("export_html", {"file": "docs/index.md"})):
                answer = assert_json(await call_in(client, project, tool, **arguments))
                assert f"mdmark.config.yaml: {sentence}" in answer["warnings"], answer
    finally:
        assert stop_server(served) == 0
    assert ran(project) == []


def test_a_conf_py_that_fails_still_pins_what_it_imported(project: Path, env: dict[str, str]) -> None:
    # conf.py raises after its own import: trusting records it (check then says conf.py's failure).
    (project / "docs" / "conf.py").write_text("import os, sys\nsys.path.insert(0, os.path.abspath('.'))\nimport _lib.tools\nraise RuntimeError('broken')\n", encoding="utf-8")
    assert run_mdmark("trust", cwd=project, env=env).returncode == 0
    record = json.loads((Path(env["XDG_CONFIG_HOME"]) / "mdmark" / "trusted.json").read_text(encoding="utf-8"))
    assert record["projects"][0]["imported"] == ["docs/_lib/__init__.py", "docs/_lib/tools.py"]
    ran(project)
    tools = project / "docs" / "_lib" / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    checked = run_mdmark("check", cwd=project, env=env)
    assert "`docs/_lib/tools.py` が変わったので信頼が外れ" in checked.stdout and ran(project) == []
