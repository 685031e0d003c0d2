"""Sphinx's ``toctree`` directive, keeping every entry as written with its source line.

Sphinx drops an entry that names no document (after a ``toc.not_readable`` warning) and expands
globs against the documents it found at that moment. mdmark caches a document's parse, so both
must be decided when the parse is used, against the documents that exist then: the entries as
written go into the node (``mdmark_entries``), and :mod:`mdmark.toctree` resolves them.
"""

from __future__ import annotations

from sphinx import addnodes
from sphinx.directives.other import TocTree


class RecordingTocTree(TocTree):
    def parse_content(self, toctree: addnodes.toctree) -> None:
        toctree["mdmark_entries"] = [entry.strip() for entry in self.content if entry.strip()]
        toctree["mdmark_reversed"] = "reversed" in self.options
        name = self.options.get("name")
        toctree["mdmark_name"] = str(name) if name else None
        super().parse_content(toctree)
