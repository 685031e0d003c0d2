"""Located diagnostics: every drift or schema problem has a kind, a file, a place and one sentence."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

#: Every drift kind ``check`` can report, in the order of design.md section 4.
DRIFT_KINDS: tuple[str, ...] = (
    "config_key",
    "config_value",
    "index_schema",
    "duplicate_id",
    "missing_doc",
    "unindexed_doc",
    "title_mismatch",
    "unknown_doc",
    "one_sided_change_together",
    "duplicate_relation",
    "unknown_tag",
    "deprecated_tag",
    "alias_conflict",
    "broken_link",
    "broken_anchor",
    "missing_image",
    "syntax",
    "missed_change_together",
)

DriftKind = Literal[
    "config_key",
    "config_value",
    "index_schema",
    "duplicate_id",
    "missing_doc",
    "unindexed_doc",
    "title_mismatch",
    "unknown_doc",
    "one_sided_change_together",
    "duplicate_relation",
    "unknown_tag",
    "deprecated_tag",
    "alias_conflict",
    "broken_link",
    "broken_anchor",
    "missing_image",
    "syntax",
    "missed_change_together",
]


@dataclass(frozen=True)
class Diagnostic:
    """One drift. ``file`` is relative to the config folder (POSIX separators); ``where`` is a YAML
    key path (``docs[1].path``), a Markdown line number as a string, or ``""``.

    ``line`` is the 1-based source line when known (YAML key or Markdown line); it is not part of
    the MCP shape but lets the CLI's github format and the Sphinx extension point at the line.
    """

    file: str
    where: str
    kind: str
    message: str
    line: int | None = None

    def as_dict(self) -> dict[str, str]:
        """The MCP/JSON shape: exactly ``file``, ``where``, ``kind``, ``message``."""
        data = asdict(self)
        del data["line"]
        return data
