"""The page around the fragments: ``templates/page.html``, the inlined stylesheets and scripts.

A reader changes the look in ``templates/`` (``page.html``, ``mdmark.css``, ``page.js``), not in
Python. Every asset is inline, and the Content-Security-Policy forbids the browser to load
anything else; the only scripts that run are the inline ones whose SHA-256 the policy names
(computed here from their text, so an edited script keeps running and an injected one does not).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import importlib.resources
import json
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark import __version__
from mdmark.core.errors import MdmarkError
from mdmark.util import door
from mdmark.util.files import display
from mdmark.util.sentences import output_not_file, unreadable

if TYPE_CHECKING:
    from jinja2 import Template

    from mdmark.config.main import Config

#: Nothing but inline styles and data: images may load; no frame, no form target, and no script
#: but the page's own (see :func:`csp`).
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; media-src data:; "
    "base-uri 'none'; form-action 'none'"
)


_SCRIPT_END = re.compile(r"</?script", re.IGNORECASE)


def script_hash(text: str) -> str:
    """The CSP source that allows exactly the inline script ``text`` (``'sha256-…'``)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def csp(scripts: list[str] | None = None) -> str:
    """The policy of a page that runs ``scripts`` (inline, exactly these texts) and nothing else."""
    if not scripts:
        return CSP
    return f"{CSP}; script-src {' '.join(script_hash(text) for text in scripts)}"


@dataclass
class NavEntry:
    """One entry of the built page's navigation.

    ``html``: the title as (sanitised) markup when the heading holds inline HTML, else None (the
    ``title`` is escaped); ``doc``: the id of the document's section when the entry is a document
    (the page's script opens and marks the one in view); ``href`` None: text without a link.
    """

    title: str
    href: str | None
    children: list[NavEntry] = field(default_factory=list)
    html: str | None = None
    doc: str | None = None


def _resource(name: str) -> str:
    return importlib.resources.files("mdmark.templates").joinpath(name).read_text(encoding="utf-8")


