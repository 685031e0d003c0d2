"""Quick fixes: the edits a drift's sentence proposes."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from mdmark.core.errors import MdmarkError
from mdmark.queries.navigation.navigator import WHOLE, Edit, Fix, Navigator, Span
from mdmark.util.sentences import CLOSE_NAME

if TYPE_CHECKING:
    from mdmark.core.diagnostics import Diagnostic


def fixes(nav: Navigator, diagnostic: Diagnostic, span: Span | None) -> list[Fix]:
    """The fixes a drift's sentence proposes: "近い X に直す" (the reference, toctree entry, index
    path or tag becomes X), the title in the index or the heading (title_mismatch), the missing
    index entry (unindexed_doc). ``span`` is where the drift is shown."""
    kind = str(diagnostic.kind)
    quoted = re.findall(r"`([^`]+)`", diagnostic.message)
    near = CLOSE_NAME.search(diagnostic.message)
    out: list[Fix] = []
    if near is not None and span is not None and quoted:
        wanted, written = near.group(1), quoted[0]
        lines = nav.lines(span.path)
        text = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
        segment = text[span.start : span.end]
        old = written
        if kind == "broken_anchor" and "#" in segment:
            old = segment.split("#", 1)[1]
        elif kind == "broken_anchor" and len(quoted) > 1 and quoted[1] in segment and quoted[0] not in segment:
            old = quoted[1]
        at = segment.rfind(old)
        if at < 0 and kind in ("unknown_tag", "missing_doc"):
            at, segment = text.rfind(old), text
            base = 0
        else:
            base = span.start
        if at >= 0:
            edit = Edit(Span(span.path, span.line, base + at, base + at + len(old)), wanted)
            out.append(Fix(f"`{old}` を `{wanted}` に直す", (edit,)))
    if kind == "title_mismatch" and nav.index is not None and len(quoted) >= 3:
        out.extend(_title_fixes(nav, diagnostic, quoted))
    if kind == "unindexed_doc":
        fix = _add_entry(nav, diagnostic.file)
        if fix is not None:
            out.append(fix)
    return out


def _title_fixes(nav: Navigator, diagnostic: Diagnostic, quoted: list[str]) -> list[Fix]:
    assert nav.index is not None
    where = diagnostic.where.removesuffix(".title")
    entry = next((d for d in nav.index.docs if d.where == where), None)
    if entry is None:
        return []
    docname = nav.docname(nav.ctx.doc_file(entry))
    facts = nav.facts(docname) if docname is not None else None
    if facts is None or facts.title is None or facts.title_line is None:
        return []
    out = []
    span = nav.index_span(diagnostic.where, entry.title)
    if span is not None:
        out.append(Fix(f"索引の title を `{facts.title}` にする", (Edit(span, _yaml_scalar(facts.title)),)))
    heading = next((h for h in facts.headings if h.line == facts.title_line), None)
    if heading is not None and docname is not None:
        out.append(
            Fix(f"文書の見出しを `{entry.title}` にする", (Edit(nav.heading_span(nav.path_of(docname), heading), entry.title),))
        )
    return out


def _add_entry(nav: Navigator, file: str) -> Fix | None:
    """The index with an entry for the document ``file`` (relative to the config folder), made
    by the same text edit as ``update_index``."""
    from mdmark.queries.edit_index import edit_index_text

    if nav.index is None:
        return None
    path = (nav.project.root / file).resolve()
    docname = nav.docname(path)
    facts = nav.facts(docname) if docname is not None else None
    rel = posixpath.relpath(path.as_posix(), nav.index.path.parent.as_posix())
    base = re.sub(r"[^\w-]+", "-", posixpath.splitext(rel)[0]).strip("-").lower() or "doc"
    taken = {d.id for d in nav.index.docs}
    doc_id, n = base, 2
    while doc_id in taken:
        doc_id, n = f"{base}-{n}", n + 1
    item = {"id": doc_id, "path": rel, "title": (facts.title if facts is not None and facts.title else posixpath.basename(rel))}
    lines = nav.lines(nav.index.path)
    text = "\n".join(lines) + ("\n" if lines else "")
    try:
        _action, new_text = edit_index_text(text, "doc", doc_id, item, nav.index.shown)
    except MdmarkError:
        return None
    whole = Span(nav.index.path, 1, 0, 0)
    return Fix(f"索引に `{rel}` を ID `{doc_id}` で足す", (Edit(Span(whole.path, 1, 0, 0), WHOLE + new_text),))


def _yaml_scalar(text: str) -> str:
    import yaml

    dumped = yaml.safe_dump(text, allow_unicode=True, default_flow_style=True, width=2**30).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()
