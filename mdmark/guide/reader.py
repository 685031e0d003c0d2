"""The guide (使い方集) shipped inside the package: its index and ``read_guide``.

The guide is an mdmark document set of its own (``mdmark/guide/index.yaml`` + pages); the names
``read_guide`` takes are its index's document ids. It is always read from the installed package,
never from a project folder.
"""

from __future__ import annotations

import re
from dataclasses import MISSING, dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError
from mdmark.index.model import Index, load_index
from mdmark.util.files import read_text
from mdmark.util.sentences import close_note

if TYPE_CHECKING:
    from mdmark.declare.fields import Declared

#: read_guide refuses to return more than this many characters in one call.
MAX_GUIDE_CHARS = 50_000


@dataclass(frozen=True)
class GuideEntry:
    name: str
    title: str
    description: str


def guide_dir() -> Path:
    """The folder of the packaged guide."""
    return Path(str(resources.files("mdmark.guide")))


def _guide_index() -> Index:
    folder = guide_dir()
    return load_index(folder / "index.yaml", folder)


def guide_entries() -> list[GuideEntry]:
    """Every page of the guide in index order: name (id), title and one-line description."""
    return [GuideEntry(doc.id, doc.title, doc.description or "") for doc in _guide_index().docs]


def read_guide(names: list[str]) -> list[str]:
    """One text per name, in the given order (duplicates merged): ``# {name}``, a blank line, the page.

    Unknown names and a total over :data:`MAX_GUIDE_CHARS` are errors that return no page at all.
    """
    if not names:
        raise MdmarkError("names が空なので、使い方集の名前を 1 つ以上渡してください。")
    index = _guide_index()
    known = [doc.id for doc in index.docs]
    wanted = list(dict.fromkeys(names))
    unknown = [name for name in wanted if name not in known]
    if unknown:
        named = "・".join(f"`{name}`{close_note(name, known)}" for name in unknown)
        # A closing full-width bracket takes no space after it; a code name does.
        gap = "" if named.endswith("）") else " "
        raise MdmarkError(
            f"使い方集に {named}{gap}というページは無いので、名前を直してください（全てのページの名前は `mdmark guide` で一覧できます）。"
        )
    bodies: list[tuple[str, str]] = []
    for name in wanted:
        doc = index.doc(name)
        assert doc is not None
        bodies.append((name, page_text(index.doc_file(doc), f"guide/{doc.path}")))
    total = sum(len(body) for _, body in bodies)
    if total > MAX_GUIDE_CHARS:
        sizes = "・".join(f"{name} {len(body):,} 文字" for name, body in bodies)
        raise MdmarkError(
            f"本文の合計が {total:,} 文字で {MAX_GUIDE_CHARS:,} 文字を超えるので、名前を分けて呼んでください（{sizes}）。"
        )
    return [f"# {name}\n\n{body}" for name, body in bodies]


#: Lines of a guide page replaced, when it is read, by a table made from the declarations, so the
#: guide can never disagree with the code (a new drift kind is one member of ``DriftKind``).
TABLE_MARKERS = {
    "<!-- mdmark:drift-kinds -->": "kinds",
    "<!-- mdmark:drift-fixes -->": "fixes",
}


#: ``<!-- mdmark:keys config -->``, ``<!-- mdmark:keys docs.related -->``: the table of the keys of the
#: config, or of the mapping at that place of the index, made from their declaration (a new key is
#: one field of :class:`~mdmark.config.main.Config` or of the index model, and the guide shows it).
KEYS_MARKER = re.compile(r"<!-- mdmark:keys ([a-z_.]+) -->")


def page_text(path: Path, shown: str) -> str:
    """A guide page as it is read: its text with every table marker replaced by its table."""
    text = read_text(path, shown)
    for marker, table in TABLE_MARKERS.items():
        if marker in text:
            text = text.replace(marker, drift_table(table))
    if "<!-- mdmark:keys " in text:
        text = KEYS_MARKER.sub(lambda match: key_table(declaration_at(match.group(1))), text)
    return text


def declaration_at(place: str) -> type:
    """The dataclass declaring the keys at ``place``: ``config`` (the config file), else a dotted
    path of keys from the top of the index (``docs``, ``docs.related``)."""
    from mdmark.declare.fields import declared
    from mdmark.config.main import Config

    if place == "config":
        return Config
    cls: type = Index
    for name in place.split("."):
        found = next((d.record for d in declared(cls) if d.name == name and d.record is not None), None)
        if found is None:
            raise LookupError(f"the index declares no mapping at {place!r}")
        cls = found
    return cls


def default_text(declared: Declared) -> str:
    """A key's default as the guide's tables show it: ``3``, ``[]``, 無し, or — for a required key."""
    value = declared.default
    if declared.required or value is MISSING:
        return "—"
    if value is None:
        return "無し"
    if declared.form == "map":
        return "`{}`" if not value else "`{" + ", ".join(f"{k}: {v}" for k, v in value) + "}`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | tuple):
        return "`[" + ", ".join(str(v) for v in value) + "]`"
    return f"`{value}`"


def key_table(cls: type) -> str:
    """The guide's table of the keys ``cls`` declares (sections opened into dotted keys): each key's
    value, default and help; a 必須 column when any key is required."""
    from mdmark.declare.fields import leaves

    rows = list(leaves(cls))
    required = any(d.required for _, d in rows)
    lines = ["| キー | 必須 | 値 | 既定 | 意味 |" if required else "| キー | 値 | 既定 | 意味 |"]
    lines.append("| --- | --- | --- | --- | --- |" if required else "| --- | --- | --- | --- |")
    for path, d in rows:
        need = [("必須" if d.required else "任意")] if required else []
        lines.append("| " + " | ".join([f"`{path}`", *need, d.spec.describe(), default_text(d), d.help]) + " |")
    return "\n".join(lines)


def drift_table(which: str) -> str:
    """The guide's tables of drift kinds: ``kinds`` (kind, where it is reported, what it means) and
    ``fixes`` (kind, the usual cause, the fix), one row per :class:`~mdmark.core.diagnostics.DriftKind`."""
    from mdmark.check.rules import RULES, Scope
    from mdmark.core.diagnostics import DriftKind

    places = {Scope.CONFIG: "設定", Scope.INDEX: "索引", Scope.DOCUMENT: "文書"}
    place: dict[DriftKind, str] = {}
    for rule in RULES:
        for kind in rule.kinds:
            place.setdefault(kind, places[rule.scope])
    if which == "kinds":
        rows = ["| kind | どこ | 意味 |", "| --- | --- | --- |"]
        rows += [f"| `{kind}` | {place[kind]} | {kind.description} |" for kind in DriftKind]
    else:
        rows = ["| kind | よくある原因 | 直し方 |", "| --- | --- | --- |"]
        rows += [f"| `{kind}` | {kind.cause} | {kind.fix} |" for kind in DriftKind]
    return "\n".join(rows)
