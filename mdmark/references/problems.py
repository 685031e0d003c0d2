"""Every problem of one document — broken references, toctree entries, Sphinx's and MyST's warnings —
as the one sentence ``check`` reports as a drift and ``export``/``build`` print, at the same line
(:func:`document_problems`), and the notice of an untrusted conf.py (:func:`trust_notice`).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

from mdmark.core.facts import UNCHECKED_WARNING, DocFacts, Toctree, Warning
from mdmark.host.confine import OUTSIDE_WARNING, REFUSED_WARNING
from mdmark.host.confinfo import TOC_PLACING
from mdmark.references.held import held_by, holding, unread_settings
from mdmark.references.lookup import UNPLACED, Problem
from mdmark.references.main import Model
from mdmark.references.toctrees import relative

if TYPE_CHECKING:
    from mdmark.config.main import Config


def _elsewhere(warning: Warning, model: Model, docname: str) -> bool:
    """Whether a warning stands in another document of the project (text this one ``{include}``s)
    that the other document's own read gives too: that document's check reports it. Not one only
    this document's read gives — MyST reads a nested ``{include}``'s path from the including
    document's folder, so a path that is right in the other document may be missing here — which
    is reported here, at the included file's line, as Sphinx reports it."""
    if not warning.source or not model.srcdir:
        return False
    prefix = model.srcdir.rstrip("/") + "/"
    if not warning.source.startswith(prefix):
        return False
    rel = warning.source[len(prefix) :]
    if rel == f"{docname}.md":
        return False
    other = rel.removesuffix(".md")
    if not rel.endswith(".md") or other not in model.sphinx_docs:
        return False
    other_facts = model.facts(other)
    return other_facts is not None and warning in other_facts.syntax_warnings


def _needs_toctree(facts: DocFacts, model: Model, docname: str) -> bool:
    """Whether Sphinx would say the document is in no toctree (``toc.not_included``)."""
    if docname not in model.sphinx_docs:
        return False  # a document docs.include adds that Sphinx does not read: Sphinx says nothing
    if docname == model.info.root_doc or "orphan" in facts.metadata or docname in model.in_toctrees():
        return False
    return f"{docname}.md" not in model.included_files()


#: docutils' and Sphinx's sentences for an ``{include}``/``{literalinclude}`` whose file is missing.
_MISSING_INCLUDE = re.compile(
    r"""^(?:Directive "(?P<directive>[\w-]+)": file not found: '(?P<a>[^']*)'|Include file '(?P<b>[^']*)' not found or reading it failed)"""
)


def _shown_path(path: str, srcdir: str | None, docname: str) -> str:
    """An absolute path of a warning, relative to the document's folder (as the document writes it)."""
    if srcdir and path.startswith("/"):
        # Outside the source folder too (`../../example.md`): as the document writes it.
        return posixpath.relpath(path, posixpath.join(srcdir, posixpath.dirname(docname)))
    return path


#: Sphinx warnings that name one thing in quotes and are a drift of their own kind: type -> (kind, sentence).
_NAMED_WARNINGS: dict[str, tuple[str, str]] = {
    "misc.highlighting_failure": (
        "code_language",
        "コードブロックの言語 `{name}` を Pygments が知らず色が付かないので、言語の名前を直すか `text` にしてください。",
    ),
    "myst.iref_missing": (
        "broken_link",
        "インベントリ（intersphinx）の参照 `{name}` に当たるものが無いので、conf.py の intersphinx_mapping か参照の名前を直してください。",
    ),
}


#: Sphinx's warning for code that does not lex as its language (``PygmentsBridge.highlight_block``).
_LEXING_ERROR = re.compile(r'as "(?P<lang>[^"]*)" resulted in an error at token: (?P<quote>[\'"])(?P<token>.*?)(?P=quote)\. Retrying')


