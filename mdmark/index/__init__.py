"""``index.yaml``: the model of documents, terms and tags (:mod:`~mdmark.index.model`), editing one
item as text (:mod:`~mdmark.index.edit`), and what relates documents to each other
(:mod:`~mdmark.index.relations`, :mod:`~mdmark.index.occurrences`)."""
