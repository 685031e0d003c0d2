project = "rst-root"
extensions = ["myst_parser", "sphinx_design"]
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
html_theme = "basic"
exclude_patterns = ["_build"]
