"""Toctrees as Sphinx reads them (``sphinx.environment.adapters.toctree``, ``TocTreeCollector``):
the entries a toctree lists, the document order from the root, which documents some toctree lists,
the entries that close a cycle, figure numbers in that order, and what is wrong with an entry.

Functions of the documents (``found``, ``unread``) and their facts; the model
(:class:`mdmark.references.main.Model`) keeps what they make.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from mdmark.core.facts import DocFacts, TocEntry, Toctree
from mdmark.references.lookup import Lookup, Problem
from mdmark.util.globs import glob_match
from mdmark.util.sentences import fix_to
from mdmark.util.text import close_file

#: The pages a toctree may list that Sphinx writes itself (``StandardDomain._virtual_doc_names``):
#: ``sphinx-build -b html`` says nothing of them; a single file has none, so they are left out.
GENERATED_DOCS = frozenset({"genindex", "modindex", "search"})

Facts = Callable[[str], DocFacts | None]


def posixpath_match(docname: str, pattern: str) -> bool:
    """Sphinx's ``patfilter`` for toctree globs (``*`` does not cross folders, ``**`` does)."""
    return glob_match(docname, pattern)


def relative(target: str, docname: str) -> str:
    """``target`` as ``docname`` names it (relative to its folder)."""
    return posixpath.relpath(target, posixpath.dirname(docname) or ".")


def toctree_items(tree: Toctree, docname: str, found: set[str], unread: set[str]) -> list[TocEntry]:
    """A toctree's entries as Sphinx lists them: globs expanded (each document once, never the
    toctree's own), entries naming no document left out, then ``:reversed:`` applied."""
    out: list[TocEntry] = []
    taken = {docname}
    for entry in tree.entries:
        if entry.kind == "glob":
            for match in sorted(d for d in found if d not in taken and posixpath_match(d, entry.target)):
                taken.add(match)
                out.append(TocEntry(entry.line, entry.written, "doc", match))
        elif entry.kind == "doc":
            if entry.target in found or entry.target in unread:
                taken.add(entry.target)
                out.append(entry)
        else:
            out.append(entry)
    return out[::-1] if tree.reversed else out


def toctree_docs(tree: Toctree, docname: str, found: set[str], unread: set[str]) -> list[tuple[str | None, str]]:
    """The documents a toctree lists, in order: (title as written or None, docname)."""
    return [(e.title, e.target) for e in toctree_items(tree, docname, found, unread) if e.kind == "doc"]


def toctree_order(start: str, facts: Facts, found: set[str], unread: set[str]) -> list[str]:
    """The documents reachable from ``start`` through toctrees, depth-first, each once — the order
    of Sphinx's ``singlehtml``. ``facts`` gives a document's facts (None: no such document)."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(docname: str) -> None:
        if docname in seen:
            return
        doc_facts = facts(docname)
        if doc_facts is None:
            return
        seen.add(docname)
        order.append(docname)
        for tree in doc_facts.toctrees:
            for _title, child in toctree_docs(tree, docname, found, unread):
                visit(child)

    visit(start)
    return order


def count_figures(order: Iterable[str], facts: Facts) -> dict[tuple[str, str], str]:
    """Figure numbers per (document, id): one counter per figtype over the documents in ``order``
    (a document met again keeps its first numbers), as Sphinx's ``assign_figure_numbers``."""
    numbers: dict[tuple[str, str], str] = {}
    counters: dict[str, int] = {}
    for docname in order:
        doc_facts = facts(docname)
        if doc_facts is None:
            continue
        for figtype, idents in doc_facts.figures:
            if not idents or (docname, idents[0]) in numbers:
                continue
            counters[figtype] = counters.get(figtype, 0) + 1
            for ident in idents:
                numbers[(docname, ident)] = str(counters[figtype])
    return numbers


def listed_documents(facts: Facts, found: set[str], unread: set[str]) -> set[str]:
    """Every document some toctree of the project lists (Sphinx's ``toctree_includes``)."""
    listed: set[str] = set()
    for docname in sorted(found):
        doc_facts = facts(docname)
        for tree in doc_facts.toctrees if doc_facts is not None else ():
            listed.update(child for _title, child in toctree_docs(tree, docname, found, unread))
    return listed


def included_files(facts: Facts, found: set[str]) -> set[str]:
    """Files some document pulls in with ``{include}`` (Sphinx does not ask those to be in a toctree)."""
    return {rel for docname in sorted(found) if (f := facts(docname)) is not None for rel, _stamp in f.deps}


