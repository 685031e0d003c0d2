"""``index.yaml``: the model of documents, terms and tags (:mod:`~mdmark.index.model`), editing one
item as text (:mod:`~mdmark.queries.edit_index`), and what relates documents to each other
(:mod:`~mdmark.workspace.relations`, :mod:`~mdmark.index.occurrences`)."""
