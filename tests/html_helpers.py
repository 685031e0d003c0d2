"""Helpers for the export/build/browser tests: fixture parsing, HTML normalisation, page invariants."""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "html"


@dataclass
class Case:
    name: str
    source: str
    expected: str


def read_cases(path: Path) -> list[Case]:
    """MyST-Parser style fixtures: ``name``, ``.``, input, ``.``, expected output, ``.``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        name = lines[i].strip()
        assert lines[i + 1] == ".", f"{path}:{i + 2}: expected '.' after the case name"
        j = i + 2
        parts: list[list[str]] = [[], []]
        for part in parts:
            while lines[j] != ".":
                part.append(lines[j])
                j += 1
            j += 1
        cases.append(Case(name, "\n".join(parts[0]) + "\n", "\n".join(parts[1])))
        i = j
    return cases


def write_cases(path: Path, cases: list[Case]) -> None:
    out = []
    for case in cases:
        out += [case.name, ".", case.source.rstrip("\n"), ".", case.expected.rstrip("\n"), ".", ""]
    path.write_text("\n".join(out), encoding="utf-8")


def png(width: int = 4, height: int = 4) -> bytes:
    """A tiny valid red PNG."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def article(page: str) -> str:
    """The document part of an exported page."""
    start = page.index('<article class="mdmark-doc">') + len('<article class="mdmark-doc">')
    return page[start : page.index("</article>", start)]


def normalise(fragment: str) -> str:
    """Stable text of a fragment: data URIs and SVG paths shortened, blank lines dropped."""
    out = re.sub(r'src="data:([^;"]+);base64,[^"]*"', r'src="data:\1;base64,…"', fragment)
    out = re.sub(r'(<path[^>]*\sd=")[^"]*(")', r"\1…\2", out)
    out = "\n".join(line.rstrip() for line in out.split("\n") if line.strip())
    return out.strip()


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.local_hrefs: list[str] = []
        self.loads: list[tuple[str, str, str]] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if found.get("id") is not None:
            self.ids.append(str(found["id"]))
        href = found.get("href")
        if tag == "a" and href and href.startswith("#") and len(href) > 1:
            self.local_hrefs.append(href[1:])
        if tag in {"img", "script", "link", "iframe", "source", "video", "audio", "embed", "object", "track"}:
            for attr in ("src", "href", "srcset", "data", "poster"):
                value = found.get(attr)
                if value:
                    self.loads.append((tag, attr, value))

    handle_startendtag = handle_starttag


def page_problems(page: str) -> list[str]:
    """Whole-page invariants: unique ids, every ``href="#x"`` has its target, nothing loads remotely."""
    collect = _Collect()
    collect.feed(page)
    problems: list[str] = []
    seen: set[str] = set()
    for ident in collect.ids:
        if ident in seen:
            problems.append(f"duplicate id {ident!r}")
        seen.add(ident)
    for target in collect.local_hrefs:
        if target not in seen:
            problems.append(f"href #{target} has no target")
    for tag, attr, value in collect.loads:
        if not value.startswith("data:"):
            problems.append(f"<{tag} {attr}={value!r}> loads something")
    if 'http-equiv="Content-Security-Policy"' not in page:
        problems.append("no Content-Security-Policy")
    problems += script_problems(page)
    return problems


def script_problems(page: str) -> list[str]:
    """Every script runs only by the policy's leave: inline, its SHA-256 named in the
    Content-Security-Policy (hashed here independently of mdmark), or a JSON data block."""
    import base64
    import hashlib

    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    allowed = set()
    if policy is not None:
        for part in policy.group(1).split(";"):
            words = part.split()
            if words and words[0] == "script-src":
                allowed = set(words[1:])
    problems = []
    for attrs, text in re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.DOTALL):
        if "src=" in attrs:
            problems.append(f"a script that loads something: <script{attrs}>")
        elif 'type="application/json"' in attrs:
            continue
        else:
            digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
            if f"'sha256-{digest}'" not in allowed:
                problems.append("an inline script the policy does not name by its hash")
    if page.count("<script") != len(re.findall(r"<script\b[^>]*>.*?</script>", page, re.DOTALL)):
        problems.append("a script element that does not close")
    return problems


