"""What a box says: text widths measured per character class (no font is loaded: the SVG must be
the same bytes everywhere), labels cut to fit, and labels that tell neighbours with a shared
title prefix apart."""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import replace

from mdmark.graph.model import Node
from mdmark.graph.style import FONT_SIZE


def _char_width(char: str, size: float) -> float:
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return size
    if char == " ":
        return size * 0.33
    return size * 0.62


@functools.lru_cache(maxsize=16384)
def text_width(text: str, size: float = FONT_SIZE) -> float:
    """An estimate of the rendered width: wide (CJK) characters one em, others about 0.6 em."""
    width = 0.0
    for char in text:
        width += _char_width(char, size)
    return width


@functools.lru_cache(maxsize=8192)
def fit_label(text: str, limit: float, size: float = FONT_SIZE) -> str:
    """``text`` cut to ``limit`` pixels with an ellipsis (the full title goes into the tooltip).

    Memoised: a built page draws each title in the neighbourhood of every document it relates to.
    """
    if text_width(text, size) <= limit:
        return text
    ellipsis = _char_width("…", size)
    width = 0.0
    for i, char in enumerate(text):
        # The same additions, in the same order, as text_width(text[:i + 1] + "…").
        if width + _char_width(char, size) + ellipsis > limit:
            return text[:i] + "…"
        width += _char_width(char, size)
    return text + "…"


#: Characters kept before the first difference when two cut titles would look the same.
CONTEXT = 3


def _cut_head(text: str, limit: float, size: float) -> str:
    """The longest start of ``text`` whose width is at most ``limit`` (no ellipsis)."""
    width = 0.0
    for i, char in enumerate(text):
        width += _char_width(char, size)
        if width > limit:
            return text[:i]
    return text


def _middle_cut(text: str, differs: int, limit: float, size: float) -> str:
    """``text`` cut so that what follows position ``differs`` (where it parts from the titles it
    would be confused with) stays visible: ``head…tail``, ``…tail`` or ``…tail…``. Parting at the
    start, the start is what tells it apart: cut at the end."""
    if text_width(text, size) <= limit:
        return text
    start = differs - CONTEXT
    if start <= 0:
        return fit_label(text, limit, size)
    ellipsis = _char_width("…", size)
    tail = text[start:]
    if text_width(tail, size) + ellipsis > limit:
        return "…" + fit_label(tail, limit - ellipsis, size)
    head = _cut_head(text[:start], limit - ellipsis - text_width(tail, size), size)
    return head + "…" + tail


def _common_prefix(texts: list[str]) -> int:
    first, last = min(texts), max(texts)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return n


def _partings(texts: dict[str, str], ids: list[str]) -> dict[str, int]:
    """Where each of ``ids`` parts from the nearest of the others (the longest start it shares with
    one of them): the place that tells it from its neighbours, however the group's titles start.
    A title that is the start of another (「…設計」 beside 「…設計 その2」) parts where the longer one
    goes on: that is the longer one's to show."""
    out: dict[str, int] = {}
    for node_id in ids:
        own = texts[node_id]
        shared = [
            _common_prefix([own, texts[other]])
            for other in ids
            if other != node_id and not (texts[other].startswith(own) and texts[other] != own)
        ]
        out[node_id] = max(shared) if shared else 0
    return out


#: Characters after which a shared title prefix may be dropped (a word ends there).
_BREAKS = frozenset(" 　の・、，,:：/／-—（(「『【")


def _shared_head(titles: list[str]) -> int:
    """How much of the start ``titles`` share, up to a word's end. A title that is the start of
    the others (the folder's own entry 「アーキテクチャ」 beside 「アーキテクチャの…」) takes no part:
    it is shown whole."""
    longer = sorted({t for t in titles if not any(o != t and o.startswith(t) for o in titles)})
    if len(longer) < 2:
        return 0
    n = _common_prefix(longer)
    while n > 0 and longer[0][n - 1] not in _BREAKS:
        n -= 1
    return n


def _path_tails(paths: list[str]) -> list[str]:
    """The shortest ends of ``paths`` (by folder) that tell them apart, without ``.md``."""
    parts = [p.removesuffix(".md").split("/") for p in paths]
    for k in range(1, max(len(x) for x in parts) + 1):
        tails = ["/".join(x[-k:]) for x in parts]
        if len(set(tails)) == len(tails):
            return tails
    return ["/".join(x) for x in parts]


def distinct_labels(nodes: list[Node], limit: float, size: float = FONT_SIZE) -> dict[str, str]:
    """Each node's label: its title, cut to ``limit`` pixels so that no two nodes look the same.

    A title that does not fit ends in an ellipsis; when two cut titles would read alike, both keep
    the part where they differ (``アーキテクチャ…更新設計`` / ``アーキテクチャ…更新手順``).
    Documents with one title are told apart by the end of their path (``手順（auth/howto）``).
    """
    texts: dict[str, str] = {n.id: n.title for n in nodes}
    same_title: dict[str, list[Node]] = {}
    for node in nodes:
        same_title.setdefault(node.title, []).append(node)
    for title, group in same_title.items():
        if len(group) > 1:
            paths = [n.path if n.path else n.id for n in group]
            if len(set(paths)) < len(paths):
                paths = [n.id for n in group]
            for node, tail in zip(group, _path_tails(paths), strict=True):
                texts[node.id] = f"{title}（{tail}）"
    labels = {n.id: fit_label(texts[n.id], limit, size) for n in nodes}
    for _ in range(8):
        clashes: dict[str, list[str]] = {}
        for node_id, label in labels.items():
            clashes.setdefault(label, []).append(node_id)
        groups = [ids for ids in clashes.values() if len(ids) > 1]
        if not groups:
            return labels
        for ids in groups:
            for node_id, differs in _partings(texts, ids).items():
                labels[node_id] = _middle_cut(texts[node_id], differs, limit, size)
    # Still alike (titles that differ only far past the width): each says the end of its path.
    alike: dict[str, list[Node]] = {}
    for node in nodes:
        alike.setdefault(labels[node.id], []).append(node)
    for label, group in alike.items():
        if len(group) < 2:
            continue
        paths = [n.path if n.path else n.id for n in group]
        if len(set(paths)) < len(paths):
            paths = [n.id for n in group]
        for node, tail in zip(group, _path_tails(paths), strict=True):
            mark = f"（{tail}）"
            labels[node.id] = fit_label(label.rstrip("…"), limit - text_width(mark, size), size) + mark
    return labels


def group_labels(nodes: list[Node], limit: float, size: float = FONT_SIZE) -> dict[str, str]:
    """Each node's label within its group (a cluster whose frame names the folder or tag): the start
    its group's titles share is dropped (``…トークン更新設計`` for ``アーキテクチャの…トークン更新設計``),
    and the rest told apart as :func:`distinct_labels` does. Unique within each group."""
    members: dict[int, list[Node]] = {}
    for node in nodes:
        members.setdefault(node.group, []).append(node)
    labels: dict[str, str] = {}
    for group in members.values():
        head = _shared_head([n.title for n in group])
        shown = [replace(n, title="…" + n.title[head:]) if head and len(n.title) > head else n for n in group]
        labels.update(distinct_labels(shown, limit, size))
    return labels
