project = "noconfig"
extensions = ["mdmark.sphinx_ext"]
exclude_patterns = ["_build"]
