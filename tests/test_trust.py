"""Issue 28, trust and roots: a repository's conf.py runs only once the user trusts it
(``mdmark trust``); until then it is read, never run. Roots and outputs follow the document, git
runs without the repository's hooks, and MCP calls stay inside ``project_dir``.

Every command here runs for real (``python -m mdmark``, ``mdmark serve`` with the MCP SDK client,
real git); trust is recorded under the session's ``XDG_CONFIG_HOME`` (conftest.TRUST_HOME).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import TRUST_HOME, run_mdmark, trust_project
from test_mcp import Served, assert_error, assert_json, call_in, connect, start_server, stop_server

from mdmark.core.errors import MdmarkError
from mdmark.host.static_conf import MAX_VALUE_SIZE, read_conf

CONF = """\
import os, sys
sys.path.insert(0, os.path.abspath("_ext"))
here = os.path.dirname(os.path.abspath(__file__))
open(os.path.join(here, "..", "PWNED"), "w").close()
extensions = ["myst_parser", "localext", "sphinx.ext.todo", "sphinx.ext.ifconfig"]
myst_enable_extensions = ["colon_fence"]
exclude_patterns = ["drafts/**"]
suppress_warnings = ["myst.header"]
"""

LOCAL_EXT = """\
import os
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "PWNED-EXT"), "w").close()


def setup(app):
    return {"parallel_read_safe": True}
"""

CONFIG = """\
docs:
  include: ["docs/*.md"]
build:
  include: ["docs/*.md"]
  out: dist/docs.html
markdown:
  extensions: []
sphinx:
  conf: docs/conf.py
