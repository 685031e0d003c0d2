"""``mdmark.config.yaml``: the declaration of its keys (:mod:`~mdmark.config.main`), the declarative
schema shared with the index (:mod:`~mdmark.config.schema`) and YAML loading with positions
(:mod:`~mdmark.config.yamlio`)."""
