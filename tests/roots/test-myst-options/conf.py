project = "myst-options"
extensions = ["myst_parser", "mdmark.sphinx_ext"]
exclude_patterns = ["_build"]
# The project's own MyST settings: mdmark must keep them.
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 1
