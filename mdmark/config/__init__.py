"""``mdmark.config.yaml``: its keys, declared once as the dataclasses of :mod:`~mdmark.config.main`
through :mod:`~mdmark.declare.fields` (which the index model uses too), the declarative schema
with its Japanese sentences (:mod:`~mdmark.declare.schema`) and YAML loading with positions
(:mod:`~mdmark.config.yamlio`)."""