def warning_problem(warning: Warning, srcdir: str | None = None, docname: str = "") -> Problem:
    """A MyST/docutils warning of a document as the one sentence check and export/build share."""
    missing = _MISSING_INCLUDE.match(warning.message)
    if missing is not None:
        directive = missing.group("directive") or "literalinclude"
        path = _shown_path(missing.group("a") or missing.group("b") or "", srcdir, docname)
        return Problem(
            "broken_link",
            warning.type,
            f"{{{directive}}} のファイル `{path}` が無いので、パスを直すかファイルを置いてください。",
        )
    lexing = _LEXING_ERROR.search(warning.message) if warning.type == "misc.highlighting_failure" else None
    if lexing is not None:
        return Problem(
            "code_language",
            warning.type,
            f"コードを言語 `{lexing.group('lang')}` として読むと `{lexing.group('token')}` で字句が崩れて色付けが外れるので、"
            "コードを直すか、言語を合うもの（`text` など）にしてください。",
        )
    if warning.type in _NAMED_WARNINGS:
        kind, sentence = _NAMED_WARNINGS[warning.type]
        match = re.search(r"'([^']*)'", warning.message)
        return Problem(kind, warning.type, sentence.format(name=match.group(1) if match else warning.message))
    if warning.type in (REFUSED_WARNING, "mdmark.math"):  # mdmark's own: its message is the sentence
        return Problem("syntax", warning.type, warning.message)
    from mdmark.host.warnings_ja import warning_sentence

    return Problem("syntax", warning.type, warning_sentence(warning.message, warning.type))


def _toctree_problems(tree: Toctree, model: Model, docname: str) -> Iterable[tuple[int | None, Problem]]:
    """One toctree's problems: entries naming no document, entries closing a cycle, documents without a title."""
    suppressed = model.info.suppressed
    for line, problem in model.toctree_problems(tree, docname):
        if not suppressed(problem.type):
            yield line, problem
    circular = model.circular_entries()
    for entry in model.toctree_items(tree, docname):
        if entry.kind == "doc" and (docname, entry.target) in circular and not suppressed("toc.circular"):
            sentence = (
                f"toctree の項目 `{entry.written}` をたどるとこの文書に戻って循環し Sphinx はその項目を無視するので、"
                "循環のどこかの toctree から項目を外してください。"
            )
            yield entry.line, Problem("toctree_cycle", "toc.circular", sentence)
    for _title, child in model.toctree_docs(tree, docname):
        child_facts = model.facts(child)
        if child_facts is not None and not child_facts.headings and not suppressed("toc.no_title"):
            # Sphinx reports it at the toctree's line, once per entry.
            sentence = f"toctree に挙げた文書 `{relative(child, docname)}` に見出しが無くリンクが作られないので、その文書に最初の見出しを書いてください。"
            yield tree.line, Problem("toctree_no_title", "toc.no_title", sentence)


def _not_included(facts: DocFacts, model: Model, docname: str) -> Problem | None:
    """Sphinx's ``toc.not_included`` for a document no toctree lists, or None."""
    info = model.info
    if (
        info.sphinx
        and not info.suppressed("toc.not_included")
        and not (info.static and TOC_PLACING.intersection(info.held))  # a held blog or _toc.yml places documents
        and _needs_toctree(facts, model, docname)
    ):
        sentence = "この文書はどの toctree にも入っていないので、どこかの toctree に足すか、front matter に `orphan: true` を書いてください。"
        return Problem("not_in_toctree", "toc.not_included", sentence)
    return None


