"""``mdmark build`` / the MCP tool ``build_site``: the config's ``build`` documents → one navigable HTML page.

Documents come in index order, then by path. Each document's ids are prefixed with its own
:func:`~mdmark.html.links.doc_id`, so every id in the page is unique, and links between documents
become in-page anchors that land in the right document. Broken references are warnings with the
file and line; the page is still written.
"""

from __future__ import annotations

import dataclasses
import functools
import html as htmllib
import os
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mdmark.builders.export import document_warnings, format_note, page_language, unreadable_note
from mdmark.core.errors import MdmarkError
from mdmark.core.facts import DocFacts
from mdmark.pipeline.pipeline import Pipeline, docname_of
from mdmark.pipeline.workers import parallel
from mdmark.project.main import ModelLayout, Project
from mdmark.util.files import display, resolve_many, resolved_many, shown_under
from mdmark.util.globs import match_files
from mdmark.util.text import quote_list

if TYPE_CHECKING:
    from mdmark.builders.sections import PageSections
    from mdmark.config.main import BuildSettings
    from mdmark.html.render import Fragment
    from mdmark.index.model import Index
    from mdmark.references.main import Model
    from mdmark.workspace.main import StampedFacts


def _ordered(
    files: list[Path], real: dict[Path, Path], srcdir: Path, model: Model, index_files: list[Path], others: Mapping[str, Path]
) -> list[Path]:
    """The page's order (the guide page ``build``): when the root document (conf.py ``root_doc``, else
    ``index.md``) is among the files or is one of the project's other sources (``index.rst``) and
    holds a toctree, the toctree tree depth-first as Sphinx's ``singlehtml`` (the rST documents it
    reaches are in the page too); then the documents of the index in index order, then the other
    files by path.

    ``real``: the resolved path of each of ``files``; ``index_files``: the index's documents'
    files (:meth:`~mdmark.index.model.Index.doc_files`), none without an index; ``others``: the
    project's sources of other suffixes by docname (:func:`_other_sources`)."""
    by_doc: dict[str, Path] = {}
    # Path.relative_to, as text (a thousand documents' paths are parsed on every rebuild otherwise).
    inside = str(srcdir).rstrip(os.sep) + os.sep
    for f in files:
        text = str(real[f])
        if text.startswith(inside):
            by_doc[text[len(inside) :].replace(os.sep, "/").removesuffix(".md")] = f
    ordered: list[Path] = []
    root = model.info.root_doc
    root_facts = model.facts(root) if root in by_doc or root in others else None
    if root_facts is not None and root_facts.toctrees:
        ordered = [by_doc.get(d) or others[d] for d in model.toctree_order(root) if d in by_doc or d in others]
    taken = {real[f] for f in ordered}
    wanted = {real[f]: f for f in files if real[f] not in taken}
    for doc_path in index_files:
        match = wanted.pop(doc_path, None)
        if match is not None:
            ordered.append(match)
    return ordered + [f for f in files if real[f] in wanted]


def _other_sources(layout: _Layout) -> dict[str, Path]:
    """The project's sources of other suffixes (a Sphinx project's ``.rst``) by docname: the root
    document's toctrees put those they reach in the page, as ``singlehtml`` does."""
    return {name: path for name, path in layout.model.files.items() if path.suffix != ".md"}


def _uncached(
    pipeline: Pipeline, stamped: StampedFacts, layout: _Layout, lang: str, settled: dict[Path, DocFacts]
) -> tuple[list[Path], dict[Path, tuple[str, Fragment]]]:
    """The documents whose fragment is not cached (unreadable ones too: the parse reports them),
    and the cached ones: path → (content key, fragment), so the page takes them without asking
    the cache again. The facts kept by stat go to ``settled`` (by resolved path): the reference
    model takes them from there without a second stat of every file."""
    from mdmark.html.render import fragment_cache, render_key

    cache = fragment_cache(pipeline)
    missing: list[Path] = []
    hits: dict[Path, tuple[str, Fragment]] = {}
    paths = layout.files
    last = layout.fragments
    srcdir = str(pipeline.srcdir)
    # A document whose file keeps its stat has the content key of the facts kept for it.
    kept = stamped.known(paths)
    for path, real, facts in zip(paths, layout.reals, kept, strict=True):
        if facts is not None:
            if real is not None:
                settled[real] = facts
            found = last.get(path)
            # The very facts of the last build, their included files just found unchanged: the
            # fragment found for them then (no cache key hashed, no inlined file stat'ed again).
            if found is not None and found[0] is facts and found[1] == lang:
                hits[path] = (found[2], found[3])
                continue
        try:
            key = facts.sha if facts is not None else pipeline.key_of(path, real)
        except (MdmarkError, OSError):
            missing.append(path)
            continue
        hit = cache.get(render_key(key, lang))
        # The kept facts' included files were just found unchanged: the same list needs no stat again.
        if hit is None or not ((facts is not None and hit.deps == facts.deps) or hit.fresh(pipeline.srcdir)):
            missing.append(path)
            continue
        hits[path] = (key, hit)
        if facts is not None and hit.deps != facts.deps:
            # The fragment may name an inlined file otherwise than the facts do (absolute or
            # relative): kept only when each of its files is one of the facts' (as the stat looks).
            own = {(os.path.join(srcdir, rel), stamp) for rel, stamp in facts.deps}
            if not all((os.path.join(srcdir, rel), stamp) in own for rel, stamp in hit.deps):
                last.pop(path, None)
                continue
        if facts is not None:
            last[path] = (facts, lang, key, hit)
    return missing, hits


