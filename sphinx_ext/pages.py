"""Pages generated from the index for HTML builds: one page per vocabulary tag, a tag list, a glossary.

They are produced with ``html-collect-pages`` (public Sphinx API, rendered with the theme's
``page.html``), under ``<mdmark_pages>/`` (default ``mdmark/``): ``mdmark/tags/index``,
``mdmark/tags/<tag>`` and ``mdmark/glossary``. They are not source documents, so no file is
written into the user's source folder. Only the builders that call ``html-collect-pages`` for
standalone pages get them (``html``, ``dirhtml``); for other builders put ``{mdmark-glossary}`` in
a document.

So that ``{term}`` resolves to the generated glossary, the index terms (and their aliases) that no
document of the project defines are registered in Sphinx's standard domain on ``env-updated``,
pointing at the glossary page; ``{ref}`` labels ``mdmark-tags``, ``mdmark-tag:<name>`` and
``mdmark-glossary`` point at the pages. Those entries are refreshed on every build. A document
whose name a page would take keeps it (warning ``mdmark.pages``).
"""

from __future__ import annotations

import re
from html import escape
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util import logging as sphinx_logging

from mdmark.index.model import Doc, Index
from mdmark.host.accessors import is_epub, std_terms

from .directives import tag_ref
from .state import docname_of, get_state

logger = sphinx_logging.getLogger("mdmark.sphinx_ext")

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment


def pages_prefix(app: Sphinx) -> str | None:
    value = app.config.mdmark_pages
    return str(value).strip("/") if value else None


def writes_pages(builder: Builder) -> bool:
    """Whether ``builder`` writes the pages of ``html-collect-pages`` as standalone pages."""
    from sphinx.builders.html import StandaloneHTMLBuilder
    from sphinx.builders.singlehtml import SingleFileHTMLBuilder

    return (
        isinstance(builder, StandaloneHTMLBuilder)
        and not isinstance(builder, SingleFileHTMLBuilder)
        and not is_epub(builder)
    )


def _slug(name: str) -> str:
    return re.sub(r"[^\w-]+", "-", name).strip("-") or "tag"


def tag_pages(index: Index, prefix: str) -> dict[str, str]:
    """Vocabulary tag name → page name (unique even when two names make the same slug)."""
    pages: dict[str, str] = {}
    used: set[str] = {"index"}
    for tag in index.tags:
        if tag.name in pages:
            continue
        slug = base = _slug(tag.name)
        n = 2
        while slug.lower() in used:
            slug = f"{base}-{n}"
            n += 1
        used.add(slug.lower())
        pages[tag.name] = f"{prefix}/tags/{slug}"
    return pages


def glossary_page(prefix: str) -> str:
    return f"{prefix}/glossary"


def term_ids(index: Index) -> dict[str, str]:
    """Term id → HTML id on the glossary page."""
    ids: dict[str, str] = {}
    used: set[str] = set()
    for i, term in enumerate(index.terms):
        ident = nodes.make_id(f"term-{term.id}")
        if ident in ("term", "") or ident in used:
            ident = f"term-{i + 1}"
        used.add(ident)
        ids[term.id] = ident
    return ids


# -- {term} targets ------------------------------------------------------------------------------


_REGISTERED = "mdmark_registered"