"""

MARKERS = ("PWNED", "PWNED-EXT")


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


def git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def hostile(tmp_path: Path) -> Path:
    """A git repository whose config names a conf.py that leaves markers when it runs."""
    root = tmp_path / "p"
    (root / "docs" / "_ext").mkdir(parents=True)
    (root / "docs" / "drafts").mkdir()
    (root / "docs" / "conf.py").write_text(CONF, encoding="utf-8")
    (root / "docs" / "_ext" / "localext.py").write_text(LOCAL_EXT, encoding="utf-8")
    (root / "docs" / "index.md").write_text(
        "# 入口\n\n:::{note}\n注意の中身\n:::\n\n```{todo}\nあとで\n```\n\n### 深い見出し\n", encoding="utf-8"
    )
    (root / "docs" / "drafts" / "d.md").write_text("# 下書き\n", encoding="utf-8")
    (root / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    git_init(root)
    return root


def markers(root: Path) -> list[str]:
    return [name for name in MARKERS if (root / name).exists()]


def clear_markers(root: Path) -> None:
    for name in MARKERS:
        (root / name).unlink(missing_ok=True)


def trust_drifts(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "をまだ信頼していない" in line]


def lapsed_drifts(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "信頼した後に" in line and "信頼が外れ" in line]


def lapsed_sentence(config: Path, *changed: str, held: str = "`localext`・`sphinx.ext.ifconfig`") -> str:
    """The one sentence every front-end says when the trust in the hostile project lapsed (the
    config has the default name: plain `mdmark trust` from the project, no machine path)."""
    return (
        f"conf.py `docs/conf.py` は信頼した後に {'・'.join(f'`{c}`' for c in changed)} が変わったので信頼が外れ、"
        f"conf.py と拡張 {held} を動かさずに書かれた設定だけを読んだため、変わったところを確かめて動かしてよければ "
        "`mdmark trust` でもう一度信頼してください。"
    )


# -- 1. an untrusted conf.py is read, never run --------------------------------------------------


def test_untrusted_conf_never_runs_and_its_literal_settings_apply(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    check = run_mdmark("check", cwd=root)
    assert markers(root) == [], check.stdout + check.stderr
    drifts = trust_drifts(check.stdout)
    # the default config: plain `mdmark trust` from the project, no machine path
    assert drifts == [
        "mdmark.config.yaml:sphinx.conf: config_value: conf.py `docs/conf.py` をまだ信頼していないので、"
        "conf.py と拡張 `localext`・`sphinx.ext.ifconfig` を動かさずに書かれた設定だけを読んだため、"
        "中身を確かめて動かしてよければ `mdmark trust` で信頼してください。"
    ]
    # suppress_warnings (myst.header) was read: the level-3 heading under a level-1 is no drift.
    assert check.stdout.splitlines() == drifts, check.stdout

    exported = run_mdmark("export", "docs/index.md", cwd=root)
    assert exported.returncode == 0, exported.stderr
    page = (root / "docs" / "index.html").read_text(encoding="utf-8")
    # myst_enable_extensions (colon_fence) from conf.py, although the config's markdown has none.
    assert "admonition note" in page and "注意の中身" in page
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 0, built.stderr
    assert markers(root) == []

    # exclude_patterns was read (in-process: the library reads the same way).
    from mdmark.project.main import Project

    info = Project.open(root).conf_info()
    assert info.static and "drafts/**" in info.exclude_patterns
    assert info.held == ("localext", "sphinx.ext.ifconfig")
    assert markers(root) == []


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("trust-server")
    serving = start_server(folder, env={"XDG_CACHE_HOME": str(folder / "cache")})
    yield serving
    assert stop_server(serving) == 0, serving.stderr()
    assert "Traceback" not in serving.stderr(), serving.stderr()


@pytest.mark.anyio
async def test_mcp_tools_never_run_an_untrusted_conf(served: Served, tmp_path: Path) -> None:
    root = hostile(tmp_path)
    async with connect(served) as client:
        checked = assert_json(await call_in(client, root, "check"))
        messages = [i["message"] for i in checked["issues"] if "をまだ信頼していない" in i["message"]]
        assert len(messages) == 1
        assert_json(await call_in(client, root, "export_html", file="docs/index.md"))
        assert_json(await call_in(client, root, "build_site"))
        (await call_in(client, root, "outline", target="docs/index.md"))
        (await call_in(client, root, "read_doc", target="docs/index.md"))
    assert markers(root) == []


# -- 2. trusting runs it; a change untrusts it again -------------------------------------------


def test_trust_runs_it_and_a_change_untrusts_it_again(tmp_path: Path) -> None:
    root = hostile(tmp_path)
    config = root / "mdmark.config.yaml"
    said = trust_project(config).stdout
    assert "`docs/conf.py` と、それが読み込むこのプロジェクトのモジュール 1 個（`docs/_ext/localext.py`）" in said
    check = run_mdmark("check", cwd=root)
    assert markers(root) == ["PWNED", "PWNED-EXT"]
    assert trust_drifts(check.stdout) == []
    clear_markers(root)

    # The local extension changes: untrusted again, nothing runs, and the drift says the trust lapsed.
    ext = root / "docs" / "_ext" / "localext.py"
    ext.write_text(LOCAL_EXT + "# changed\n", encoding="utf-8")
    again = run_mdmark("check", cwd=root)
    assert lapsed_drifts(again.stdout) == ["mdmark.config.yaml:sphinx.conf: config_value: " + lapsed_sentence(config, "docs/_ext/localext.py")]
    assert trust_drifts(again.stdout) == [] and markers(root) == []

    trust_project(config)
    run_mdmark("check", cwd=root)
    assert markers(root) == ["PWNED", "PWNED-EXT"]
    clear_markers(root)

    # conf.py changes (one comment): untrusted again.
    conf = root / "docs" / "conf.py"
    conf.write_text(CONF + "# changed\n", encoding="utf-8")
    third = run_mdmark("check", cwd=root)
    assert lapsed_drifts(third.stdout) == ["mdmark.config.yaml:sphinx.conf: config_value: " + lapsed_sentence(config, "docs/conf.py")]
    exported = run_mdmark("export", "docs/index.md", cwd=root)
    assert exported.returncode == 0 and markers(root) == []
    # Build and export say the same sentence: a page never loses what conf.py would render silently.
    assert "mdmark.config.yaml: " + lapsed_sentence(config, "docs/conf.py") in exported.stderr.splitlines()
    built = run_mdmark("build", cwd=root)
    assert "mdmark.config.yaml: " + lapsed_sentence(config, "docs/conf.py") in built.stderr.splitlines()
    assert markers(root) == []


def test_list_and_revoke(tmp_path: Path) -> None:
    home = tmp_path / "config-home"
    env = {"XDG_CONFIG_HOME": str(home)}
    root = hostile(tmp_path)
    config = root / "mdmark.config.yaml"
    assert run_mdmark("trust", "--list", cwd=root, env=env).stdout == "信頼しているプロジェクトはありません。\n"
    assert run_mdmark("trust", cwd=root, env=env).returncode == 0
    folder = home / "mdmark"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "trusted.json").stat().st_mode) == 0o600
    listed = run_mdmark("trust", "--list", cwd=tmp_path, env=env).stdout
    assert listed.startswith(f"信頼している: {config}（conf.py: {root / 'docs' / 'conf.py'}、")
    (root / "docs" / "conf.py").write_text(CONF + "\n", encoding="utf-8")
    assert run_mdmark("trust", "--list", cwd=tmp_path, env=env).stdout.startswith("中身が変わったので信頼が外れている: ")
    revoked = run_mdmark("trust", "--revoke", "--config", str(config), cwd=tmp_path, env=env)
    assert revoked.returncode == 0 and "信頼を取り消しました" in revoked.stdout
    assert run_mdmark("trust", "--list", cwd=root, env=env).stdout == "信頼しているプロジェクトはありません。\n"
    twice = run_mdmark("trust", "--revoke", cwd=root, env=env)
    assert twice.returncode == 1
    assert twice.stderr.strip() == f"`{config}` のプロジェクトは信頼の記録に無いので、`mdmark trust --list` で記録を確かめてください。"


def test_a_record_others_can_write_is_not_believed(tmp_path: Path) -> None:
    home = tmp_path / "config-home"
    env = {"XDG_CONFIG_HOME": str(home)}
    root = hostile(tmp_path)
    assert run_mdmark("trust", cwd=root, env=env).returncode == 0
    clear_markers(root)  # trusting ran conf.py once, to record what it imports
    os.chmod(home / "mdmark" / "trusted.json", 0o666)
    check = run_mdmark("check", cwd=root, env=env)
    assert len(trust_drifts(check.stdout)) == 1 and markers(root) == []


def test_trust_without_a_conf_py_is_one_sentence(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "mdmark.config.yaml").write_text('docs:\n  include: ["*.md"]\n', encoding="utf-8")
    result = run_mdmark("trust", cwd=root)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"設定 `{root / 'mdmark.config.yaml'}` は sphinx.conf で conf.py を指していないので信頼するものが無く、"
        "conf.py を使うなら sphinx.conf に書いてから `mdmark trust` を実行してください。"
    )
    assert not (TRUST_HOME / "mdmark" / "nothing").exists()


def test_the_static_reading_is_bounded_and_follows_simple_forms(tmp_path: Path) -> None:
    conf = tmp_path / "conf.py"
    conf.write_text(
        "import os, sys\n"
        "from pathlib import Path\n"
        "sys.path.insert(0, os.path.abspath('..'))\n"
        "sys.path.append(str(Path(__file__).parent / '_ext'))\n"
        "base = ['myst_parser']\n"
        "extensions = base + ['sphinx_design']\n"
        "extensions += ['sphinx.ext.todo']\n"
        "extensions.append('x')\n"
        "numfig_format = dict(figure='Fig %s')\n"
        "numfig_format['table'] = 'T %s'\n"
        "bomb = ['a' * 1]\n" + "bomb = bomb + bomb\n" * 40 + "computed = os.environ['HOME']\n"
        "for name in ['y']:\n    extensions.append(name)\n",
        encoding="utf-8",
    )
    found = read_conf(conf)
    assert found.values["numfig_format"] == {"figure": "Fig %s", "table": "T %s"}
    # The loop is not followed: what it adds is left out, the list keeps what came before it.
    assert found.values["extensions"] == ["myst_parser", "sphinx_design", "sphinx.ext.todo", "x"]
    assert "bomb" not in found.values and "computed" not in found.values
    assert found.sys_path == (tmp_path.parent, tmp_path / "_ext")
    assert MAX_VALUE_SIZE < 2**40
    (tmp_path / "bad.py").write_text("x = (" * 500 + ")" * 500, encoding="utf-8")
    assert read_conf(tmp_path / "bad.py").values == {}


# -- 3. MCP calls stay inside project_dir; writes stay inside the project ---------------------------


@pytest.mark.anyio
async def test_mcp_config_outside_project_dir_is_refused(served: Served, tmp_path: Path) -> None:
    inner = tmp_path / "a"
    other = hostile(tmp_path / "b")
    (inner).mkdir()
    outside = "../b/p/mdmark.config.yaml"
    async with connect(served) as client:
        for tool, arguments in (("check", {}), ("build_site", {}), ("update_index", {"kind": "doc", "id": "x", "item": {"path": "docs/index.md", "title": "x"}})):
            result = await call_in(client, inner, tool, config=outside, **arguments)
            assert_error(result, f"config の `{outside}` は project_dir の外にある")
        result = await call_in(client, inner, "check", config=str(other / "mdmark.config.yaml"))
        assert_error(result, "project_dir の外")
    assert markers(other) == [] and not (other / "dist").exists()


def test_index_paths_must_be_relative_and_inside(tmp_path: Path) -> None:
    from mdmark.queries.edit_index import update_index

    root = tmp_path / "p"
    assert run_mdmark("init", str(root), cwd=tmp_path).returncode == 0
    git_init(root)
    index = root / "index.yaml"
    before = index.read_bytes()
    for bad in ("/etc/passwd", "../../etc/passwd", "docs/../../x.md"):
        with pytest.raises(MdmarkError) as caught:
            update_index(root, "doc", "x", {"path": bad, "title": "x"})
        assert caught.value.message == (
            f"item の path `{bad}` はプロジェクトの外を指す（絶対パスか `..` で外へ出る）ので、"
            "設定のフォルダからの相対パスでプロジェクトの中のファイルを指定してください。"
        )
        cli = run_mdmark("index", "set", "doc", "x", "--item", json.dumps({"path": bad, "title": "x"}), cwd=root)
        assert cli.returncode == 1 and cli.stderr.strip() == caught.value.message
    assert index.read_bytes() == before
    assert update_index(root, "doc", "x", {"path": "docs/welcome.md", "title": "x"})["action"] == "added"


def test_build_out_and_index_outside_the_project_are_config_values(tmp_path: Path) -> None:
    root = tmp_path / "p"
    assert run_mdmark("init", str(root), cwd=tmp_path).returncode == 0
    git_init(root)
    config = root / "mdmark.config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("out: dist/docs.html", "out: ../victim.html"), encoding="utf-8")
    check = run_mdmark("check", cwd=root)
    sentence = "build.out の出力先 `../victim.html` はプロジェクトのルートの外を指しているので、プロジェクトの中のパスにしてください。"
    assert any(line.endswith(f"config_value: {sentence}") and ":build.out:" in line for line in check.stdout.splitlines()), check.stdout
    built = run_mdmark("build", cwd=root)
    assert built.returncode == 1 and sentence in built.stderr
    assert not (tmp_path / "victim.html").exists()


# -- 4. roots follow the document; only real images are embedded -----------------------------------


def test_export_without_config_is_rooted_at_the_document(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEY\n", encoding="utf-8")
    folder = home / "Downloads" / "x"
    folder.mkdir(parents=True)
    (folder / "notes.png").write_text("not an image at all\n", encoding="utf-8")
    (folder / "dot.png").write_bytes(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"))
    (folder / "readme.md").write_text(
        "# 読んで\n\n![鍵](../../.ssh/id_rsa)\n\n![偽物](notes.png)\n\n![点](dot.png)\n", encoding="utf-8"
    )
    result = run_mdmark("export", "Downloads/x/readme.md", cwd=home)
    assert result.returncode == 0, result.stderr
    page = (folder / "readme.html").read_text(encoding="utf-8")
    assert "SECRETKEY" not in page and "U0VDUkVUS0VZ" not in page and "LS0tLS1CRUdJTi" not in page
    assert "data:image/png;base64,iVBORw0KGgo" in page
    assert result.stderr.splitlines() == [
        "Downloads/x/readme.md:3: 画像 `../../.ssh/id_rsa` はプロジェクトのルートの外のファイルを指すので埋め込まず、プロジェクトの中に置いたファイルを指してください。",
        "Downloads/x/readme.md:5: 画像 `notes.png` は PNG・JPEG・GIF・WebP・SVG の画像ではないので埋め込まず、画像のファイルを指してください。",
    ]


def test_cache_root_is_private(tmp_path: Path, user_cache: Path) -> None:
    root = tmp_path / "p"
    assert run_mdmark("init", str(root), cwd=tmp_path).returncode == 0
    assert run_mdmark("check", cwd=root).returncode == 0
    assert stat.S_IMODE((user_cache / "mdmark").stat().st_mode) == 0o700


# -- 5. git never runs the repository's programs ---------------------------------------------------


def test_base_with_a_planted_git_config_runs_nothing(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git_init(root)
    (root / "mdmark.config.yaml").write_text('docs:\n  include: ["*.md"]\n', encoding="utf-8")
    (root / "a.md").write_text("# A\n", encoding="utf-8")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n", encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.email=a@example.com", "-c", "user.name=a"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    hooks = root / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "post-checkout", "pre-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {tmp_path}/PWNED-hook\n", encoding="utf-8")
        (hooks / hook).chmod(0o755)
    settings = {
        "core.hooksPath": "hooks",
        "core.fsmonitor": f"touch {tmp_path}/PWNED-fsmonitor; echo",
        "filter.evil.clean": f"touch {tmp_path}/PWNED-filter; cat",
        "filter.evil.process": f"touch {tmp_path}/PWNED-process",
        "diff.external": f"touch {tmp_path}/PWNED-diff",
        "diff.evil.textconv": f"touch {tmp_path}/PWNED-textconv; cat",
        "core.pager": f"touch {tmp_path}/PWNED-pager; cat",
    }
    for key, value in settings.items():
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    os.utime(root / "a.md", (1, 1))  # a changed stat: git must re-read the file to compare it
    (root / "a.md").write_text("# A\n\n本文。\n", encoding="utf-8")
    result = run_mdmark("check", "--base", "HEAD", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    assert sorted(p.name for p in tmp_path.glob("PWNED*")) == []
    # The same repository does run them for plain git: the planted settings are live.
    subprocess.run(["git", "-C", str(root), "status"], capture_output=True, check=False)
    assert sorted(p.name for p in tmp_path.glob("PWNED*")) != []


def test_fifos_in_the_project_never_block_trust(tmp_path: Path) -> None:
    """A FIFO named like a document or a module: trusting and checking read around it."""
    root = hostile(tmp_path)
    conf = root / "docs" / "conf.py"
    conf.write_text(CONF.replace('"sphinx.ext.ifconfig"', '"sphinx.ext.autodoc"'), encoding="utf-8")
    os.mkfifo(root / "docs" / "pipe.md")
    os.mkfifo(root / "docs" / "_ext" / "pipe.py")
    home = tmp_path / "config-home"
    env = {"XDG_CONFIG_HOME": str(home)}
    assert run_mdmark("trust", cwd=root, env=env, timeout=60).returncode == 0
    assert run_mdmark("trust", "--list", cwd=root, env=env, timeout=60).stdout.startswith("信頼している: ")
    clear_markers(root)  # trusting ran conf.py once, to record what it imports
    conf.unlink()
    os.mkfifo(conf)
    checked = run_mdmark("check", cwd=root, env=env, timeout=60)
    assert "Traceback" not in checked.stderr and markers(root) == []


def test_the_static_reading_keeps_what_conditions_only_add_to(tmp_path: Path) -> None:
    """A conf.py that adds an optional extension under a condition, imports one in a ``try`` or
    computes one substitution still gives its base settings (the sphinx-design corpus's conf.py
    lost its whole extension list to one ``extensions.append`` under an ``if``)."""
    from mdmark.host.static_plan import static_plan

    conf = tmp_path / "conf.py"
    conf.write_text(
        "import os\n"
        'extensions = ["myst_parser", "sphinx_design"]\n'
        'html_theme = os.environ.get("THEME", "furo")\n'
        'theme = "alabaster"\n'
        'if html_theme == "sphinx_immaterial":\n'
        '    extensions.append("sphinx_immaterial")\n'
        'if theme == "alabaster":\n'
        '    exclude_patterns = ["drafts"]\n'
        "try:\n"
        "    import sphinx_copybutton  # noqa\n"
        '    extensions.append("sphinx_copybutton")\n'
        "except ImportError:\n"
        "    pass\n"
        "for name in ['a']:\n"
        "    extensions.append(name)\n"
        "def table():\n"
        "    return '|a|'\n"
        'myst_substitutions = {"table": table(), "name": "Lorem"}\n',
        encoding="utf-8",
    )
    plan = static_plan(conf, tmp_path)
    assert plan.extensions[:2] == ("myst_parser", "sphinx_design")
    assert "sphinx_immaterial" not in plan.extensions and "a" not in plan.extensions
    assert "sphinx_copybutton" in plan.extensions + plan.held + plan.missing
    assert plan.values["exclude_patterns"] == ["drafts"]
    assert plan.values["myst_substitutions"] == {"table": "", "name": "Lorem"}
