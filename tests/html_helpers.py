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