def _facts_of(pipeline: Pipeline, ordered: list[Path], real: dict[Path, Path], known: dict[Path, DocFacts]) -> list[DocFacts]:
    """The facts of each document of the page: those the reference model fetched (``known``, by
    the source folder's path of each document), else parsed now."""
    by_path: dict[Path, DocFacts] | None = None
    out: list[DocFacts] = []
    for path in ordered:
        found = known.get(real[path])
        if found is None:
            if by_path is None:  # a document reached through a link: the model's paths resolved
                by_path = dict(zip(resolved_many(known), known.values(), strict=True))
            found = by_path.get(real[path])
        out.append(found or pipeline.facts_many([path])[0])
    return out


def _kept(project: Project, out: Path) -> PageSections:
    """What the workspace keeps of the page written to ``out`` between builds."""
    from mdmark.builders.sections import PageSections

    key = f"{project.config.path}\0{out}"
    found = project.workspace.page_sections.get(key)
    if isinstance(found, PageSections):
        return found
    made = PageSections()
    project.workspace.page_sections.put(key, made)
    return made


@dataclass(frozen=True)
class _Layout:
    """What a build decides from paths alone: the page's files, their resolved paths and which
    documents the reference model holds. Kept in the workspace and reused while the project's
    :class:`~mdmark.workspace.main.FileTree` is unchanged (and the settings and conf.py's configuration
    are the same), so a rebuild after a save walks no folder and resolves no path again."""

    key: Hashable
    info: object
    files: list[Path]
    reals: list[Path | None]
    model: ModelLayout
    #: :meth:`real`, once made.
    resolved: dict[Path, Path] = field(default_factory=dict, compare=False)
    #: Each resolved file's names under the config folder and under a starting folder, and the
    #: opening tag of its section: by that folder.
    names: dict[Path, dict[Path, tuple[str, str, str]]] = field(default_factory=dict, compare=False)
    #: Each file's cached fragment found in the last build: (the facts kept by stat it was found
    #: for, the page's language, their content key, the fragment), when the fragment inlines no
    #: file but those facts'.
    fragments: dict[Path, tuple[DocFacts, str, str, Fragment]] = field(default_factory=dict, compare=False)

    def real(self) -> dict[Path, Path]:
        """Each file's resolved path (its absolute path when it does not resolve), made once."""
        if len(self.resolved) != len(self.files):
            self.resolved.update(
                (f, r if r is not None else Path(os.path.abspath(f))) for f, r in zip(self.files, self.reals, strict=True)
            )
        return self.resolved

    def names_under(self, root: Path, start: Path) -> dict[Path, tuple[str, str, str]]:
        """The memo of (:func:`shown_under` the config folder, the same under ``start``, the
        section's opening tag) by resolved path."""
        found = self.names.get(start)
        if found is None:
            self.names.clear()  # one starting folder kept: a server's calls come from one
            found = self.names[start] = {}
        return found


def _memo_key(project: Project, what: str) -> tuple[str, str, str]:
    return (what, str(project.config.path), str(project.root))


