"""missed_change_together (with ``--base`` only): one side of a change_together pair changed, the other did not.

See :mod:`mdmark.util.gitbase` for what counts as changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.util.globs import glob_match
from mdmark.check.rules.context import CheckContext
from mdmark.util.text import quote_list


def missed_change_together(ctx: CheckContext) -> Iterator[Diagnostic]:
    index = ctx.index
    assert index is not None
    if ctx.changed is None:
        return
    # Relative to the index file, as `paths` globs are.
    changed_rel = sorted((Path(os.path.relpath(p, index.folder)).as_posix(), p) for p in ctx.changed)
    resolved_changed = {p.resolve() for p in ctx.changed}
    done: set[frozenset[str]] = set()
    for doc in index.docs:
        for rel in doc.related:
            if rel.type != "change_together" or rel.to == doc.id:
                continue
            other = index.doc(rel.to)
            pair = frozenset((doc.id, rel.to))
            if other is None or pair in done:
                continue
            done.add(pair)
            back_paths = [g for r in other.related if r.to == doc.id and r.type == "change_together" for g in r.paths]
            patterns = list(dict.fromkeys((*rel.paths, *back_paths)))
            sides = [(d, ctx.doc_file(d)) for d in (doc, other)]
            changed_sides = [(d, p) for d, p in sides if p in resolved_changed]
            unchanged = [(d, p) for d, p in sides if p not in resolved_changed]
            changed_paths = [name for name, _ in changed_rel if any(glob_match(name, g) for g in patterns)]
            if not unchanged or not (changed_sides or changed_paths):
                continue
            if changed_sides:
                what = quote_list(d.path for d, _ in changed_sides)
            else:
                more = f" ほか {len(changed_paths) - 1} 件" if len(changed_paths) > 1 else ""
                what = f"paths に当たる `{changed_paths[0]}`{more}"
            stale = quote_list(d.path for d, _ in unchanged)
            yield ctx.in_index(
                rel.where,
                DriftKind.MISSED_CHANGE_TOGETHER,
                f"基準 `{ctx.base}` から {what} は変わったのに、change_together の組の {stale} は変わっていないので、{stale} も合わせて直してください。",
            )
