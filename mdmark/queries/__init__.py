"""The reading questions agents and the CLI ask of a project: find documents and tags
(:mod:`~mdmark.queries.find`), a document's outline (:mod:`~mdmark.queries.outline`) and its source
by section with its images (:mod:`~mdmark.queries.read_doc`, :mod:`~mdmark.queries.image_blocks`)."""
