"""Layer 1: how things are declared once: the declarative schema with its Japanese sentences
(:mod:`~mdmark.declare.schema`), dataclass fields as keys (:mod:`~mdmark.declare.fields`, for the config and
the index), an MCP tool and its parameters (:mod:`~mdmark.declare.tool`, :mod:`~mdmark.declare.params`)."""
