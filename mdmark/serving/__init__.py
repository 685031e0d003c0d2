"""The HTTP serving both front-end servers share (:mod:`~mdmark.serving.http`): below them, above the library."""
