"""The one way through: Markdown → MyST → docutils doctree → facts (:mod:`~mdmark.pipeline.pipeline`),
over a source folder's documents (:mod:`~mdmark.pipeline.sources`), with extraction
(:mod:`~mdmark.pipeline.extract`), the worker pool for cold runs (:mod:`~mdmark.pipeline.pool`, its processes in
:mod:`~mdmark.pipeline.zygote`, their bounds in :mod:`~mdmark.pipeline.limits`)
and the content caches (:mod:`~mdmark.pipeline.contentcache`, :mod:`~mdmark.pipeline.cachestore`)."""