_LINE_COMMENT = re.compile(r"^[ \t]*//.*\n", re.MULTILINE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/[ \t]*", re.DOTALL)


def _script(name: str) -> str:
    """One of mdmark's scripts as every page carries it: without its whole-line comments, which are
    for the reader of ``templates/``, not for the browser (a thousand pages need not carry them)."""
    return _LINE_COMMENT.sub("", _resource(name))


def _css(text: str) -> str:
    """mdmark's own stylesheet text without its comments (as :func:`_script`)."""
    return _CSS_COMMENT.sub("", text)


@functools.cache
def template(name: str = "page.html") -> Template:
    from jinja2 import Environment

    env = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    return env.from_string(_resource(name))


def nav_markup(nav: list[NavEntry]) -> str:
    """The built page's navigation entries as ``templates/nav.html`` writes them (what
    :func:`page_chunks` places in the page; a rebuild keeps it while the entries are the same)."""
    return template("nav.html").render(nav=nav)


#: The mermaid bundled in ``templates/mermaid.min.js``: npm's ``mermaid`` at this version,
#: ``dist/mermaid.min.js`` as published (MIT, its licence in ``templates/mermaid.LICENSE.txt``).
MERMAID_VERSION = "12.3.0"

#: What a rendered mermaid diagram starts with in a fragment (:mod:`mdmark.html.render`).
MERMAID_MARK = '<pre class="mermaid">'


def mermaid_scripts(sections: Iterable[str]) -> list[str]:
    """The scripts that draw the page's mermaid diagrams (the bundled mermaid and its start), when
    one of ``sections`` holds one; none otherwise (a page without diagrams carries none of it)."""
    if not any(MERMAID_MARK in text for text in sections):
        return []
    return list(_mermaid())


@functools.cache
def _mermaid() -> tuple[str, str]:
    return _resource("mermaid.min.js"), _resource("mermaid-init.js")


@functools.cache
def page_script() -> str:
    """The built page's script (navigation that follows the reader, the drawer, the neighbourhood
    pictures, the code blocks' copy buttons, the offline search); the page works without it. One
    script, so the policy names one hash."""
    return "\n".join(_script(name) for name in ("page.js", "copy.js", "search.js"))


#: What a code block starts with in a fragment (Pygments' ``div.highlight``, docutils' literal block).
CODE_MARKS = ('<div class="highlight"', 'class="literal-block')


def copy_scripts(sections: Iterable[str]) -> list[str]:
    """The exported page's script: the copy button of its code blocks, when one of ``sections``
    holds one; none otherwise (the built page has it in :func:`page_script`)."""
    if not any(mark in text for text in sections for mark in CODE_MARKS):
        return []
    return [_script("copy.js")]


@functools.cache
def _static_css() -> str:
    """mdmark's stylesheet, then sphinx-design's (no ``url()`` in it: inlinable as is)."""
    design = importlib.resources.files("sphinx_design").joinpath("static", "sphinx-design.min.css")
    return design.read_text(encoding="utf-8") + "\n" + _css(_resource("mdmark.css"))


#: The Pygments style of the code colours (Sphinx's own). The markup only carries token classes,
#: so a reader can restyle code in mdmark.css or html.css.
PYGMENTS_STYLE = "sphinx"


#: The Pygments style of the code colours under the reader's dark setting (``prefers-color-scheme``).
PYGMENTS_DARK_STYLE = "github-dark"


@functools.cache
def _pygments_css() -> str:
    from sphinx.highlighting import PygmentsBridge

    light = str(PygmentsBridge("html", PYGMENTS_STYLE).get_stylesheet())
    dark = str(PygmentsBridge("html", PYGMENTS_DARK_STYLE).get_stylesheet())
    return _css(f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}")


def refused_css(config: Config) -> list[tuple[str, str]]:
    """``(key path, sentence)`` of each ``html.css`` file outside the project root (not inlined)."""
    from mdmark.host.confine import inside, project_root
    from mdmark.util.sentences import outside_root

    root = project_root(config.root)
    return [
        (f"html.css[{i}]", outside_root(name, "設定の html.css の"))
        for i, name in enumerate(config.html.css)
        if (config.root / name).exists() and not inside(config.root / name, root)
    ]


def css_warnings(config: Config) -> list[str]:
    """The warnings export and build print for :func:`refused_css` (``{config}:{line}: {sentence}``)."""
    doc = config.yaml
    out = []
    for where, message in refused_css(config):
        line = doc.line_of(where) if doc is not None else None
        out.append(f"{config.shown}:{line}: {message}" if line else f"{config.shown}: {message}")
    return out


def extra_css(config: Config) -> str:
    """The config's ``html.css`` files, inlined in order; a missing one is an error (exit 1)."""
    parts: list[str] = []
    refused = {where for where, _ in refused_css(config)}
    for i, name in enumerate(config.html.css):
        if f"html.css[{i}]" in refused:
            continue
        path = config.root / name
        if not path.is_file():
            raise MdmarkError(
                f"設定の html.css の `{name}` が見つからないので、パスを直すか設定から外してください。"
            )
        from mdmark.host.confine import project_root

        text = door.read_text(path, project_root(config.root), "設定の html.css の", name)
        parts.append(f"/* {display(path, config.root)} */\n" + text)
    return "\n".join(parts)


def stylesheet(config: Config) -> str:
    css = "\n".join([_static_css(), _pygments_css(), extra_css(config)])
    # A stylesheet cannot end the <style> element early.
    return css.replace("</", "<\\/")


def page_chunks(
    *,
    mode: str,
    lang: str,
    title: str,
    css: str,
    body: str | Iterable[str],
    nav: list[NavEntry] | str | None = None,
    scripts: list[str] | None = None,
    data: str = "",
) -> Iterator[str]:
    """The whole page, in pieces that together are its text, for writing a page without holding it
    whole. ``scripts``: inline scripts, each allowed by its hash in the policy (a script cannot end
    its element early: ``</`` is refused); ``data``: markup placed before the scripts
    (``<script type="application/json">`` blocks they read, not run). ``body`` (markup) may be given in pieces: they are passed on as they are, not joined.
    ``nav``: the navigation's entries, or their markup made by :func:`nav_markup`.

    The check of ``scripts`` happens on this call, before the first piece is asked for."""
    from markupsafe import Markup

    scripts = list(scripts or [])
    # What ends a <script> element early (or, after ``<!--``, keeps it open): HTML's own rule.
    if any(_SCRIPT_END.search(text) for text in scripts):
        raise MdmarkError(
            "ページに埋め込むスクリプトに `</script` か `<script` があり <script> の中に置けないので、`<\\/script` のように書き換えてください。"
        )
    pieces = [body] if isinstance(body, str) else body
    from mdmark.html.labels import page_words

    words = page_words(lang)
    # The scripts' words in the page language, as data (read, never run: no hash needed).
    said = json.dumps(words, ensure_ascii=False).replace("</", "<\\/") if scripts else ""
    # The template places a marker where the body goes; the body's pieces replace it on the way
    # out, so neither the body nor the page is ever one string. The marker is random per call, so
    # no title, stylesheet or data can contain it.
    marker = f"mdmark-body-{secrets.token_hex(16)}"
    stream = template().generate(
        mode=mode,
        lang=lang,
        title=title,
        csp=Markup(csp(scripts)),
        css=Markup(css),
        body=Markup(marker),
        nav=Markup(nav if isinstance(nav, str) else nav_markup(nav) if nav else ""),
        data=Markup(data),
        scripts=[Markup(text) for text in scripts],
        words=words,
        said=Markup(said),
        version=__version__,
    )
    return _fill_body(stream, marker, pieces)


def _fill_body(stream: Iterator[str], marker: str, body: Iterable[str]) -> Iterator[str]:
    for chunk in stream:
        if marker not in chunk:
            yield chunk
            continue
        before, after = chunk.split(marker, 1)
        if before:
            yield before
        yield from body
        if after:
            yield after
        yield from stream
        return


def check_out_path(out: Path, shown: str) -> None:
    """Refuse an output path that is not (or would replace something that is not) an HTML file."""
    if out.suffix.lower() not in (".html", ".htm"):
        raise MdmarkError(
            f"出力先 `{shown}` は HTML のファイル（.html）ではないので、拡張子が .html のパスを指定してください。"
        )
    if out.is_symlink() or (out.exists() and not out.is_file()):
        raise MdmarkError(output_not_file(shown))
    if out.exists():
        try:
            with open(out, "rb") as handle:
                head = handle.read(4096)
        except OSError as exc:
            raise MdmarkError(unreadable(shown, exc.strerror or "", "出力先")) from None
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
        if head and not text.startswith(b"<") or b"\x00" in head:
            raise MdmarkError(
                f"出力先 `{shown}` には HTML ではない内容があり上書きしないので、別のパスを指定するかファイルを移してください。"
            )


def write_page(out: Path, text: str | Iterable[str], shown: str) -> None:
    """Write the page ``text`` (whole, or the pieces of :func:`page_chunks`) atomically to ``out``."""
    from mdmark.util.files import atomic_write_chunks

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_chunks(out, [text] if isinstance(text, str) else text)
    except OSError as exc:
        raise MdmarkError(
            f"`{shown}` に書き出せない（{exc.strerror}）ので、フォルダの権限か出力先を確かめてください。"
        ) from None