def on_env_updated(app: Sphinx, env: BuildEnvironment) -> None:
    """Register the generated pages in the standard domain (HTML builders that write them).

    * index terms (and aliases) that no document defines → the glossary page, so ``{term}`` works;
    * labels for ``{ref}``: ``mdmark-tags`` (the tag list), ``mdmark-tag:<name>`` (one tag, lower
      case as ``{ref}`` looks it up) and ``mdmark-glossary``.

    These entries belong to no document, so Sphinx never purges them: the ones of the previous
    build (remembered in the environment) are removed first.
    """
    std = env.domains.standard_domain
    objects: dict[tuple[str, str], tuple[str, str]] = std.objects
    terms = std_terms(env)
    labels: dict[str, tuple[str, str, str]] = std.labels
    anonlabels: dict[str, tuple[str, str]] = std.anonlabels
    previous: dict[str, list[Any]] = getattr(env, _REGISTERED, None) or {}
    for obj_key in previous.get("objects", []):
        objects.pop((str(obj_key[0]), str(obj_key[1])), None)
    for term_key in previous.get("terms", []):
        terms.pop(term_key, None)
    for label in previous.get("labels", []):
        labels.pop(label, None)
        anonlabels.pop(label, None)
    registered: dict[str, list[Any]] = {"objects": [], "terms": [], "labels": []}
    setattr(env, _REGISTERED, registered)
    context = _pages_context(app)
    if context is None:
        return
    prefix, index = context
    wanted = [f"{prefix}/tags/index", *tag_pages(index, prefix).values()] if index.has_tags else []
    wanted += [glossary_page(prefix)] if index.terms else []
    for taken in [p for p in wanted if p in env.all_docs]:
        logger.warning(
            f"文書 `{taken}` と mdmark が作るページの名前が重なるので、conf.py の mdmark_pages で別のフォルダを指定してください。",
            type="mdmark",
            subtype="pages",
        )

    def add_label(name: str, page: str, title: str) -> None:
        if name in labels or name in anonlabels or page in env.all_docs:
            return  # the project's own label (or document) wins
        labels[name] = (page, "", title)
        anonlabels[name] = (page, "")
        registered["labels"].append(name)

    if index.has_tags:
        add_label("mdmark-tags", f"{prefix}/tags/index", "タグ")
        for name, page in tag_pages(index, prefix).items():
            add_label(f"mdmark-tag:{name.lower()}", page, f"タグ: {name}")
    page = glossary_page(prefix)
    ids = term_ids(index)
    for term in index.terms if page not in env.all_docs else []:
        for name in (term.term, *term.aliases):
            if ("term", name) in objects or name.lower() in terms:
                continue  # a glossary in the project defines it; that one wins
            objects["term", name] = (page, ids[term.id])
            terms[name.lower()] = (page, ids[term.id])
            registered["objects"].append(["term", name])
            registered["terms"].append(name.lower())
    if registered["objects"]:
        add_label("mdmark-glossary", page, "用語集")


