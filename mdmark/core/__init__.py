"""Layer 0: the contracts every layer shares: errors (:mod:`~mdmark.core.errors`), drifts and their kinds
(:mod:`~mdmark.core.diagnostics`) and what a document's facts are (:mod:`~mdmark.core.facts`)."""
