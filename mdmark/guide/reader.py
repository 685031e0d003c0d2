"""The guide (使い方集) shipped inside the package: its index and ``read_guide``.

The guide is an mdmark document set of its own (``mdmark/guide/index.yaml`` + pages); the names
``read_guide`` takes are its index's document ids. It is always read from the installed package,
never from a project folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mdmark.errors import MdmarkError
from mdmark.index.model import Index, load_index
from mdmark.util.files import read_text
from mdmark.util.text import suggestion

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
        named = "・".join(f"`{name}`{suggestion(name, known, 3)}" for name in unknown)
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


def page_text(path: Path, shown: str) -> str:
    """A guide page as it is read: its text with every table marker replaced by its table."""
    text = read_text(path, shown)
    for marker, table in TABLE_MARKERS.items():
        if marker in text:
            text = text.replace(marker, drift_table(table))
    return text


def drift_table(which: str) -> str:
    """The guide's tables of drift kinds: ``kinds`` (kind, where it is reported, what it means) and
    ``fixes`` (kind, the usual cause, the fix), one row per :class:`~mdmark.diagnostics.DriftKind`."""
    from mdmark.check.rules import RULES, Scope
    from mdmark.diagnostics import DriftKind

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
