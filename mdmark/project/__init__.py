"""Layer 7: a config, its index, its workspace and its pipeline opened the one way
(:mod:`~mdmark.project.main`)."""
