"""Layer 7: the one reference resolver: what a link, a role or a toctree entry points at
(:mod:`~mdmark.references.main`)."""
