"""Where a reference lands, one resolver per role kind, chosen by the table :data:`RESOLVERS` — as the
standard domain's ``resolve_xref`` dispatches on the role (``sphinx.domains.std``) and MyST resolves
a Markdown link (``myst_parser.sphinx_ext.myst_refs``).

A resolver takes the model (:class:`~mdmark.references.lookup.Lookup`), the reference and the
document it is written in, and gives a :class:`~mdmark.references.lookup.Resolved`; when the
reference lands nowhere, with the one sentence that ``check`` reports as a drift and
``export``/``build`` print as a warning. Hints never name the document the reference is in.
A new role kind is one resolver here and one row in :data:`RESOLVERS`.
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from collections.abc import Callable

from mdmark.core.facts import DocFacts, Link
from mdmark.references.lookup import Lookup, Problem, Resolved
from mdmark.references.tables import BUILTIN_LABELS, slug_target, suggest, too_deep
from mdmark.util.sentences import close_fix, fix_to
from mdmark.util.text import close_file

#: A resolver: (model, reference, the document it is written in) → where it lands.
Resolver = Callable[[Lookup, Link, str], Resolved]

#: std roles Sphinx makes with ``warn_dangling`` (``sphinx.domains.std.StandardDomain.roles``), other
#: than the ones resolved elsewhere here (ref, numref, doc, term).
_STD_WARNING_ROLES = frozenset({"option", "confval", "keyword"})

#: A Python object's dotted name (what autodoc could define).
_PY_NAME = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def resolve(model: Lookup, link: Link, docname: str) -> Resolved:
    """Where ``link``, written in ``docname``, lands: a URL as it is, else its role's resolver
    (a role the table does not name is a domain's: ``py:func``, ``std:option``, ``keyword``…)."""
    if link.external:
        return Resolved(url=link.target)
    return RESOLVERS.get(link.role, resolve_domain)(model, link, docname)


# -- documents and Markdown links ----------------------------------------------------------------


def _unquote(anchor: str) -> str:
    return urllib.parse.unquote(anchor) if "%" in anchor else anchor


def _join(docdir: str, path: str) -> str:
    if path.startswith("/"):
        return posixpath.normpath(path.lstrip("/"))
    return posixpath.normpath(posixpath.join(docdir, path)) if docdir else posixpath.normpath(path)


def _written_name(link: Link) -> str:
    """The name a ``myst`` reference looks up (``[t](#name)`` arrives as ``#name``)."""
    return link.anchor if link.target.startswith("#") and link.anchor else link.target


def _anchor_problem(model: Lookup, written: str, anchor: str, facts: DocFacts, own: bool) -> Problem:
    where = "この文書" if own else f" `{facts.path}` "
    if too_deep(facts, anchor):
        message = (
            f"リンク `{written}` の見出し `{anchor}` は heading_anchors（{model.info.heading_anchors}）より深く"
            f"アンカーが無いので、heading_anchors を上げるか見出しに `({anchor})=` のラベルを付けてください。"
        )
    else:
        pool = [h.slug for h in facts.headings if h.slug] + [label.name for label in facts.labels]
        fix = suggest(anchor, pool)
        what = f"リンク先 `{anchor}`" if written.lstrip("#") == anchor else f"リンク `{written}` の `{anchor}`"
        message = f"{what} に当たる見出し・ラベルが{where}に無いので、{fix or '見出しかラベルを足すか、'}リンクを直してください。"
    return Problem("broken_anchor", "myst.xref_missing", message)


def _document(model: Lookup, target: str, anchor: str | None, written: str, docname: str, type_: str) -> Resolved:
    """The document ``target`` (and ``anchor`` in it), written ``written``; ``type_`` Sphinx's warning type."""
    facts = model.facts(target)
    if facts is None and target in model.unread:
        return Resolved(doc=target)  # a document mdmark does not read: its anchors are not known
    if facts is None:
        pool = [posixpath.relpath(d, posixpath.dirname(docname) or ".") for d in model.found if d != docname]
        wanted = posixpath.relpath(target, posixpath.dirname(docname) or ".")
        fix = close_fix(wanted, pool, "パスを直すか、")
        what = "リンク先の文書" if type_ != "ref.doc" else "{doc} の参照先の文書"
        message = f"{what} `{written.split('#', 1)[0]}` が無いので、{fix}リンクを消してください。"
        return Resolved(problem=Problem("broken_link", type_, message))
    if not anchor:
        return Resolved(doc=target, text=facts.title)
    found = slug_target(facts, _unquote(anchor))
    if found is None:
        problem = _anchor_problem(model, written, _unquote(anchor), facts, target == docname)
        return Resolved(doc=target, text=facts.title, problem=problem)
    return Resolved(doc=target, anchor=found[0], text=found[1] or facts.title)


def resolve_myst_doc(model: Lookup, link: Link, docname: str) -> Resolved:
    """A Markdown link MyST read as a document (``[t](other.md#slug)``)."""
    return _document(model, link.doc or "", link.anchor, link.target, docname, "myst.xref_missing")


def resolve_doc(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{doc}``: a document, never an anchor in it."""
    return _document(model, link.doc or "", None, link.target, docname, "ref.doc")


def resolve_local(model: Lookup, link: Link, docname: str) -> Resolved:
    """``[t](#x)`` MyST resolved to an id of this page while reading."""
    facts = model.facts(docname)
    anchor = link.local_id or link.anchor or ""
    if facts is not None and link.local_id is None and anchor not in facts.anchors:
        return Resolved(doc=docname, problem=_anchor_problem(model, link.target, anchor, facts, True))
    title = model.heading_titles(docname, facts).get(anchor) if facts is not None else None
    return Resolved(doc=docname, anchor=anchor, text=title)


def _named(model: Lookup, link: Link, docname: str) -> Resolved | None:
    """MyST's resolution of ``[t](name)``: a label, a document, a std object, another domain's object."""
    target = _written_name(link)
    if target.lower() in BUILTIN_LABELS:
        # Sphinx's generated pages: a single file has none to link to, and nothing is broken.
        return Resolved(text=link.text or BUILTIN_LABELS[target.lower()], silent=True)
    names = model.names
    entry = names.label_entry(target, link.explicit)
    if entry is not None:
        owner, label = entry
        return Resolved(doc=owner, anchor=label.id, text=label.title or None)
    doc = _join(posixpath.dirname(docname), target)
    for suffix in model.info.source_suffixes:
        doc = doc.removesuffix(suffix)
    if doc in model.found and model.facts(doc) is not None:
        return Resolved(doc=doc, text=model.title(doc))
    term = names.terms.get(target.lower())
    if term is not None:
        return Resolved(doc=term[0], anchor=term[1], text=term[2])
    equation = names.targets.get(("math", target))
    if equation is not None:
        owner, ident, number = equation
        return Resolved(doc=owner, anchor=ident, text=f"({number})" if number else target)
    found = names.find_object(None, target, None, None, None, True)
    if found is not None:
        return Resolved(doc=found[0], anchor=found[1], text=target)
    return None


def _unverified(model: Lookup, domain: str | None, name: str) -> bool:
    """Whether only code mdmark did not run (autodoc while conf.py is untrusted) could define ``name``."""
    if not model.info.unverified:
        return False
    if domain is not None:
        return domain in model.info.unverified
    # A Markdown link or {any}: a name shaped like a Python object's, when the py domain is unverified.
    return "py" in model.info.unverified and _PY_NAME.fullmatch(name.lstrip("~.")) is not None


def _held_unread(model: Lookup) -> bool:
    """Whether documents only a held extension reads exist (notebooks before trust): a label
    nowhere in the documents read may be in one of them."""
    return bool(model.info.held_suffixes) and bool(model.unread)


def _missing_file(model: Lookup, written: str, path: str, docname: str) -> str:
    folder, name = posixpath.split(path)
    own = f"{docname}.md"
    names = [n for n in model._listdir(folder) if posixpath.join(folder, n) != own and not n.startswith(".")]
    close = close_file(name, names)
    fix = fix_to(posixpath.join(posixpath.dirname(written), close) if close else None, "パスを直すか、")
    return f"リンク先のファイル `{written}` が無いので、{fix}リンクを消してください。"


def _myst_path(model: Lookup, path: str, written: str, docname: str) -> Resolved:
    """A Markdown link naming a file (a folder or a suffix in it) that is no document."""
    if model._exists(path) and not model._is_dir(path):
        return Resolved(file=path)
    if model._is_dir(path):
        # MyST links documents and files, not folders (Sphinx: myst.xref_missing).
        index = posixpath.join(path, "index")
        fix = f"`{posixpath.join(written.rstrip('/'), 'index.md')}` のように文書を指すか、" if index in model.found else ""
        message = f"リンク先 `{written}` はフォルダで文書でもファイルでもないので、{fix or '文書かファイルを指すか、'}リンクを消してください。"
        return Resolved(problem=Problem("broken_link", "myst.xref_missing", message))
    return Resolved(problem=Problem("broken_link", "myst.xref_missing", _missing_file(model, written, path, docname)))


def resolve_myst(model: Lookup, link: Link, docname: str) -> Resolved:
    """A Markdown link to a label, a document, an object or a file (MyST's ``myst_refs``)."""
    found = _named(model, link, docname)
    if found is not None:
        return found
    if link.local_id:
        return Resolved(doc=docname, anchor=link.local_id)
    if _unverified(model, None, _written_name(link)) or _held_unread(model):
        return Resolved(unverified=True)
    written = link.target.split("#", 1)[0]
    # A bare name (no folder, no suffix) is a label; anything else names a file.
    if link.path is not None and ("/" in written or "." in written):
        return _myst_path(model, link.path, written, docname)
    name = _written_name(link)

    def pool() -> list[str]:
        return sorted({*model.names.labels, *(h.slug for f in model.all_facts() for h in f.headings if h.slug)})

    fix = model._hint("anchors", name, pool) or "見出しかラベルを足すか、"
    message = f"リンク先 `{name}` に当たる見出し・ラベル・文書がどこにも無いので、{fix}リンクを直してください。"
    return Resolved(problem=Problem("broken_anchor", "myst.xref_missing", message))


#: The roles of myst-nb's references to another notebook's glued output (``glue:text``: formatted text/plain).
GLUE_ROLES = ("glue", "glue:text")


def resolve_glue(model: Lookup, link: Link, docname: str) -> Resolved:
    """myst-nb's ``{glue}`doc::key``` (and the ``glue`` directive's ``:doc:``): a key glued in another
    notebook, found in its facts as myst-nb's post-transform finds it in the notebook's glue file.
    A notebook mdmark does not read answers nothing (the page shows the reference as it is)."""
    doc, key = link.doc or "", link.anchor or ""
    facts = model.facts(doc)
    if facts is None or facts.error is not None:
        return Resolved(doc=doc, unverified=True)
    bundle = facts.glue.get(key)
    if bundle is None:
        fix = suggest(key, sorted(facts.glue))
        message = (
            f"glue の参照先 `{link.target}` のキー `{key}` が `{facts.path}` で glue されていないので、"
            f"{fix or 'そのノートブックでそのキーを glue するか、'}参照を直してください。"
        )
        return Resolved(doc=doc, problem=Problem("broken_anchor", "mystnb.glue_ref", message))
    if not bundle or (link.role == GLUE_ROLES[1] and "text/plain" not in bundle):
        what = "text/plain の値" if link.role == "glue:text" else "ページに出せる形（text/plain・text/html・画像）の値"
        message = f"glue の参照先 `{link.target}` に{what}が無いので、そのノートブックで glue する値を直してください。"
        return Resolved(doc=doc, problem=Problem("broken_anchor", "mystnb.glue_ref", message))
    return Resolved(doc=doc)


def resolve_file(model: Lookup, link: Link, docname: str) -> Resolved:
    """A link to a file (``link``: a plain link or a button's URL; ``download``)."""
    path = link.path
    if path is None:
        return Resolved(url=link.target)
    if path.endswith(".md") and path[: -len(".md")] in model.found:
        return _document(model, path[: -len(".md")], link.anchor, link.target, docname, "myst.xref_missing")
    if link.role == "link" and path.endswith(".html") and not model._exists(path):
        # A URL of a sphinx-design button or card (not a Markdown link: MyST would warn about
        # it) naming the page Sphinx writes for a document: that document.
        page = path[: -len(".html")]
        if page in model.found or page in model.unread:
            return _document(model, page, link.anchor, link.target, docname, "myst.xref_missing")
    if model._exists(path):
        return Resolved(file=path, anchor=link.anchor)
    written = link.target.split("#", 1)[0]
    type_ = "download.not_readable" if link.role == "download" else "myst.xref_missing"
    return Resolved(problem=Problem("broken_link", type_, _missing_file(model, written, path, docname)))


# -- labels, terms, equations ---------------------------------------------------------------------


def _missing_label(model: Lookup, link: Link, type_: str) -> Resolved:
    if _held_unread(model):
        return Resolved(unverified=True)
    name = link.target
    fix = model._hint("labels", name, lambda: model.names.labels) or f"`({name})=` を置くか、"
    message = f"{{{link.role}}} の参照先のラベル `{name}` がどの文書にも無いので、{fix}参照を直してください。"
    return Resolved(problem=Problem("broken_anchor", type_, message))


def resolve_any(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{any}``: what a Markdown link to a name would find, else a missing label."""
    found = _named(model, link, docname)
    if found is not None:
        return found
    if _unverified(model, None, link.target):
        return Resolved(unverified=True)
    return _missing_label(model, link, "ref.any")


def resolve_ref(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{ref}``: a label with a title, or with text of the reference's own."""
    name = link.target.lower()
    labels = model.names.labels
    if name in BUILTIN_LABELS:
        return Resolved(text=BUILTIN_LABELS[name], silent=True)
    entry = model.names.label_entry(name, link.explicit)
    if entry is None and name in labels:
        message = f"ラベル `{link.target}` には見出しも図の題も無いので、{{ref}} に `文字 <{link.target}>` の形で表示の文字を書いてください。"
        return Resolved(doc=labels[name][0], anchor=labels[name][1].id, problem=Problem("broken_anchor", "ref.ref", message))
    if entry is None:
        return _missing_label(model, link, "ref.ref")
    owner, label = entry
    return Resolved(doc=owner, anchor=label.id, text=label.title or None)


def resolve_numref(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{numref}``: a label of a numbered figure, table, code block or section, shown with its number."""
    entry = model.names.labels.get(link.target.lower())
    if entry is None:
        return _missing_label(model, link, "ref.numref")
    owner, label = entry
    number = model.numbers.get((owner, label.id))
    figtype = label.figtype
    if figtype is None or (figtype != "section" and number is None):
        message = f"{{numref}} のラベル `{link.target}` は番号の付く図・表・コードを指していないので、{{ref}} にするかラベルを図・表・コードに付けてください。"
        problem = Problem("broken_anchor", "ref.numref", message)
        return Resolved(doc=owner, anchor=label.id, text=label.title or link.target, problem=problem)
    if number is None:
        # Sections are numbered only by a `:numbered:` toctree.
        return Resolved(doc=owner, anchor=label.id, text=label.title or link.target)
    fmt = link.text if link.explicit else model.info.numfig_format.get(figtype, "%s")
    return Resolved(doc=owner, anchor=label.id, text=_numfig_text(fmt, number, label.title))


def _numfig_text(fmt: str, number: str, name: str) -> str:
    """Sphinx's ``{numref}`` text: ``{number}``/``{name}`` fields, else ``%s``."""
    try:
        if "{name}" in fmt or "{number}" in fmt:
            return fmt.format(name=name, number=number)
        return fmt % number if "%s" in fmt else fmt
    except (KeyError, ValueError, IndexError, TypeError):
        return fmt


def resolve_term(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{term}``: a glossary term (or, outside Sphinx, an index term the extension's glossary holds)."""
    terms = model.names.terms
    found = terms.get(link.target.lower())
    if found is None and link.target.lower() in model.index_terms:
        # Defined in the index: the Sphinx extension's glossary page holds it; a page mdmark
        # writes shows the term as text, and nothing is wrong.
        return Resolved(text=model.index_terms[link.target.lower()], silent=True)
    if found is None:
        fix = model._hint("terms", link.target, lambda: [t[2] for t in terms.values()]) or "用語の綴りを直すか、"
        message = f"用語 `{link.target}` が用語集（glossary）に無いので、{fix}glossary に加えてください。"
        return Resolved(problem=Problem("broken_anchor", "ref.term", message))
    return Resolved(doc=found[0], anchor=found[1], text=found[2])


def resolve_eq(model: Lookup, link: Link, docname: str) -> Resolved:
    """``{eq}``: a labelled equation, shown as its number."""
    targets = model.names.targets
    found = targets.get(("math", link.target))
    if found is None:
        fix = model._hint("math", link.target, lambda: [n for d, n in targets if d == "math"]) or "ラベルを直すか、"
        message = f"数式のラベル `{link.target}` がどの文書にも無いので、{fix}数式に `(label)` を付けてください。"
        return Resolved(problem=Problem("broken_anchor", "ref.eq", message))
    return Resolved(doc=found[0], anchor=found[1], text=f"({found[2]})" if found[2] else link.target)


# -- domains ---------------------------------------------------------------------------------------


def _python_builtin(role: str, target: str) -> bool:
    """Whether ``{py:role}`target``` names what ``sphinx.domains.python.builtin_resolver`` lets
    pass without a warning: ``None`` (class, obj), a built-in class or a ``typing`` name (class, obj, exc)."""
    import builtins
    import inspect
    import typing

    if role in ("class", "obj") and target == "None":
        return True
    if role not in ("class", "obj", "exc"):
        return False
    return inspect.isclass(getattr(builtins, target, None)) or target.removeprefix("typing.") in typing.__all__


def _nitpick_ignored(model: Lookup, role: str, domain: str, target: str) -> bool:
    full = role if ":" in role else f"{domain}:{role}"
    return any((kind, name) in model.info.nitpick_ignore for kind in (role, full) for name in (target,))


def resolve_domain(model: Lookup, link: Link, docname: str) -> Resolved:
    """A domain's role (``py:func``, ``std:option``, ``keyword``…): its object, found as the domain finds it."""
    domain, _, role = link.role.rpartition(":")
    if not domain or link.role == "std:keyword":
        domain, role = "std", role
    objtypes = model.info.objtypes_for(domain, role)
    found = model.names.find_object(domain, link.target, objtypes, link.module, link.scope, link.specific)
    if found is not None:
        return Resolved(doc=found[0], anchor=found[1], text=None)
    if _unverified(model, domain, link.target):
        return Resolved(unverified=True)
    if domain == "py" and _python_builtin(role, link.target):
        return Resolved()  # Sphinx's builtin_resolver: a built-in or typing name stays text, never a warning
    # Sphinx warns about a missing target only for roles made with ``warn_dangling`` (std's
    # option, confval, keyword), or for any role under `nitpicky`.
    warns = domain == "std" and role in _STD_WARNING_ROLES
    if (warns or model.info.nitpicky) and not _nitpick_ignored(model, link.role, domain, link.target):
        message = f"{{{link.role}}} の参照先 `{link.target}` がどの文書にも無いので、名前を直すか参照先を書いてください。"
        return Resolved(problem=Problem("broken_anchor", f"ref.{role}", message))
    return Resolved()


#: Role → its resolver (``Link.role``, as :mod:`mdmark.pipeline.extract` writes it); any other role
#: is a domain's (:func:`resolve_domain`).
RESOLVERS: dict[str, Resolver] = {
    "myst-doc": resolve_myst_doc,
    "doc": resolve_doc,
    "local": resolve_local,
    "myst": resolve_myst,
    "link": resolve_file,
    "download": resolve_file,
    "ref": resolve_ref,
    "numref": resolve_numref,
    "term": resolve_term,
    "eq": resolve_eq,
    "any": resolve_any,
    **dict.fromkeys(GLUE_ROLES, resolve_glue),
}
