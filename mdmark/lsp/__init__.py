"""``mdmark lsp``: the language server (stdio, pygls) — thin handlers over the library.

Every answer comes from :func:`mdmark.check.collect.check_texts` (the drifts, with the editor's unsaved
buffers) and :class:`mdmark.queries.navigation.navigator.Navigator` (what is at a position, its definition,
references, hover, completion, symbols, rename, quick fixes). The modules here only translate
between LSP messages and those calls: positions in the client's units, URIs, ranges.
"""
