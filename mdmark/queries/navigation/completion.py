"""Completion: roles' targets, link targets, directives and their options, index ids and tags."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path

from mdmark.queries.navigation.navigator import FENCE_OPEN, OPTION_LINE, Completion, Navigator


def complete(
    nav: Navigator,
    path: Path,
    line: int,
    column: int,
    directives: Mapping[str, tuple[str, ...]] | None = None,
    text: str | None = None,
) -> list[Completion]:
    """What may be typed at the position: documents in links, ``{doc}`` and toctrees, labels in
    ``{ref}``/``{numref}``, terms in ``{term}``, equations in ``{eq}``, anchors after ``#``,
    ids and tags in the index, directive names and options (``directives``: name → options).
    ``text``: the file as typed now, when newer than the check's."""
    path = path.resolve()
    lines = text.splitlines() if text is not None else nav.lines(path)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    before = text[:column]
    if nav.is_index(path):
        return _complete_index(nav, before)
    docname = nav.docname(path) or ""
    role = re.search(r"\{([\w:.+-]+)\}`(?:[^`<]*<)?([^`<>]*)$", before)
    if role is not None:
        return _complete_role(nav, role.group(1), role.group(2), docname)
    link = re.search(r"\]\(<?([^()\s<>]*)$", before)
    if link is not None:
        return _complete_link(nav, link.group(1), docname)
    if directives is not None:
        fence = re.match(r"^\s*(`{3,}|:{3,})\{([\w:.+-]*)$", before)
        if fence is not None:
            return [Completion(name, "directive") for name in sorted(directives)]
        if re.match(r"^\s*:[\w-]*$", before):
            name = _open_directive(nav, lines, line)
            if name is not None and name in directives:
                return [Completion(opt, "option", insert=f"{opt}: ") for opt in directives[name]]
    if _in_toctree(nav, lines, line) and not before.lstrip().startswith(":"):
        return _doc_names(nav, docname, suffix=False)
    return []


def _open_directive(nav: Navigator, lines: list[str], line: int) -> str | None:
    for number in range(line - 1, 0, -1):
        text = lines[number - 1]
        fence = FENCE_OPEN.match(text)
        if fence is not None:
            return fence.group(2)
        if not OPTION_LINE.match(text):
            return None
    return None


def _in_toctree(nav: Navigator, lines: list[str], line: int) -> bool:
    for number in range(line - 1, 0, -1):
        text = lines[number - 1]
        fence = FENCE_OPEN.match(text)
        if fence is not None:
            return fence.group(2) == "toctree"
        if text.strip().startswith(("```", ":::")):
            return False
    return False


def _doc_names(nav: Navigator, docname: str, suffix: bool) -> list[Completion]:
    folder = posixpath.dirname(docname) or "."
    out = []
    for other in sorted(nav.model.found):
        if other == docname:
            continue
        rel = posixpath.relpath(other, folder)
        out.append(Completion(rel + (".md" if suffix else ""), "doc", nav.model.title(other) or ""))
    return out


def _complete_role(nav: Navigator, role: str, typed: str, docname: str) -> list[Completion]:
    name = role.rpartition(":")[2]
    if name in ("ref", "numref"):
        items = [
            Completion(label, "label", entry[1].title or entry[0])
            for label, entry in sorted(nav.model.labels.items())
            if name == "ref" or entry[1].figtype is not None
        ]
        return items
    if name == "doc":
        return _doc_names(nav, docname, suffix=False)
    if name == "term":
        return [Completion(t[2], "term", t[0]) for t in sorted(nav.model.terms.values(), key=lambda t: t[2])]
    if name == "eq":
        return [Completion(n, "eq", doc) for (d, n), (doc, _i, _num) in sorted(nav.model.targets.items()) if d == "math"]
    return []


def _complete_link(nav: Navigator, typed: str, docname: str) -> list[Completion]:
    if "#" in typed:
        file, _, _anchor = typed.partition("#")
        target = docname
        if file:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(docname), file)).removesuffix(".md")
        facts = nav.facts(target)
        if facts is None:
            return []
        items = [Completion(h.anchor, "anchor", h.title, insert=f"{file}#{h.anchor}") for h in facts.headings if h.anchor]
        items += [Completion(lab.name, "label", lab.title, insert=f"{file}#{lab.name}") for lab in facts.labels]
        return items
    return _doc_names(nav, docname, suffix=True)


def _complete_index(nav: Navigator, before: str) -> list[Completion]:
    if nav.index is None:
        return []
    if re.search(r"(^|[\s{,])(to|related_to)\s*:\s*[\w./-]*$", before) or re.search(r"(^|[\s{,])docs\s*:\s*\[[^\]]*$", before):
        return [Completion(d.id, "id", d.title) for d in nav.index.docs]
    if re.search(r"(^\s*-\s*(name\s*:\s*)?[^:]*$)|(tags\s*:\s*\[[^\]]*$)|(deprecated\s*:\s*\S*$)", before):
        items = [Completion(t.name, "tag", t.description or "") for t in nav.index.tags]
        if re.match(r"^\s*-\s*[\w./-]*$", before):
            items += [Completion(d.id, "id", d.title) for d in nav.index.docs]
        return items
    return []
