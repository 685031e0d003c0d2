"""``mdmark check --format sarif``: the drift list as a SARIF 2.1.0 log (code-scanning annotations).

One run, tool ``mdmark`` with one rule per drift kind (its id is the kind, its description the
sentence ``mdmark check --help`` shows); one result per drift with the kind as ``ruleId``, the
Japanese sentence as the message, the file relative to the workspace (``GITHUB_WORKSPACE`` or the
current folder, as ``--format github``) under the base id ``%SRCROOT%`` (no machine path: the
consumer, code scanning, roots it at the checkout), the line and columns of what the drift is
about (a reference's own target as written) when known, and the YAML key path as a logical location. A check that cannot run (exit 2) is a run with no results
whose invocation failed, carrying the sentence as an error notification, so a CI upload still shows why.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mdmark import __version__
from mdmark.core.diagnostics import Diagnostic, DriftKind
from mdmark.core.errors import MdmarkError
from mdmark.queries.navigation.navigator import Span
from mdmark.util.files import display

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
BASE_ID = "%SRCROOT%"


def _uri(path: Path, workspace: Path) -> str:
    return urllib.parse.quote(display(path, workspace).replace("\\", "/"), safe="/")


def _location(
    file: Path, workspace: Path, line: int | None, column: int | None = None, end_column: int | None = None
) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(file, workspace), "uriBaseId": BASE_ID}}
    if line is not None and line >= 1:
        region: dict[str, Any] = {"startLine": line}
        if column is not None and column >= 1:
            region["startColumn"] = column
            if end_column is not None and end_column > column:
                region["endColumn"] = end_column
        physical["region"] = region
    return {"physicalLocation": physical}


def _run(workspace: Path) -> dict[str, Any]:
    rules = [
        {
            "id": kind.value,
            "name": "".join(part.capitalize() for part in kind.value.split("_")),
            "shortDescription": {"text": kind.description},
            "defaultConfiguration": {"level": "warning"},
        }
        for kind in DriftKind
    ]
    # The base carries no uri: an absolute one would be the path of the machine that ran the check.
    base = {"description": {"text": "点検したリポジトリ（GITHUB_WORKSPACE か、mdmark を実行したフォルダ）"}}
    return {
        "tool": {"driver": {"name": "mdmark", "version": __version__, "semanticVersion": __version__, "rules": rules}},
        "originalUriBaseIds": {BASE_ID: base},
        "columnKind": "unicodeCodePoints",
    }


def sarif_log(
    diagnostics: Sequence[Diagnostic], root: Path, workspace: Path, spans: Sequence[Span | None] | None = None
) -> dict[str, Any]:
    """The SARIF log of a finished check: ``root`` is the config folder (diagnostic files are
    relative to it), ``workspace`` the folder result URIs are relative to; ``spans``: where each
    drift is written (:func:`~mdmark.queries.navigation.places.drift_spans`), else its line."""
    order = {kind: i for i, kind in enumerate(DriftKind)}
    results = []
    for diag, span in zip(diagnostics, spans if spans is not None else [None] * len(diagnostics), strict=True):
        if span is not None and span.end > span.start:
            location = _location(root / diag.file, workspace, span.line, span.start + 1, span.end + 1)
        else:
            location = _location(root / diag.file, workspace, span.line if span is not None else diag.line)
        if diag.where and not diag.where.isdigit():
            location["logicalLocations"] = [{"fullyQualifiedName": diag.where, "kind": "member"}]
        results.append(
            {
                "ruleId": diag.kind.value,
                "ruleIndex": order[diag.kind],
                "level": "warning",
                "message": {"text": diag.message},
                "locations": [location],
            }
        )
    run = _run(workspace)
    run["invocations"] = [{"executionSuccessful": True}]
    run["results"] = results
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def sarif_failure(exc: MdmarkError, workspace: Path) -> dict[str, Any]:
    """The SARIF log of a check that could not run: no results, the sentence as the failed invocation's notification."""
    notification: dict[str, Any] = {"level": "error", "message": {"text": exc.message}}
    if exc.file is not None:
        notification["locations"] = [_location(Path(exc.file), workspace, exc.line, exc.column)]
    run = _run(workspace)
    run["invocations"] = [{"executionSuccessful": False, "toolExecutionNotifications": [notification]}]
    run["results"] = []
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