# -- tag links in the doctrees -------------------------------------------------------------------


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn :class:`tag_ref` nodes into links to tag pages (or plain text where there are none)."""
    refs = list(doctree.findall(tag_ref))
    if not refs:
        return
    prefix = pages_prefix(app)
    index = get_state(app).index_or_none()
    pages = tag_pages(index, prefix) if (index is not None and prefix and writes_pages(app.builder)) else {}
    for node in refs:
        text = node.astext()
        page = pages.get(str(node.get("tag", "")))
        inline = nodes.inline("", text, classes=node.get("classes", []))
        if page is None:
            node.replace_self(inline)
            continue
        ref = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(docname, page))
        ref += inline
        node.replace_self(ref)


# -- the pages ----------------------------------------------------------------------------------------


def _doc_link(app: Sphinx, index: Index, doc: Doc, pagename: str) -> str:
    docname = docname_of(app.env, index, doc)
    if docname is None:
        return escape(doc.title)
    return f'<a class="reference internal" href="{escape(app.builder.get_relative_uri(pagename, docname))}">{escape(doc.title)}</a>'


def _docs_table(app: Sphinx, index: Index, docs: list[Doc], pagename: str, pages: dict[str, str]) -> str:
    if not docs:
        return '<p class="mdmark-empty">このタグの文書はありません。</p>'
    rows = []
    for doc in docs:
        tags = []
        for tag in index.tags_of(doc):
            label = escape(tag.name)
            page = pages.get(tag.name)
            if page is not None and page != pagename:
                label = f'<a class="reference internal" href="{escape(app.builder.get_relative_uri(pagename, page))}">{label}</a>'
            tags.append(f"<strong>{label}</strong>" if tag.main else label)
        rows.append(
            f"<tr><td><code>{escape(doc.id)}</code></td><td>{_doc_link(app, index, doc, pagename)}</td>"
            f"<td>{escape(doc.description or '')}</td><td>{', '.join(tags)}</td></tr>"
        )
    return (
        '<table class="docutils mdmark-docs"><thead><tr><th>ID</th><th>タイトル</th><th>説明</th><th>タグ</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _tag_page(app: Sphinx, index: Index, name: str, pagename: str, pages: dict[str, str]) -> dict[str, Any]:
    tag = index.tag(name)
    assert tag is not None
    parts = [f'<section class="mdmark-tag-page"><h1>タグ: {escape(tag.name)}</h1>']
    if tag.description:
        parts.append(f'<p class="mdmark-tag-description">{escape(tag.description)}</p>')
    meta = []
    if tag.group:
        meta.append(f"<dt>グループ</dt><dd>{escape(tag.group)}</dd>")
    if tag.aliases:
        meta.append(f"<dt>別名</dt><dd>{escape('、'.join(tag.aliases))}</dd>")
    if meta:
        parts.append(f'<dl class="mdmark-tag-meta">{"".join(meta)}</dl>')
    if tag.deprecated:
        repl = escape(tag.deprecated)
        page = pages.get(index.canonical_tag(tag.deprecated))
        if page is not None:
            repl = f'<a class="reference internal" href="{escape(app.builder.get_relative_uri(pagename, page))}">{repl}</a>'
        parts.append(f'<p class="mdmark-deprecated">このタグは廃止されました。代わりに {repl} を使います。</p>')
    parts.append(_docs_table(app, index, index.docs_with_tag(tag.name), pagename, pages))
    back = app.builder.get_relative_uri(pagename, f"{pagename.rsplit('/', 1)[0]}/index")
    parts.append(f'<p class="mdmark-all-tags"><a class="reference internal" href="{escape(back)}">すべてのタグ</a></p></section>')
    return {"title": f"タグ: {tag.name}", "body": "".join(parts)}


def _tag_index(app: Sphinx, index: Index, pagename: str, pages: dict[str, str]) -> dict[str, Any]:
    groups: dict[str | None, list[str]] = {}
    for tag in index.tags:
        if tag.name in pages:
            groups.setdefault(tag.group, [])
            if tag.name not in groups[tag.group]:
                groups[tag.group].append(tag.name)
    counts = index.tag_counts()
    parts = ['<section class="mdmark-tag-index"><h1>タグ</h1>']
    if not groups:
        parts.append('<p class="mdmark-empty">タグの語彙はありません。</p>')
    for group in sorted(groups, key=lambda g: (g is None, g or "")):
        parts.append(f"<h2>{escape(group) if group else 'グループなし'}</h2><ul>")
        for name in groups[group]:
            entry = index.tag(name)
            count = counts.get(name, 0)
            href = escape(app.builder.get_relative_uri(pagename, pages[name]))
            desc = f" — {escape(entry.description)}" if entry is not None and entry.description else ""
            dep = '<span class="mdmark-deprecated">（廃止）</span>' if entry is not None and entry.deprecated else ""
            parts.append(f'<li><a class="reference internal" href="{href}">{escape(name)}</a>{dep}（{count}）{desc}</li>')
        parts.append("</ul>")
    parts.append("</section>")
    return {"title": "タグ", "body": "".join(parts)}


def _glossary(app: Sphinx, index: Index, pagename: str) -> dict[str, Any]:
    ids = term_ids(index)
    parts = ['<section class="mdmark-glossary-page"><h1>用語集</h1><dl class="glossary mdmark-glossary">']
    for term in index.terms:
        parts.append(f'<dt id="{escape(ids[term.id])}">{escape(term.term)}</dt>')
        for alias in term.aliases:
            parts.append(f'<dt class="mdmark-alias">{escape(alias)}</dt>')
        parts.append("<dd>")
        if term.definition:
            parts.append(f"<p>{escape(term.definition)}</p>")
        docs = [d for d in (index.doc(i) for i in term.docs) if d is not None]
        if docs:
            links = "、".join(_doc_link(app, index, d, pagename) for d in docs)
            parts.append(f'<p class="mdmark-term-docs">説明している文書: {links}</p>')
        parts.append("</dd>")
    parts.append("</dl></section>")
    return {"title": "用語集", "body": "".join(parts)}


def _pages_context(app: Sphinx) -> tuple[str, Index] | None:
    """The pages folder and the index, when this build generates mdmark's pages at all."""
    prefix = pages_prefix(app)
    if prefix is None or not writes_pages(app.builder):
        return None
    index = get_state(app).index_or_none()
    return None if index is None else (prefix, index)


def on_html_collect_pages(app: Sphinx) -> Iterator[tuple[str, dict[str, Any], str]]:
    context = _pages_context(app)
    if context is None:
        return
    prefix, index = context

    def free(page: str) -> bool:
        return page not in app.env.all_docs  # on_env_updated has said so

    pages = tag_pages(index, prefix)
    if index.has_tags:
        index_page = f"{prefix}/tags/index"
        if free(index_page):
            yield index_page, _tag_index(app, index, index_page, pages), "page.html"
        for name, page in pages.items():
            if free(page):
                yield page, _tag_page(app, index, name, page, pages), "page.html"
    page = glossary_page(prefix)
    # Only when some term points here: a {mdmark-glossary} in the project makes the page redundant.
    registered = getattr(app.env, _REGISTERED, None) or {}
    if registered.get("objects") and free(page):
        yield page, _glossary(app, index, page), "page.html"


def on_build_finished_static(app: Sphinx, exception: BaseException | None) -> None:
    """Copy the extension's stylesheet next to the theme's (HTML builders only)."""
    if exception is not None or app.builder.format != "html":
        return
    from pathlib import Path

    from sphinx.util.fileutil import copy_asset_file

    css = Path(__file__).with_name("mdmark.css")
    copy_asset_file(css, Path(app.outdir) / "_static")
