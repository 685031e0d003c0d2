"""The attack corpus (``tests/hostile/``, see :mod:`test_hostile`) through ``mdmark preview``.

For each attack, one preview of the staged copy: the cold build of its page (the config's
``build`` page, or the first document's export), served twice (the warm refresh after the cold
build), stopped by Ctrl+C with exit 0. As :mod:`test_hostile_frontends` asserts of the other
front-ends: no traceback and Japanese sentences in the terminal and in the page's drift panel, no
secret in the page, no marker file, no byte changed in or outside the project.
"""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest
from test_hostile import ATTACKS, LIMITS_ENV, Attack, assert_answer, config, documents, snapshot
from test_hostile_frontends import assert_untouched, staged
from test_preview import get, start_preview, stop


@pytest.mark.parametrize("name", ATTACKS)
def test_preview(name: str, tmp_path: Path) -> None:
    attack = Attack.load(name)
    scene = staged(attack, tmp_path)
    before = snapshot(scene.root, ())
    docs = documents(scene.repo)
    page = [] if "build" in config(scene.repo) or not docs else [docs[0].relative_to(scene.repo).as_posix()]
    env = {**LIMITS_ENV, "XDG_CACHE_HOME": scene.env["XDG_CACHE_HOME"], "NO_COLOR": "1", "PYTHONWARNINGS": "ignore"}
    running = start_preview(scene.repo, *page, env=env)
    try:
        for _ in range(2):  # the cold build's page, then again after the warm refresh
            status, _headers, body = get(running.port, "/")
            assert status == 200, (status, body[:500])
            page = body.decode("utf-8", errors="replace")
            assert not scene.leaks(page), f"{name}: the secret reached the preview's page"
            # The page carries Pygments' stylesheet (``Generic.Traceback``): the panel is what mdmark says.
            panel = re.search(r'<aside id="mdmark-preview".*?</aside>', page, re.S)
            assert panel is not None, page[-2000:]
            said = htmllib.unescape(re.sub(r"<[^>]+>", "", panel.group(0)))
            assert_answer(scene, "preview panel", said, refusal=True)
    finally:
        code, _took = stop(running)
    assert code == 0, running.stderr()
    assert_answer(scene, "preview (stderr)", running.stderr(), refusal=True)
    assert_untouched(attack, scene, before, (str(running.errfile.relative_to(scene.root)),))
