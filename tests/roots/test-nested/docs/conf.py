project = "nested"
extensions = ["mdmark.sphinx_ext"]
exclude_patterns = ["_build"]
