"""The HTML writer behind ``mdmark export`` and ``mdmark build`` (and the MCP tools of the same names).

* :mod:`mdmark.html.render` — one document's doctree (from the pipeline) → a cached HTML fragment,
  written by the Sphinx app's HTML translator, with references left as placeholders, images as
  ``data:`` URIs and math as MathML;
* :mod:`mdmark.html.links` — the placeholders filled in for export (sibling ``.html`` files) or for
  build (in-page anchors), and ids prefixed per document for the single page;
* :mod:`mdmark.html.page` — ``templates/page.html`` around it, every stylesheet inline, and a
  Content-Security-Policy that forbids remote loads.
"""
