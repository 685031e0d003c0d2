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
from mdmark.pipeline import resident
from mdmark.pipeline.limits import parallel
from mdmark.project.main import ModelLayout, Project
from mdmark.util.files import display, resolve_many, resolved_many, shown_under
from mdmark.util.globs import match_files
from mdmark.util.text import quote_list

if TYPE_CHECKING:
    from mdmark.builders.sections import Finished, PageSections, Recorder
    from mdmark.graph.views import PageGraphs
    from mdmark.html.nav import NavDoc
    from mdmark.html.page import NavEntry
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
    the same inputs and no document changed what they are made of (:func:`~mdmark.references.tracking.global_part`)."""
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


@dataclass
class _Read:
    """What reading the page's documents gave: the page's files in order, their facts and
    fragments, and the reference model over them."""

    ordered: list[Path]
    facts: list[DocFacts]
    fragments: list[Fragment]
    model: Model
    index: Index | None
    index_files: list[Path]
    #: Each file's resolved path (the other sources' by their own path).
    real: dict[Path, Path]


@dataclass
class _Sections:
    """The page's body in pieces, the navigation's documents and the warnings, as the sections gave them."""

    body: list[str] = field(default_factory=list)
    nav_docs: list[NavDoc] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _SiteBuild:
    """One run of :func:`build_site`, in its named steps: :meth:`read` the documents, make their
    :meth:`sections` of the page, the :meth:`navigation`, and :meth:`write` the page."""

    def __init__(self, start: Path, config: str | None, progress: Callable[[int, int], None] | None) -> None:
        self.project = project = Project.open(start, config)
        self.cfg = cfg = project.config
        cfg.require("build", "markdown", "html")
        if cfg.build is None:
            raise MdmarkError(
                f"設定 `{cfg.shown}` に build が無いので、build に include（まとめる文書のパターン）と out（出力先）を書いてください。"
            )
        from mdmark.html.page import check_out_path

        self.start = start
        self.settings = cfg.build
        self.out = (project.root / self.settings.out).absolute()
        self.shown_out = display(self.out, project.start)
        project.ensure_writable_target(self.out)
        check_out_path(self.out, self.shown_out)
        project.restore_snapshot("build")  # the last run's workspace: after one edit, one document is read
        self.layout = _layout(project, self.settings)
        self.pipeline = project.pipeline
        self.lang = page_language(project)
        self.progress = progress
        self.ready = 0

    def advance(self, count: int) -> None:
        self.ready += count
        if self.progress:
            self.progress(self.ready, len(self.layout.files))

    def read(self) -> _Read:
        """The page's documents in order, with their facts and fragments and the reference model.

        A cold build parses and renders in worker processes (both cores for all of the work); what
        is cached is only read, so a rebuild with one document changed renders one document. A
        document is parsed and rendered in one trip to a worker (its facts come back with its
        fragment), not parsed for the reference model and then parsed again to be rendered."""
        from mdmark.html.render import render_document, render_parallel

        project, layout, pipeline, lang = self.project, self.layout, self.pipeline, self.lang
        others = _other_sources(layout)
        # The other sources' paths are the model's (under the source folder, as the facts are kept).
        real = {**layout.real(), **{p: p for p in others.values()}} if others else layout.real()
        stamped = project.workspace.stamped_facts(pipeline)
        known: dict[Path, DocFacts] = {}
        cold, cached = _uncached(pipeline, stamped, layout, lang, known)
        self.advance(len(layout.files) - len(cold))
        if cold:
            # The index is read (and its YAML parsed) while the workers parse: it is needed only after them.
            meanwhile = project.index if self.cfg.index is not None and parallel(len(cold)) else None
            render_parallel(pipeline, cold, lang, self.advance, meanwhile=meanwhile)
        # The documents' facts by their files' stats: what the check reads too (the same objects).
        model = project.model_from(layout.model, stamped.facts_many, known)
        index = project.index() if self.cfg.index is not None else None
        index_files = _index_files(project, index, layout) if index is not None else []
        ordered = _page_order(
            project, layout, model, index_files,
            lambda: _ordered(layout.files, real, project.source_dir, model, index_files, others),
        )  # fmt: skip
        all_facts = _facts_of(pipeline, ordered, real, known)
        broken = [(path, f) for path, f in zip(ordered, all_facts, strict=True) if f.error]
        if broken:
            # Every document that cannot be read, at its place, as check reports it (the page is
            # written only when all of them can be).
            raise MdmarkError("\n".join(unreadable_note(shown_under(real[p], self.start), f) for p, f in broken))
        model = _model(project, model.with_order([docname_of(f.path) for f in all_facts]))
        fragments = []
        for path, facts in zip(ordered, all_facts, strict=True):
            hit = cached.get(path)
            # The cached fragment of the very content the facts come from (a save in between: rendered anew).
            fragments.append(hit[1] if hit is not None and hit[0] == facts.sha else render_document(pipeline, path, facts, lang))
        return _Read(ordered, all_facts, fragments, model, index, index_files, real)

    def section_ids(self, read: _Read) -> dict[Path, str]:
        """Each document's section id by its resolved path: the last build's for the very same order
        (a document's name follows from its path), so the drawings find their anchors unchanged by identity."""
        from mdmark.html.links import doc_id

        key = _memo_key(self.project, "build-section-ids")
        last = self.project.workspace.last_runs.get(key)
        if isinstance(last, tuple) and last[0] is read.ordered:
            return cast(dict[Path, str], last[1])
        ids = {read.real[p]: doc_id(f.docname) for p, f in zip(read.ordered, read.fragments, strict=True)}
        self.project.workspace.last_runs.put(key, (read.ordered, ids))
        return ids

    def sections(self, read: _Read, kept: PageSections, graphs: PageGraphs) -> _Sections:
        """Each document's section of the page: the last build's when what it was made from is the
        same (:mod:`mdmark.builders.sections`), else its fragment filled in for the page."""
        from mdmark.builders.sections import Recorder, whole_key
        from mdmark.html.links import doc_id
        from mdmark.html.nav import NavDoc, title_markup
        from mdmark.html.page import css_warnings
        from mdmark.references.problems import trust_notice

        model = read.model
        # Titles as the page shows them (inline HTML), for the navigation and the toctrees in the page.
        markup = {f.docname: kept.markup_of(f.docname, f.headings, functools.partial(title_markup, f)) for f in read.fragments}
        here = self.project.start.resolve()
        names = self.layout.names_under(self.project.root, here)
        page_order = tuple(f.docname for f in read.fragments)
        kept.begin(whole_key(model, (page_order, str(self.out), self.lang, self.pipeline.parse_key)))
        by_name = model.known if model.known is not None else {}
        # Only the documents whose facts changed since the last build are asked about again.
        changed = kept.changed_since(by_name)
        recorder = Recorder(model, markup)
        in_page = set(page_order)
        index_titles = (
            dict(zip(read.index_files, (d.title for d in read.index.docs), strict=True)) if read.index is not None else {}
        )
        made = _Sections(warnings=css_warnings(self.cfg))
        for path, facts, fragment in zip(read.ordered, read.facts, read.fragments, strict=True):
            real = read.real[path]
            named = names.get(real)
            if named is None:
                under = shown_under(real, self.project.root)
                tag = f'<section class="mdmark-doc" id="{htmllib.escape(doc_id(fragment.docname))}" data-source="{htmllib.escape(under)}">\n'
                named = names[real] = (under, shown_under(real, here), tag)
            section = self._section(kept, recorder, changed, in_page, facts, fragment, named)
            # The section's markup goes in as the very string kept for the rebuild, not copied
            # into a longer one: the page is written from these pieces without joining them.
            made.body += (named[2], section.html, graphs.after(real), "</section>\n")
            title = index_titles.get(real) or facts.title or path.stem
            made.nav_docs.append(NavDoc(fragment.docname, facts, title, markup[fragment.docname]))
            made.warnings += section.warnings
        notice = trust_notice(self.cfg, model, read.facts)
        if notice is not None:  # held extensions' blocks were kept as written: said, never dropped silently
            made.warnings.append(format_note(self.cfg.shown, None, notice))
        kept.keep_only(in_page)
        kept.held_for(by_name)
        return made

    def _section(
        self,
        kept: PageSections,
        recorder: Recorder,
        changed: frozenset[str] | None,
        in_page: set[str],
        facts: DocFacts,
        fragment: Fragment,
        named: tuple[str, str, str],
    ) -> Finished:
        """One document's section: kept when its own inputs and what it read are the same, else made."""
        from mdmark.builders.sections import Finished, fingerprint
        from mdmark.html.links import BuildLinks, doc_id, fill, prefix_ids

        rel, shown, _opening = named
        docname = fragment.docname
        srcdir = self.pipeline.srcdir
        section = kept.finished.get(docname)
        own: Hashable
        if section is not None and section.source == (id(facts), id(fragment), id(named)):
            # The very facts, fragment and names the section was last found or made for: its own
            # inputs are the same without building and comparing their key.
            own = section.own
        else:
            own = (rel, shown, fingerprint(facts), fragment.html, fragment.xrefs, fragment.tags, fragment.notes, facts.toctrees)
        same = section is not None and section.own == own

        def is_doc_file(name: str) -> bool:
            return (srcdir / f"{name}.md").is_file()

        if section is not None and same and recorder.still(section, is_doc_file, changed):
            kept.kept += 1
            section.keep_source(facts, fragment, named)
            return section
        with recorder.recording() as (watched, reads):
            links = BuildLinks(watched, docname, srcdir, self.out, in_page)
            links.markup = recorder.markup
            links.noted = recorder.note
            html, notes = fill(dataclasses.replace(fragment, html=prefix_ids(fragment.html, doc_id(docname))), links, facts.toctrees)
            said = document_warnings(shown, facts, [*fragment.notes, *notes], watched)
        # Each question once (the model is the same throughout a build: so is its answer).
        section = Finished(own, tuple({(kind, name): (kind, name, answer) for kind, name, answer in reads}.values()), html, said)
        section.keep_source(facts, fragment, named)
        kept.finished[docname] = section
        kept.made += 1
        return section

    def navigation(self, read: _Read, kept: PageSections, nav_docs: list[NavDoc]) -> list[NavEntry]:
        """The page's navigation: the last build's while nothing it reads changed.

        It reads the page's documents (titles, headings, toctrees, markup) and, for a toctree entry
        outside the page, the model's documents' titles and headings; the rest (toctrees, the root
        document, the set of documents) is in the whole-page key."""
        from mdmark.html.nav import navigation

        by_name = read.model.known if read.model.known is not None else {}
        nav_key = (
            kept.generation,
            tuple((d.docname, d.title, d.markup, d.facts.title, d.facts.headings, d.facts.toctrees) for d in nav_docs),
            tuple((n, f.title, f.headings) if f is not None else n for n, f in by_name.items()),
        )
        return kept.nav_of(nav_key, lambda: navigation(read.model, nav_docs))

    def write(self, body: list[str], toc: str, graphs: PageGraphs, write: Callable[[Path, str, str], None] | None) -> None:
        """The page around the sections, written (or handed to ``write``)."""
        from mdmark.html.page import mermaid_scripts, page_chunks, page_script, stylesheet, write_page

        chunks = page_chunks(
            mode="build",
            lang=self.lang,
            title=self.settings.title,
            css=stylesheet(self.cfg),
            body=body,
            nav=toc,
            data=graphs.data,
            scripts=[*mermaid_scripts(body), page_script()],
        )
        if write is None:
            # Streamed into the output file: the page (tens of megabytes at thousands of documents)
            # is never one string, nor a second copy of every section.
            write_page(self.out, chunks, self.shown_out)
        else:
            write(self.out, "".join(chunks), self.shown_out)


def build_site(
    start: Path,
    config: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    write: Callable[[Path, str, str], None] | None = None,
) -> dict[str, Any]:
    """Build the single page; returns ``{"out", "docs", "warnings"}``.

    ``write(out, text, shown_out)`` replaces the writing of the page (``mdmark preview`` serves
    the text instead of writing it); by default :func:`~mdmark.html.page.write_page`."""
    from mdmark.graph.views import build_graphs
    from mdmark.html.page import nav_markup

    build = _SiteBuild(start, config, progress)
    read = build.read()
    graphs = build_graphs(build.project, build.section_ids(read), read.index_files)
    kept = _kept(build.project, build.out)
    with kept.lock:
        made = build.sections(read, kept, graphs)
        nav = build.navigation(read, kept, made.nav_docs)
        graphs.finish(made.body, nav)
        # Written once per navigation: a save that changes no title or heading writes none of it.
        toc = kept.nav_markup(bool(graphs.overview), functools.partial(nav_markup, nav))
    build.write(made.body, toc, graphs, write)
    # A one-shot command (the CLI's build) does not wait for the next command's snapshot.
    build.project.save_snapshot("build", detached=resident.enabled() and write is None)
    return {"out": str(build.out.resolve()), "docs": len(read.ordered), "warnings": made.warnings}
