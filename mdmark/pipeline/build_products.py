"""Images an extension wrote while reading (myst-nb's notebook outputs) embedded before their folder goes."""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes

from mdmark.pipeline.elements import given
from mdmark.pipeline.link_kinds import SCHEME

#: What a build product may weigh to be embedded at reading (as the page embeds images).
MAX_PRODUCT_BYTES = 20 * 1024 * 1024


def embed_build_products(doctree: nodes.document, srcdir: Path, build_dir: Path, elements: list[nodes.Element] | None = None) -> None:
    """Images an extension wrote into the application's own build folder while reading (myst-nb's
    ``jupyter_execute/`` outputs of a notebook, glue) are build products, not the project's files:
    embedded here as ``data:`` URIs, while the file exists, instead of being refused as "outside the
    project root" later (the folder is a temporary one, gone once the worker ends)."""
    import base64

    from mdmark.util import door
    from mdmark.util.imagekind import image_mime

    try:
        root = build_dir.resolve()
    except OSError:
        return
    for node in given(doctree, elements):
        if not isinstance(node, nodes.image):
            continue
        uri = str(node.get("uri") or "")
        if not uri or SCHEME.match(uri) or uri.startswith("//"):
            continue
        file = Path(os.path.normpath(srcdir / uri.lstrip("/")))
        try:
            file.resolve().relative_to(root)
        except (ValueError, OSError, RuntimeError):
            continue
        try:
            data = door.read(file, root, "画像", file.name, MAX_PRODUCT_BYTES)
        except door.Refused:
            continue
        mime = image_mime(data)
        if mime is None:
            continue
        node["uri"] = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        node["candidates"] = {"*": node["uri"]}
        node.attributes.pop("original_uri", None)