def _layout(project: Project, settings: BuildSettings) -> _Layout:
    """The build's :class:`_Layout`: the last build's while it holds, else found anew."""
    workspace = project.workspace
    tree = workspace.tree(project.root)
    version = tree.version()
    info = project.conf_info()
    key = (version, settings.include, settings.exclude, str(project.source_dir), project.config.sphinx_conf)
    last = workspace.last_runs.get(_memo_key(project, "build-layout"))
    if isinstance(last, _Layout) and version is not None and last.key == key and last.info == info:
        return last
    files = [p for p in match_files(project.root, settings.include, settings.exclude) if p.suffix.lower() == ".md"]
    if not files:
        patterns = quote_list(list(settings.include)) if settings.include else "（空）"
        raise MdmarkError(
            f"build の include {patterns} に当たる Markdown の文書が無いので、include のパターンを直してください。"
        )
    made = _Layout(key, info, files, resolve_many(files), project.model_layout(files))
    every = [*files, *made.model.files.values(), made.model.srcdir]
    if version is not None and all(tree.covers(os.path.abspath(p)) for p in every):
        # Every path lies in the tree: its version stands for all of them (a file added, removed
        # or renamed anywhere moves it). Otherwise the layout is found anew at every build.
        workspace.last_runs.put(_memo_key(project, "build-layout"), made)
    return made


def _index_files(project: Project, index: Index, layout: _Layout) -> list[Path]:
    """:meth:`~mdmark.index.model.Index.doc_files` (every path resolved): the last build's while the
    index model and the kept layout are the same and every file lies in the tree."""
    last = project.workspace.last_runs.get(_memo_key(project, "build-index-files"))
    if isinstance(last, tuple) and last[0] is index and last[1] is layout:
        return cast(list[Path], last[2])
    files = index.doc_files()
    tree = project.workspace.tree(project.root)
    kept = project.workspace.last_runs.get(_memo_key(project, "build-layout")) is layout
    if kept and all(tree.covers(os.path.abspath(p)) for p in files):
        project.workspace.last_runs.put(_memo_key(project, "build-index-files"), (index, layout, files))
    return files


def _same_order_part(before: DocFacts | None, now: DocFacts | None) -> bool:
    """Whether a document gives the page's order (:func:`_ordered`) the same: read or not, the same toctrees."""
    if before is None or before.error is not None or now is None or now.error is not None:
        return (before is None or before.error is not None) == (now is None or now.error is not None)
    return before.toctrees == now.toctrees


def _page_order(
    project: Project, layout: _Layout, model: Model, index_files: list[Path], make: Callable[[], list[Path]]
) -> list[Path]:
    """:func:`_ordered` (made by ``make``): the very list of the last build while the layout, the
    index's files and the model's inputs are the same and no document changed its toctrees."""
    key = _memo_key(project, "build-order")
    by_name = model.known if model.known is not None else {}
    inputs = model.inputs()
    last = project.workspace.last_runs.get(key)
    ordered: list[Path] | None = None
    if isinstance(last, tuple) and last[0] is layout and last[1] is index_files and last[2] == inputs:
        before: Mapping[str, DocFacts | None] = last[3]
        if all(_same_order_part(before.get(n), f) for n, f in by_name.items() if f is not before.get(n)):
            ordered = cast(list[Path], last[4])
    if ordered is None:
        ordered = make()
    project.workspace.last_runs.put(key, (layout, index_files, inputs, by_name, ordered))
    return ordered


def _model(project: Project, model: Model) -> Model:
    """``model`` with the figure numbers and toctree tables of the last build's model when it has
    the same inputs and no document changed what they are made of (:func:`~mdmark.references.main.global_part`)."""
    from mdmark.references.tracking import global_part

    by_name = model.known if model.known is not None else {}
    last = project.workspace.last_runs.get(_memo_key(project, "build-model"))
    if isinstance(last, tuple) and last[0] == model.inputs():
        before: Mapping[str, DocFacts | None] = last[1]
        changed = [n for n, facts in by_name.items() if facts is not before.get(n)]
        changed += [n for n in before if n not in by_name]
        if all(global_part(before.get(n)) == global_part(by_name.get(n)) for n in changed):
            model.adopt_tables(last[2])
    project.workspace.last_runs.put(_memo_key(project, "build-model"), (model.inputs(), by_name, model))
    return model


