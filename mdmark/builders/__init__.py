"""Outputs: one document as a self-contained page (:mod:`~mdmark.builders.export`) and the config's
``build`` documents as one navigable page (:mod:`~mdmark.builders.build`), both from :mod:`mdmark.html`."""
