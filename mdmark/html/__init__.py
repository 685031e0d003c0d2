"""The HTML writer behind ``mdmark export`` and ``mdmark build`` (and the MCP tools of the same names).

* :mod:`mdmark.html.render` — one document's doctree (from the pipeline) → a cached HTML fragment,
  by two visitors with one method per node type: :mod:`mdmark.html.doctree` (references and
  toctrees as placeholders, images as ``data:`` URIs, raw HTML cleaned) and
  :mod:`mdmark.html.translator` (the Sphinx app's HTML translator writing placeholders as tokens,
  math as MathML, and keeping each section title's markup);
* :mod:`mdmark.html.placeholders` — the one grammar of those tokens and their one reader;
* :mod:`mdmark.html.links` — the placeholders filled in for export (sibling ``.html`` files) or for
  build (in-page anchors), and ids prefixed per document for the single page;
* :mod:`mdmark.html.nav` — the built page's navigation: the toctrees' tree as Sphinx's
  ``singlehtml`` shows it;
* :mod:`mdmark.html.page` — ``templates/page.html`` around it, every stylesheet inline, the build
  page's script (``templates/page.js``), and a Content-Security-Policy that forbids remote loads
  and allows that script by its hash.
"""
