"""``mdmark check``: the drift list as text lines, the MCP JSON, GitHub workflow annotations or a SARIF log."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from mdmark.check.collect import collect
from mdmark.cli.commands.progress import progress_line
from mdmark.core.diagnostics import Diagnostic
from mdmark.core.errors import MdmarkError
from mdmark.project.main import Project
from mdmark.util.files import display
from mdmark.util.text import terminal_safe

if TYPE_CHECKING:
    # Only the github and sarif formats place the drifts (the text check, a pre-commit hook's,
    # does not import them before it answers).
    from mdmark.queries.navigation.navigator import Span


def _escape_data(text: str) -> str:
    # GitHub workflow commands: the message part escapes %, CR and LF.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(diag: Diagnostic, root: Path, workspace: Path, span: Span | None = None) -> str:
    """``::warning file=…,line=…,col=…,endColumn=…,title=…::message`` with the file relative to the
    workspace (repository); ``span``: where the drift is written (the reference's own line and
    columns, :func:`~mdmark.queries.navigation.places.drift_span`), else the drift's line."""
    file = display(root / diag.file, workspace)
    props = [f"file={_escape_property(file)}"]
    if span is not None:
        props.append(f"line={span.line}")
        if span.end > span.start:
            props += [f"col={span.start + 1}", f"endColumn={span.end + 1}"]
    elif diag.line is not None:
        props.append(f"line={diag.line}")
    props.append(f"title={_escape_property(f'mdmark {diag.kind}')}")
    where = f"{diag.where}: " if diag.where and diag.line is None else ""
    return f"::warning {','.join(props)}::{_escape_data(where + diag.message)}"


def github_error_line(exc: MdmarkError, workspace: Path) -> str:
    """``::error file=…,line=…,col=…,title=…::sentence`` for a failure that stops the check (exit 2)."""
    props = []
    if exc.file is not None:
        props.append(f"file={_escape_property(display(Path(exc.file), workspace))}")
        if exc.line is not None:
            props.append(f"line={exc.line}")
            if exc.column is not None:
                props.append(f"col={exc.column}")
    props.append(f"title={_escape_property('mdmark check')}")
    return f"::error {','.join(props)}::{_escape_data(exc.message)}"


def _prepare(project: Project) -> None:
    """Start the worker pool's zygote now (a document will be read): imported here, as a check
    answered from its stored result uses no worker."""
    from mdmark.pipeline.pool import prepare

    prepare(project.pipeline)


def run(args: argparse.Namespace) -> int:
    start = Path.cwd()
    # GitHub resolves annotation paths against the checked-out repository.
    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or start)
    try:
        project = Project.open(start, args.config)
        with progress_line("文書を読んでいます", enabled=args.format == "text") as progress:
            diagnostics = collect(project, base=args.base, progress=progress, reading=lambda: _prepare(project))
    except MdmarkError as exc:
        if args.format == "github":
            # Without an annotation a CI run that could not check shows nothing in the pull request.
            print(github_error_line(exc, workspace))
        elif args.format == "sarif":
            from mdmark.cli.commands.sarif import sarif_failure

            print(json.dumps(sarif_failure(exc, workspace), ensure_ascii=False, indent=2))
        raise
    if args.format == "json":
        print(terminal_safe(json.dumps({"issues": [d.as_dict() for d in diagnostics]}, ensure_ascii=False, indent=2), True))
    elif args.format == "github":
        from mdmark.queries.navigation.places import drift_spans

        for diag, span in zip(diagnostics, drift_spans(project, diagnostics), strict=True):
            print(github_line(diag, project.root, workspace, span))
    elif args.format == "sarif":
        from mdmark.cli.commands.sarif import sarif_log
        from mdmark.queries.navigation.places import drift_spans

        spans = drift_spans(project, diagnostics)
        print(json.dumps(sarif_log(diagnostics, project.root, workspace, spans), ensure_ascii=False, indent=2))
    else:
        for diag in diagnostics:
            print(terminal_safe(diag.text_line()))
    if args.format != "json":
        if diagnostics:
            print(f"ずれが {len(diagnostics)} 件見つかりました。", file=sys.stderr)
        else:
            print("ずれは見つかりませんでした。", file=sys.stderr)
    return 1 if diagnostics else 0