def _warning_problems(facts: DocFacts, model: Model, docname: str) -> Iterable[tuple[int | None, Problem]]:
    """The document's warnings as problems, each where Sphinx reports it (an included file, or nowhere)."""
    for warning in facts.warnings:
        if warning.type == OUTSIDE_WARNING:  # an {include} of a file outside the project root
            yield warning.line, Problem("broken_link", warning.type, warning.message)
    own = posixpath.join(model.srcdir, f"{docname}.md") if model.srcdir else None
    for warning in facts.syntax_warnings:
        if model.info.suppressed(warning.type) or _elsewhere(warning, model, docname):
            continue
        problem = warning_problem(warning, model.srcdir, docname)
        if warning.source and warning.source.startswith("<"):
            # Sphinx's "<unknown>:1" (a docstring autodoc could not place): no file, no line.
            yield None, dataclasses.replace(problem, file=UNPLACED)
            continue
        if warning.source and own is not None and posixpath.normpath(warning.source) != posixpath.normpath(own):
            problem = dataclasses.replace(problem, file=warning.source)
        yield warning.line, problem


def document_problems(facts: DocFacts, model: Model, docname: str) -> list[tuple[int | None, Problem]]:
    """Every broken reference, toctree entry and warning of one document, in line order — what
    ``check`` reports as drift and ``export``/``build`` print, the same sentence at the same line.

    Before trust, a problem a setting conf.py computes could explain is held, not listed
    (:mod:`mdmark.references.held`); :func:`held_count` counts them for the trust notice."""
    found = _all_problems(facts, model, docname)
    if not holding(model.info):
        return found
    return [(line, problem) for line, problem in found if held_by(problem, model.info) is None]


def held_count(facts: Iterable[DocFacts], model: Model, disabled: Collection[str] = ()) -> int:
    """How many problems of the documents ``facts`` (those Sphinx reads) :func:`document_problems`
    holds, but those of the kinds ``disabled`` (``check.disable``: never reported anyway)."""
    if not holding(model.info):
        return 0
    count = 0
    for one in facts:
        docname = one.path.removesuffix(".md")
        if one.error is not None or (model.info.sphinx and docname not in model.sphinx_docs):
            continue
        found = _all_problems(one, model, docname)
        count += sum(1 for _line, problem in found if problem.kind not in disabled and held_by(problem, model.info))
    return count


def _all_problems(facts: DocFacts, model: Model, docname: str) -> list[tuple[int | None, Problem]]:
    found: list[tuple[int | None, Problem]] = []
    for link in facts.links:
        resolved = model.resolve(link, docname)
        if resolved.problem is not None and not model.info.suppressed(resolved.problem.type):
            found.append((link.line, resolved.problem))
    for tree in facts.toctrees:
        found.extend(_toctree_problems(tree, model, docname))
    not_included = _not_included(facts, model, docname)
    if not_included is not None:
        found.append((None, not_included))
    found.extend(_warning_problems(facts, model, docname))
    found.sort(key=lambda item: item[0] or 0)
    return found


def unchecked_counts(facts: Iterable[DocFacts]) -> dict[str, int]:
    """The directives and roles left unchecked until trust, per held extension (:mod:`mdmark.host.held_markup`)."""
    counts: dict[str, int] = {}
    for one in facts:
        for warning in one.warnings:
            if warning.type == UNCHECKED_WARNING:
                counts[warning.message] = counts.get(warning.message, 0) + 1
    return counts


def trust_notice(config: Config, model: Model, facts: Iterable[DocFacts]) -> str | None:
    """The one notice of an untrusted conf.py — check's ``config_value`` drift, build's and export's
    warning — with the blocks and roles its held extensions left unchecked and the settings it
    could not read (with the drifts held because of them); None when it runs."""
    info = model.info
    if config.sphinx_conf is None or not info.static:
        return None
    from mdmark.host.trust import Unread, trust_config_name, untrusted_sentence
    from mdmark.util.files import display

    facts = list(facts)
    shown = display(config.sphinx_conf, config.root)
    unread = Unread(unread_settings(info), info.opaque, held_count(facts, model, config.disabled)) if holding(info) else None
    return untrusted_sentence(
        shown, trust_config_name(config.path), info.held, unchecked_counts(facts), config.sphinx_conf, unread
    )
