"""Layer 7: the one reference resolver: what a link, a role or a toctree entry points at
(:class:`~mdmark.references.main.Model`, over ``tables``, ``resolve``, ``toctrees`` and ``tracking``)."""
