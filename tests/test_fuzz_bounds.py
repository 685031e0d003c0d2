"""Property-based fuzz of whole projects through check and build (issue 37): documents made of the
pieces the hostile corpus attacks with — toctrees listing each other (cycles, diamonds), fences
nested past the bound, ``{eval-rst}`` footnotes, substitutions that work hard or call string
methods, front matter with control characters — next to ordinary MyST.

Every example must: answer (no exception but a Japanese :class:`MdmarkError`), say every drift in
Japanese (a library's English only as a quotation 「…」 or a code span), and give a page whose
size grows with the documents, not with the paths through their toctrees. The example count is
bounded so the module costs well under a minute.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mdmark.builders.build import build_site
from mdmark.check.collect import check
from mdmark.core.errors import MdmarkError

CONFIG = """\
docs:
  include: ["docs/**/*.md"]
build:
  title: 試し
  include: ["docs/**/*.md"]
  out: dist/site.html
markdown:
  extensions: [substitution, colon_fence, deflist, dollarmath]
  substitutions:
    name: mdmark
"""

_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: Three English words in a row outside code spans and quotations: a message left untranslated.
_WORDS = re.compile(r"[A-Za-z]{2,}(?:[ ,;:]+[A-Za-z]{2,}){2,}")

NAMES = [f"d{i}" for i in range(6)]

_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=20)
_substitution = st.sampled_from(
    [
        "name",
        "'{} です'.format(name)",
        "name.replace('md', 'MD')",
        "range(99999) | groupby('real') | list | length",
        "range(50000) | map('string') | join(',') | length",
        "name.__class__",
        "nosuch",
    ]
)


@st.composite
def nested_fences(draw: st.DrawFn) -> str:
    depth = draw(st.integers(1, 60))
    colons = draw(st.booleans())
    if colons:
        return ":::{note}\n" * depth + "本文\n"
    return "".join("`" * (3 + depth - i) + "{note}\n" for i in range(depth)) + "本文\n"


@st.composite
def toctree(draw: st.DrawFn) -> str:
    listed = draw(st.lists(st.sampled_from([*NAMES, "index", "nosuch"]), max_size=6))
    return "```{toctree}\n" + "".join(f"{n}\n" for n in listed) + "```\n"


@st.composite
def footnotes(draw: st.DrawFn) -> str:
    refs, notes = draw(st.integers(1, 3)), draw(st.integers(0, 2))
    return "```{eval-rst}\n" + " ".join(["[#]_"] * refs) + "\n\n" + ".. [#] x\n" * notes + "```\n"


#: The pieces a document is made of, each a strategy of Markdown text.
PIECES = st.one_of(
    toctree(),
    nested_fences(),
    footnotes(),
    st.builds(lambda expression, text: f"{{{{ {expression} }}}} {text}\n", _substitution, _text),
    st.builds(lambda text: f"## {text or '節'}\n", _text),
    st.builds(lambda text: text + "\n", _text),
)


@st.composite
def document(draw: st.DrawFn, own: str) -> str:
    parts = [f"# {own} {draw(_text)}\n", *draw(st.lists(PIECES, max_size=4))]
    body = "\n".join(parts)
    if draw(st.integers(0, 9)) == 0:
        body = "---\ntitle: \x9c\n---\n" + body
    return body


@st.composite
def projects(draw: st.DrawFn) -> dict[str, str]:
    count = draw(st.integers(1, len(NAMES)))
    files = {f"docs/{name}.md": draw(document(name)) for name in NAMES[:count]}
    files["docs/index.md"] = "# 目次\n\n```{toctree}\n" + "".join(f"{n}\n" for n in NAMES[:count]) + "```\n"
    return files


def _english(sentence: str) -> str | None:
    body = re.sub(r"`[^`]*`", "", sentence)
    body = re.sub(r"「[^」]*」", "", body)
    found = _WORDS.search(body)
    return found.group(0) if found else None


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "mdmark.config.yaml").write_text(CONFIG, encoding="utf-8")
    (folder / "docs").mkdir()
    return folder


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(files=projects())
def test_any_project_is_checked_and_built_within_bounds(root: Path, files: dict[str, str]) -> None:
    for old in (root / "docs").glob("*.md"):
        old.unlink()
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    for issue in check(root)["issues"]:
        message = issue["message"]
        assert _JAPANESE.search(message), issue
        assert _english(message) is None, issue
    try:
        built = build_site(root)
    except MdmarkError as refused:
        assert _JAPANESE.search(refused.message), refused.message
        return
    for warning in built["warnings"]:
        assert _english(warning) is None, warning
    # Each document once in the page, whatever its toctrees: a few kilobytes per document, not
    # the megabytes its paths would unroll to.
    page = Path(built["out"]).read_text(encoding="utf-8")
    assert len(page.encode()) < 600_000 + 40_000 * len(files), len(page)
