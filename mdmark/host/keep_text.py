"""Text that MyST drops with a warning, put back: the content of a role MyST does not know.

For ``A {nosuch}`word` here`` MyST logs "Unknown interpreted text role" and leaves only a system
message in the paragraph, which Sphinx removes before writing: the page would silently lose
``word`` (and a paragraph that is only the role becomes ``<p></p>``). The warning still reaches the
user (check's syntax drift, export's and build's warnings); this transform keeps the words, as a
``<span class="mdmark-unknown-role">``, read back from the source line the message names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_UNKNOWN = re.compile(r'Unknown interpreted text role "(?P<name>[^"]+)"')


def role_texts(line: str, name: str) -> list[str]:
    """The contents of every ``{name}`text``` on a source line, in order."""
    pattern = re.compile(r"\{" + re.escape(name) + r"\}(?P<ticks>`+)(?P<text>.*?)(?P=ticks)")
    return [m.group("text").strip() for m in pattern.finditer(line)]


def transform_class() -> type[Any]:
    from docutils import nodes
    from sphinx.transforms import SphinxTransform

    class KeepUnknownRoleText(SphinxTransform):
        # Before Sphinx's FilterSystemMessages (999) removes the messages that mark the places.
        default_priority = 998

        def apply(self, **kwargs: Any) -> None:
            sources: dict[str, list[str]] = {}
            taken: dict[tuple[str, int, str], int] = {}
            for message in list(self.document.findall(nodes.system_message)):
                found = _UNKNOWN.search(message.astext())
                line = message.get("line")
                parent = message.parent
                if found is None or not isinstance(line, int) or parent is None:
                    continue
                source = str(message.get("source") or self.document.get("source") or "")
                lines = sources.get(source)
                if lines is None:
                    lines = sources[source] = _read_lines(source, self.env)
                if not 0 < line <= len(lines):
                    continue
                name = found.group("name")
                texts = role_texts(lines[line - 1], name)
                key = (source, line, name)
                index = taken.get(key, 0)
                if index >= len(texts):
                    continue
                taken[key] = index + 1
                kept = nodes.inline(texts[index], texts[index], classes=["mdmark-unknown-role"])
                parent.insert(parent.index(message), kept)

    return KeepUnknownRoleText


def _read_lines(source: str, env: Any) -> list[str]:
    """The lines of the document (or included file) a message names, through the door."""
    from mdmark.core.errors import MdmarkError
    from mdmark.host.confine import confined_root
    from mdmark.util import door

    try:
        return door.read_text(Path(source), confined_root(env), "文書", source).splitlines()
    except (MdmarkError, ValueError):
        return []
