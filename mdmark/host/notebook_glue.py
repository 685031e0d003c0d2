"""myst-nb's cross-notebook glue (``{glue}`other.ipynb::key```, the ``glue`` directive's ``:doc:``),
read as Sphinx reads it.

While reading a notebook myst-nb writes the outputs glued in it to ``<docname>.glue.json`` in its
output folder; a reference to another notebook's key is a ``PendingGlueReference`` node that a
post-transform (``myst_nb.ext.glue.crossref.ReplacePendingGlueReferences``) replaces, at writing,
from that file. mdmark reads each document apart (a worker's output folder holds only what it
read), so the outputs travel in the notebook's facts (:func:`glue_outputs`) and the reference is
replaced from them before the HTML is written (:func:`replace_pending`), with the nodes myst-nb's
post-transform makes (images as ``data:`` URIs, since the page embeds them).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes

#: The mime types myst-nb's post-transform renders (``generate_any_nodes``); the facts keep these only.
TEXT = "text/plain"
HTML = "text/html"
IMAGES = ("image/png", "image/jpeg", "image/gif")
KEPT = (TEXT, HTML, *IMAGES)

#: What one glued output may weigh to travel in the facts (the page embeds images up to as much).
MAX_GLUE_BYTES = 20 * 1024 * 1024


@dataclass(frozen=True)
class PendingGlue:
    """A reference to a key glued in another document, as myst-nb's role or directive left it."""

    node: nodes.Element
    #: The document it names (its docname, as ``env.path2doc`` gave it).
    doc: str
    key: str
    inline: bool
    #: ``"text"`` for ``{glue:text}`` (formatted ``text/plain``), else None (the best mime type).
    gtype: str | None
    fmt_spec: str


def pending_glue(elements: list[nodes.Element]) -> Iterator[PendingGlue]:
    """The cross-document glue references among ``elements`` (none unless myst-nb made them)."""
    for node in elements:
        if type(node).__name__ != "PendingGlueReference" or not type(node).__module__.startswith("myst_nb."):
            continue
        yield PendingGlue(
            node,
            str(node.get("refdoc") or ""),
            str(node.get("key") or ""),
            bool(node.get("inline", False)),
            node.get("gtype"),
            str(node.get("fmt_spec", "s")),
        )


def glue_outputs(env: Any, docname: str) -> dict[str, dict[str, str]]:
    """The outputs glued in ``docname`` as myst-nb wrote them while reading it (key → mime type →
    data, the mime types of :data:`KEPT`), {} when myst-nb does not run or glued nothing."""
    config = getattr(env, "mystnb_config", None)
    folder = getattr(config, "output_folder", None)
    # The keys myst-nb recorded for this very read: a file left by an earlier read of the document
    # (which glued then) is not this read's.
    keys = (getattr(env, "nb_metadata", None) or {}).get(docname, {}).get("glue")
    if not folder or not keys:
        return {}
    from mdmark.util import door

    *parts, last = docname.split("/")
    path = Path(folder).joinpath(*parts, f"{last}.glue.json")
    try:
        # The application's own build folder (myst-nb's output folder is in it), as build products are read.
        data = json.loads(door.read(path, Path(folder), "glue", path.name, 8 * MAX_GLUE_BYTES))
    except (door.Refused, ValueError):
        return {}
    found: dict[str, dict[str, str]] = {}
    for key, output in data.items() if isinstance(data, dict) else ():
        if key not in keys:
            continue
        bundle = output.get("data") if isinstance(output, dict) else None
        if not isinstance(bundle, dict):
            continue
        found[str(key)] = {
            mime: value
            for mime, value in bundle.items()
            if mime in KEPT and isinstance(value, str) and len(value) <= MAX_GLUE_BYTES
        }
    return found


def mime_priority(config: Any) -> list[str]:
    """myst-nb's mime types for the HTML builder, best first (``nb_mime_priority_overrides`` applied)."""
    from myst_nb.core.render import get_mime_priority

    return list(get_mime_priority("html", getattr(config, "nb_mime_priority_overrides", ()) or ()))


def glued_nodes(ref: PendingGlue, bundle: Mapping[str, str], priority: list[str]) -> list[nodes.Element] | str:
    """The nodes myst-nb's post-transform puts in place of ``ref`` for the glued ``bundle``, or its
    reason (English, the library's words) when it puts none."""
    if ref.gtype == "text":
        if TEXT not in bundle:
            return f"No text/plain found in {ref.key!r}"
        from myst_nb.core.variables import format_plain_text

        try:
            text = format_plain_text(bundle[TEXT], ref.fmt_spec)
        except Exception as exc:  # noqa: BLE001 - myst-nb reports any formatting failure the same way
            return f"Failed to format text/plain: {exc}"
        return [nodes.inline(text, text, classes=["pasted-text"])]
    for mime in priority:
        if mime not in bundle:
            continue
        value = bundle[mime]
        if mime == TEXT:
            return [nodes.literal(value, value)] if ref.inline else [nodes.literal_block(value, value)]
        if mime == HTML:
            return [nodes.raw(text=value, format="html", classes=["output", "text_html"])]
        if mime in IMAGES:
            uri = f"data:{mime};base64,{''.join(value.split())}"
            # Sphinx's alt is the image file's name (a hash); the data itself would double the page.
            return [nodes.image(uri=uri, candidates={"*": uri}, alt=ref.key)]
    return f"No allowed mime type found in {ref.key!r}: {list(bundle)}"


def replace_pending(
    elements: list[nodes.Element],
    outputs_of: Callable[[str], Mapping[str, Mapping[str, str]] | None],
    priority: list[str],
    unresolved: Callable[[PendingGlue], nodes.Node],
) -> None:
    """Each cross-document glue reference replaced as myst-nb's post-transform replaces it: by the
    nodes of the glued output of the document it names (``outputs_of(doc)``), else by what
    ``unresolved`` gives (a visible marker; the sentence is the reference's problem in the facts)."""
    for ref in list(pending_glue(elements)):
        outputs = outputs_of(ref.doc)
        bundle = outputs.get(ref.key) if outputs is not None else None
        made = glued_nodes(ref, bundle, priority) if bundle is not None else None
        if isinstance(made, list) and made:
            for node in made:
                node.source, node.line = ref.node.source, ref.node.line
            ref.node.replace_self(made)
        else:
            ref.node.replace_self(unresolved(ref))
