"""``mdmark export`` / the MCP tool ``export_html``: one Markdown document → one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mdmark.confine import OUTSIDE_WARNING
from mdmark.errors import MdmarkError
from mdmark.files import display, read_text
from mdmark.project import Project


def _shown(path: Path, project: Project) -> str:
    return display(path, project.start)


def format_note(file: str, line: int | None, message: str) -> str:
    """A warning as the CLI prints it and the MCP tool returns it: ``{file}:{line}: {sentence}``."""
    return f"{file}:{line}: {message}" if line else f"{file}: {message}"


def document_warnings(file: str, facts: Any, notes: list[Any]) -> list[str]:
    """A document's warnings in line order: MyST/docutils ones and the writer's ``notes``."""
    found: list[tuple[int, str]] = [
        (w.line or 0, f"記法の警告（{w.message.rstrip('.')}）が出たので、その行の書き方を直してください。")
        for w in facts.syntax_warnings
    ]
    # Files refused for lying outside the project root (mdmark.confine): already one sentence.
    found += [(w.line or 0, w.message) for w in facts.warnings if w.type == OUTSIDE_WARNING]
    found += [(n.line or 0, n.message) for n in notes]
    found.sort(key=lambda item: item[0])
    return [format_note(file, line or None, message) for line, message in found]


def export_html(start: Path, file: str, out: str | None = None, config: str | None = None) -> dict[str, Any]:
    """Write ``file`` as one HTML page that loads nothing; returns ``{"out", "warnings"}``."""
    from mdmark.html.links import DocTargets, ExportLinks, fill
    from mdmark.html.page import check_out_path, css_warnings, page, stylesheet, write_page
    from mdmark.html.render import render_document

    project = Project.for_export(start, config)
    project.config.require("markdown", "html")
    source = project.resolve_arg(file)
    shown_source = _shown(source, project)
    if not source.exists():
        raise MdmarkError(f"`{shown_source}` が見つからないので、書き出す Markdown のパスを確かめてください。")
    if not source.is_file():
        raise MdmarkError(f"`{shown_source}` はファイルではないので、Markdown のファイルを指定してください。")
    if source.suffix.lower() != ".md":
        raise MdmarkError(f"`{shown_source}` は Markdown（.md）のファイルではないので、.md のファイルを指定してください。")
    try:
        read_text(source, shown_source)
    except OSError as exc:
        raise MdmarkError(f"`{shown_source}` を読めない（{exc.strerror}）ので、ファイルの権限を確かめてください。") from None

    target = project.resolve_arg(out) if out is not None else source.with_suffix(".html")
    target = target.absolute()
    shown_out = _shown(target, project)
    project.ensure_writable_target(target)
    check_out_path(target, shown_out)

    pipeline = project.pipeline
    facts = pipeline.facts(source)
    rel = pipeline.relpath(source)
    docname = rel[: -len(".md")]
    lang = project.config.html.lang
    fragment = render_document(pipeline, source, facts.sha, lang)
    own = DocTargets.from_facts(docname, facts, fragment.html)
    known: dict[str, DocTargets | None] = {}

    def targets_of(other: str) -> DocTargets | None:
        if other not in known:
            found = pipeline.facts_many([pipeline.srcdir / f"{other}.md"])[0]
            known[other] = None if found.error else DocTargets.from_facts(other, found)
        return known[other]

    body, link_notes = fill(fragment, ExportLinks(docname, pipeline.srcdir, target, own, targets_of))
    warnings = css_warnings(project.config) + document_warnings(shown_source, facts, [*fragment.notes, *link_notes])
    title = facts.title or source.stem
    html = page(
        mode="export",
        lang=lang,
        title=title,
        css=stylesheet(project.config),
        body=f'<article class="mdmark-doc">\n{body}</article>\n',
    )
    write_page(target, html, shown_out)
    return {"out": str(target.resolve()), "warnings": warnings}