def build_site(
    start: Path,
    config: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    write: Callable[[Path, str, str], None] | None = None,
) -> dict[str, Any]:
    """Build the single page; returns ``{"out", "docs", "warnings"}``.

    ``write(out, text, shown_out)`` replaces the writing of the page (``mdmark preview`` serves
    the text instead of writing it); by default :func:`~mdmark.html.page.write_page`."""
    from mdmark.builders.sections import Finished, Recorder, fingerprint, whole_key
    from mdmark.html.links import BuildLinks, doc_id, fill, prefix_ids
    from mdmark.html.nav import NavDoc, heading_markup, navigation
    from mdmark.html.page import (
        check_out_path, css_warnings, mermaid_scripts, nav_markup, page_chunks, page_script, stylesheet, write_page,
    )  # fmt: skip
    from mdmark.html.render import render_document, render_parallel
    from mdmark.references.problems import trust_notice

    project = Project.open(start, config)
    cfg = project.config
    cfg.require("build", "markdown", "html")
    if cfg.build is None:
        raise MdmarkError(
            f"設定 `{cfg.shown}` に build が無いので、build に include（まとめる文書のパターン）と out（出力先）を書いてください。"
        )
    settings = cfg.build
    out = (project.root / settings.out).absolute()
    shown_out = display(out, project.start)
    project.ensure_writable_target(out)
    check_out_path(out, shown_out)
    project.restore_snapshot("build")  # the last run's workspace: after one edit, one document is read
    layout = _layout(project, settings)
    files = layout.files
    pipeline = project.pipeline
    lang = page_language(project)
    total = len(files)
    ready = 0

    def advance(count: int) -> None:
        nonlocal ready
        ready += count
        if progress:
            progress(ready, total)

    # A cold build parses and renders in worker processes (both cores for all of the work);
    # what is cached is only read, so a rebuild with one document changed renders one document.
    # A document is parsed and rendered in one trip to a worker (its facts come back with its
    # fragment), not parsed for the reference model and then parsed again to be rendered.
    others = _other_sources(layout)
    # The other sources' paths are the model's (under the source folder, as the facts are kept).
    real = {**layout.real(), **{p: p for p in others.values()}} if others else layout.real()
    stamped = project.workspace.stamped_facts(pipeline)
    known: dict[Path, DocFacts] = {}
    cold, cached = _uncached(pipeline, stamped, layout, lang, known)
    advance(total - len(cold))
    if cold:
        # The index is read (and its YAML parsed) while the workers parse: it is needed only after them.
        meanwhile = project.index if cfg.index is not None and parallel(len(cold)) else None
        render_parallel(pipeline, cold, lang, advance, meanwhile=meanwhile)
        cold = []
    # The documents' facts by their files' stats: what the check reads too (the same objects).
    model = project.model_from(layout.model, stamped.facts_many, known)
    index = project.index() if cfg.index is not None else None
    index_files = _index_files(project, index, layout) if index is not None else []
    ordered = _page_order(
        project, layout, model, index_files, lambda: _ordered(files, real, project.source_dir, model, index_files, others)
    )
    all_facts = _facts_of(pipeline, ordered, real, known)
    broken = [(path, f) for path, f in zip(ordered, all_facts, strict=True) if f.error]
    if broken:
        # Every document that cannot be read, at its place, as check reports it (the page is
        # written only when all of them can be).
        raise MdmarkError(
            "\n".join(unreadable_note(shown_under(real[p], start), f) for p, f in broken)
        )
    model = _model(project, model.with_order([docname_of(f.path) for f in all_facts]))

    index_titles = dict(zip(index_files, (d.title for d in index.docs), strict=True)) if index is not None else {}
    waiting = {real[p] for p in cold}
    fragments = []
    for path, facts in zip(ordered, all_facts, strict=True):
        hit = cached.get(path)
        # The cached fragment of the very content the facts come from (a save in between: rendered anew).
        fragments.append(hit[1] if hit is not None and hit[0] == facts.sha else render_document(pipeline, path, facts, lang))
        if real[path] in waiting:
            advance(1)

    in_page = {fragment.docname for fragment in fragments}
    from mdmark.graph.views import build_graphs

    # Each document's section id by its resolved path: the last build's for the very same order (a
    # document's name follows from its path), so the drawings find their anchors unchanged by identity.
    ids_key = _memo_key(project, "build-section-ids")
    last_ids = project.workspace.last_runs.get(ids_key)
    if isinstance(last_ids, tuple) and last_ids[0] is ordered:
        section_ids = cast(dict[Path, str], last_ids[1])
    else:
        section_ids = {real[p]: doc_id(f.docname) for p, f in zip(ordered, fragments, strict=True)}
        project.workspace.last_runs.put(ids_key, (ordered, section_ids))
    graphs = build_graphs(project, section_ids, index_files)
    kept = _kept(project, out)
    with kept.lock:
        # Titles as the page shows them (inline HTML), for the navigation and the toctrees in the page.
        markup = {f.docname: kept.markup_of(f.docname, f.html, functools.partial(heading_markup, f.html)) for f in fragments}
        body: list[str] = []
        nav_docs: list[NavDoc] = []
        start = project.start.resolve()
        names = layout.names_under(project.root, start)
        warnings: list[str] = css_warnings(cfg)
        page_order = tuple(f.docname for f in fragments)
        kept.begin(whole_key(model, (page_order, str(out), lang, pipeline.parse_key)))
        by_name = model.known if model.known is not None else {}
        # Only the documents whose facts changed since the last build are asked about again.
        changed = kept.changed_since(by_name)
        recorder = Recorder(model, markup)
        srcdir = pipeline.srcdir

        def is_doc_file(docname: str) -> bool:
            return (srcdir / f"{docname}.md").is_file()

        for path, facts, fragment in zip(ordered, all_facts, fragments, strict=True):
            docname = fragment.docname
            named = names.get(real[path])
            if named is None:
                under = shown_under(real[path], project.root)
                tag = f'<section class="mdmark-doc" id="{htmllib.escape(doc_id(docname))}" data-source="{htmllib.escape(under)}">\n'
                named = names[real[path]] = (under, shown_under(real[path], start), tag)
            rel, shown, opening = named
            section = kept.finished.get(docname)
            # The very facts, fragment and names the section was last found or made for: its own
            # inputs are the same without building and comparing their key.
            same = section is not None and section.source == (id(facts), id(fragment), id(named))
            own: Hashable = None
            if not same:
                own = (rel, shown, fingerprint(facts), fragment.html, fragment.xrefs, fragment.notes, facts.toctrees)
                same = section is not None and section.own == own
            if section is not None and same and recorder.still(section, is_doc_file, changed):
                kept.kept += 1
                section.keep_source(facts, fragment, named)
            else:
                with recorder.recording() as (watched, reads):
                    links = BuildLinks(watched, docname, srcdir, out, in_page)
                    links.markup = markup
                    links.noted = recorder.note
                    html, notes = fill(dataclasses.replace(fragment, html=prefix_ids(fragment.html, doc_id(docname))), links, facts.toctrees)
                    said = document_warnings(shown, facts, [*fragment.notes, *notes], watched)
                if own is None:
                    own = (rel, shown, fingerprint(facts), fragment.html, fragment.xrefs, fragment.notes, facts.toctrees)
                # Each question once (the model is the same throughout a build: so is its answer).
                section = Finished(own, tuple({(kind, name): (kind, name, answer) for kind, name, answer in reads}.values()), html, said)
                section.keep_source(facts, fragment, named)
                kept.finished[docname] = section
                kept.made += 1
            # The section's markup goes in as the very string kept for the rebuild, not copied
            # into a longer one: the page is written from these pieces without joining them.
            body += (
                opening,
                section.html,
                graphs.after(real[path]),
                "</section>\n",
            )
            title = index_titles.get(real[path]) or facts.title or path.stem
            nav_docs.append(NavDoc(docname, facts, title, markup[docname]))
            warnings += section.warnings
        notice = trust_notice(cfg, model.info, all_facts)
        if notice is not None:  # held extensions' blocks were kept as written: said, never dropped silently
            warnings.append(format_note(cfg.shown, None, notice))
        kept.keep_only(in_page)
        kept.held_for(by_name)
        # The navigation reads the page's documents (titles, headings, toctrees, markup) and, for
        # a toctree entry outside the page, the model's documents' titles and headings; the rest
        # (toctrees, the root document, the set of documents) is in the whole-page key.
        nav_key = (
            kept.generation,
            tuple((d.docname, d.title, d.markup, d.facts.title, d.facts.headings, d.facts.toctrees) for d in nav_docs),
            tuple((n, f.title, f.headings) if f is not None else n for n, f in by_name.items()),
        )
        nav = kept.nav_of(nav_key, lambda: navigation(model, nav_docs))
        graphs.finish(body, nav)
        # Written once per navigation: a save that changes no title or heading writes none of it.
        toc = kept.nav_markup(bool(graphs.overview), functools.partial(nav_markup, nav))
    chunks = page_chunks(
        mode="build",
        lang=lang,
        title=settings.title,
        css=stylesheet(cfg),
        body=body,
        nav=toc,
        data=graphs.data,
        scripts=[*mermaid_scripts(body), page_script()],
    )
    if write is None:
        # Streamed into the output file: the page (tens of megabytes at thousands of documents)
        # is never one string, nor a second copy of every section.
        write_page(out, chunks, shown_out)
    else:
        write(out, "".join(chunks), shown_out)
    project.save_snapshot("build")
    return {"out": str(out.resolve()), "docs": len(ordered), "warnings": warnings}
