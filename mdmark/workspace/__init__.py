"""Layer 6: what is kept between calls for one project (:mod:`~mdmark.workspace.main`) and the relation
graph it keeps (:mod:`~mdmark.workspace.relations`)."""
