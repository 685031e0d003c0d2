"""``mdmark export`` / the MCP tool ``export_html``: one Markdown document → one self-contained HTML file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.core.errors import MdmarkError
from mdmark.util import door
from mdmark.util.files import display
from mdmark.util.sentences import not_markdown
from mdmark.pipeline.pipeline import docname_of
from mdmark.project.main import Project

if TYPE_CHECKING:
    from mdmark.core.facts import DocFacts
    from mdmark.html.doctree import Note
    from mdmark.references.main import Model


def _shown(path: Path, project: Project) -> str:
    return display(path, project.start)


def format_note(file: str, line: int | None, message: str) -> str:
    """A warning as the CLI prints it and the MCP tool returns it: ``{file}:{line}: {sentence}``."""
    return f"{file}:{line}: {message}" if line else f"{file}: {message}"


def unreadable_note(file: str, facts: DocFacts) -> str:
    """Why a document cannot be read, at its line when it has one (its sentence names the
    document already)."""
    return format_note(file, facts.error_line, facts.error or "") if facts.error_line else facts.error or ""


def page_language(project: Project) -> str:
    """The language of a page of ``project`` (``<html lang>`` and its fixed labels: Note or 注釈):
    conf.py's ``language`` in a Sphinx project (``sphinx.conf``), as ``sphinx-build`` writes it;
    otherwise ``html.lang``."""
    if project.config.sphinx_conf is not None:
        return project.conf_info().language.replace("_", "-")  # Sphinx's zh_CN is HTML's zh-CN
    return project.config.html.lang


def document_warnings(file: str, facts: DocFacts, notes: list[Note], model: Model) -> list[str]:
    """A document's warnings in line order: its broken references, toctree entries and MyST/docutils
    warnings (the sentences ``check`` reports at the same lines) and the writer's ``notes``."""
    from mdmark.references.lookup import UNPLACED
    from mdmark.references.problems import document_problems

    docname = docname_of(facts.path)
    found: list[tuple[int, str]] = [
        (0 if p.file == UNPLACED else line or 0, p.message) for line, p in document_problems(facts, model, docname)
    ]
    found += [(n.line or 0, n.message) for n in notes]
    found.sort(key=lambda item: item[0])
    return [format_note(file, line or None, message) for line, message in found]


def ensure_confined_out(project: Project, target: Path, shown_out: str) -> None:
    """The MCP tool's output rule (design §9): inside ``project_dir`` or the config folder.

    The config folder counts only when it is the project's: it holds ``project_dir`` or lies in it.
    A config folder that came from elsewhere — the defaults rooted at a document outside
    ``project_dir``, or a ``config`` naming another folder's file — would let the tool write beside
    any file the caller names, so there only ``project_dir`` counts."""
    from mdmark.util.roots import inside

    start, root = project.start.resolve(), project.root.resolve()
    projects = project.config.path is not None and (inside(start, root) or inside(root, start))
    if projects:
        project.ensure_writable_target(target)
    elif not inside(target, start):
        raise MdmarkError(
            f"出力先 `{shown_out}` は作業のフォルダ（project_dir）の外なので、作業のフォルダの中の .html のパスを out に指定してください。"
        )


def export_html(
    start: Path,
    file: str,
    out: str | None = None,
    config: str | None = None,
    confined: bool = True,
    write: Callable[[Path, str, str], None] | None = None,
) -> dict[str, Any]:
    """Write ``file`` as one HTML page that loads nothing; returns ``{"out", "warnings"}``.

    ``write(out, text, shown_out)`` replaces the writing of the page (``mdmark preview``).

    ``confined``: the output must lie inside ``start`` or the config folder (the MCP tool); the CLI
    passes False, because it writes where its user says (design §9). A non-HTML file is never
    overwritten either way.
    """
    from mdmark.html.links import ExportLinks, fill
    from mdmark.html.page import check_out_path, copy_scripts, css_warnings, mermaid_scripts, page_chunks, stylesheet, write_page
    from mdmark.graph.views import export_aside
    from mdmark.html.render import render_document
    from mdmark.references.problems import trust_notice

    project = Project.for_export(start, config, file)
    project.config.require("markdown", "html")
    source = project.resolve_arg(file)
    shown_source = _shown(source, project)
    if not source.exists():
        raise MdmarkError(f"`{shown_source}` が見つからないので、書き出す Markdown のパスを確かめてください。")
    if not source.is_file():
        raise MdmarkError(f"`{shown_source}` はファイルではないので、Markdown のファイルを指定してください。")
    if source.suffix.lower() != ".md":
        raise MdmarkError(not_markdown(shown_source))
    door.read_text(source, project.pipeline.project_root, "文書", shown_source)

    target = project.resolve_arg(out) if out is not None else source.with_suffix(".html")
    target = target.absolute()
    shown_out = _shown(target, project)
    if confined:
        ensure_confined_out(project, target, shown_out)
    check_out_path(target, shown_out)

    pipeline = project.pipeline
    facts = pipeline.facts_many([source])[0]
    if facts.error is not None:
        # At its place, as check and build report it.
        raise MdmarkError(unreadable_note(shown_source, facts), file=str(source), line=facts.error_line)
    rel = pipeline.relpath(source)
    docname = docname_of(rel)
    lang = page_language(project)
    fragment = render_document(pipeline, source, facts, lang)
    model = project.reference_model(project.facts_for, {source.resolve(): facts}, [source], whole=project.config.path is not None)
    body, link_notes = fill(fragment, ExportLinks(model, docname, pipeline.srcdir, target), facts.toctrees)
    warnings = css_warnings(project.config) + document_warnings(shown_source, facts, [*fragment.notes, *link_notes], model)
    notice = trust_notice(project.config, model, [facts])
    if notice is not None:  # held extensions' blocks were kept as written: said, never dropped silently
        warnings.append(format_note(project.config.shown, None, notice))
    title = facts.title or source.stem
    chunks = page_chunks(
        mode="export",
        lang=lang,
        title=title,
        css=stylesheet(project.config),
        body=['<article class="mdmark-doc">\n', body, "</article>\n", export_aside(project, source, target)],
        scripts=[*mermaid_scripts([body]), *copy_scripts([body])],
    )
    if write is None:
        write_page(target, chunks, shown_out)
    else:
        write(target, "".join(chunks), shown_out)
    return {"out": str(target.resolve()), "warnings": warnings}