def circular_entries(facts: Facts, found: set[str], unread: set[str]) -> set[tuple[str, str]]:
    """The toctree entries ``(document, listed document)`` that close a cycle: the listed
    document leads back through toctrees to the one listing it. Sphinx ignores each of them
    where it meets one (``toc.circular``); every entry inside a strongly connected part of the
    toctree graph is met from some page. Linear in the toctrees' entries (Tarjan, iterative)."""
    edges: dict[str, list[str]] = {}
    for docname in sorted(found):
        doc_facts = facts(docname)
        trees = doc_facts.toctrees if doc_facts is not None else ()
        edges[docname] = [c for t in trees for _title, c in toctree_docs(t, docname, found, unread) if c in found]
    component = _components(edges)
    return {(d, c) for d, children in edges.items() for c in children if c == d or component[c] == component[d]}


def _components(edges: dict[str, list[str]]) -> dict[str, int]:
    """Each node's strongly connected component (Tarjan's algorithm without recursion: a
    hostile project's toctrees may chain thousands of documents)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    component: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in edges:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            children = edges.get(node, [])
            if at > 0:
                low[node] = min(low[node], low[children[at - 1]])
            while at < len(children) and children[at] in index:
                if children[at] in on_stack:
                    low[node] = min(low[node], index[children[at]])
                at += 1
            if at < len(children):
                work.append((node, at + 1))
                work.append((children[at], 0))
                continue
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[node]
                    if member == node:
                        break
    return component


# -- what is wrong with an entry ----------------------------------------------------------------


def _listable(model: Lookup, docname: str) -> bool:
    """Whether a toctree entry may name ``docname`` without a warning: a document of the model
    (read or not), except, in a Sphinx project, a Markdown document the config checks but
    conf.py's exclude_patterns leave out (sphinx-build does not read it)."""
    if docname in model.unread or (docname in GENERATED_DOCS and docname not in model.found):
        return True
    if docname not in model.found:
        return False
    return not (model.info.sphinx and docname not in model.sphinx_docs and model._exists(f"{docname}.md"))


def _excluded_source(model: Lookup, docname: str) -> tuple[str, str] | None:
    """For a Sphinx project's toctree entry naming no document Sphinx reads: the source file
    that is there all the same (left out by exclude_patterns) and Sphinx's warning type, or None.

    Sphinx says ``toc.excluded`` only when the path it tests, ``doc2path(docname, False)`` (the
    first source suffix), matches a pattern, and ``toc.not_readable`` otherwise, even for a
    ``.md`` file it left out: the type follows Sphinx, the sentence names the file."""
    info = model.info
    if not info.sphinx or not info.source_suffixes:
        return None
    tested = f"{docname}{info.source_suffixes[0]}"
    kind = "toc.excluded" if any(glob_match(tested, p) for p in info.exclude_patterns) else "toc.not_readable"
    there = next((f"{docname}{s}" for s in info.source_suffixes if model._exists(f"{docname}{s}")), None)
    if there is None:
        return (tested, kind) if kind == "toc.excluded" else None
    return there, kind


def _unlisted_problem(model: Lookup, entry: TocEntry, docname: str) -> Problem:
    """The problem of an entry naming a document a toctree may not list."""
    excluded = _excluded_source(model, entry.target)
    if excluded is not None:
        message = (
            f"toctree の項目 `{entry.written}` の文書 `{excluded[0]}` は conf.py の exclude_patterns で外されているので、"
            "項目を消すか、exclude_patterns から外してください。"
        )
        return Problem("broken_link", excluded[1], message)
    folder = posixpath.dirname(entry.target)
    pool = [f"{d}.md" for d in model.found if d != docname and posixpath.dirname(d) == folder]
    close = close_file(f"{entry.target}.md", pool)
    fix = fix_to(relative(close[: -len(".md")], docname) if close else None, "文書の名前を直すか、")
    return Problem(
        "broken_link",
        "toc.not_readable",
        f"toctree の項目 `{entry.written}` に当たる文書が無いので、{fix}その文書を置いてください。",
    )


def toctree_problems(model: Lookup, tree: Toctree, docname: str) -> list[tuple[int, Problem]]:
    """The entries of ``tree`` (in ``docname``) naming no document it may list, and its globs matching none."""
    problems: list[tuple[int, Problem]] = []
    for entry in tree.entries:
        if entry.kind == "doc" and not _listable(model, entry.target):
            problems.append((entry.line, _unlisted_problem(model, entry, docname)))
        elif entry.kind == "glob" and not any(d != docname and posixpath_match(d, entry.target) for d in model.found):
            problem = Problem(
                "broken_link",
                "toc.empty_glob",
                f"toctree の glob `{entry.written}` に当たる文書が無いので、パターンを直すか文書を置いてください。",
            )
            problems.append((entry.line, problem))
    return problems