class PageSummary(HTMLParser):
    """What a reader finds in a page's documents, for comparing a built page with Sphinx's
    ``singlehtml`` page: headings, links (href and text), images, components and formulas.

    ``body`` names the element the documents are in (mdmark's ``<main>``, Sphinx's ``div.body``);
    the permalinks, the navigation and the scripts are left out. Quotes are compared straight
    (Sphinx's smartquotes; mdmark writes them as written, the guide says so)."""

    def __init__(self, body: tuple[str, str]) -> None:
        super().__init__(convert_charrefs=True)
        self._body_tag, self._body_class = body
        self._depth = 0  # > 0 inside the documents' element
        self._skip = 0  # inside a permalink or a script
        self._heading: list[str] | None = None
        self._link: list[str] | None = None
        self.documents: list[str] = []
        self.headings: list[str] = []
        self.links: list[tuple[str, str]] = []
        self.unlinked = 0
        self.images: list[str] = []
        #: Images on the web: Sphinx's page shows them, mdmark's embeds none (no external request).
        self.remote_images: list[str] = []
        self.components: list[str] = []
        self.formulas = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        classes = found.get("class", "").split()
        if self._depth:
            self._depth += tag not in _VOID
        elif tag == self._body_tag and self._body_class in classes:
            self._depth = 1
            return
        if not self._depth:
            return
        # mdmark writes a toctree as the list of its documents' links; singlehtml puts the
        # documents there instead (they follow in the page either way).
        if self._skip or tag == "script" or "headerlink" in classes or "mdmark-toctree" in classes:
            self._skip += tag not in _VOID
            return
        ident = found.get("id", "")
        if ident.startswith("document-"):
            self.documents.append(ident.removeprefix("document-"))
        if tag == "section" and "mdmark-doc" in classes:
            self.documents.append(ident)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = []
        elif tag == "a":
            if "href" in found:
                self._link = [found["href"], ""]
            else:
                self.unlinked += 1
        elif tag == "img":
            remote = found.get("src", "").startswith(("http://", "https://"))
            (self.remote_images if remote else self.images).append(found.get("alt", ""))
        elif tag == "math" or (tag in ("span", "div") and "math" in classes and "mdmark-math" not in classes):
            # mdmark writes MathML; Sphinx's page leaves the TeX in a span or div of class math.
            self.formulas += 1
        if "admonition" in classes:
            self.components.append(" ".join(["admonition", *sorted(c for c in classes if c in _KINDS)]))
        elif "highlight" in classes:
            self.components.append("code")
        elif tag in ("table", "figure"):
            self.components.append(tag)
        elif tag == "div" and _CHANGES & set(classes):
            self.components.append(sorted(_CHANGES & set(classes))[0])

    def handle_endtag(self, tag: str) -> None:
        if not self._depth:
            return
        if tag not in _VOID:
            self._depth -= 1
        if self._skip:
            self._skip -= tag not in _VOID
            return
        if re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            self.headings.append(_plain("".join(self._heading)))
            self._heading = None
        elif tag == "a" and self._link is not None:
            self.links.append((self._link[0], _plain(self._link[1])))
            self._link = None

    def handle_data(self, data: str) -> None:
        if not self._depth or self._skip:
            return
        if self._heading is not None:
            self._heading.append(data)
        if self._link is not None:
            self._link[1] += data


#: Elements without an end tag.
_VOID = {"img", "br", "hr", "input", "meta", "link", "col", "area", "base", "source", "wbr"}
#: The version-change notes, and the kinds of admonition.
_CHANGES = {"versionadded", "versionchanged", "deprecated", "versionremoved"}
_KINDS = {"note", "warning", "tip", "hint", "important", "caution", "attention", "danger", "error", "seealso", "table"}


def _plain(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.replace("¶", "").split())


def summary(page: str, body: tuple[str, str]) -> PageSummary:
    parsed = PageSummary(body)
    parsed.feed(page)
    return parsed
