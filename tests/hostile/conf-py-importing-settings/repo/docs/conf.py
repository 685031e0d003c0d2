extensions = ["myst_parser", "sphinx_design"]
myst_heading_anchors = 3
myst_heading_slug_func = "os.system"
pygments_style = "evilstyle.Style"
templates_path = ["_templates"]
graphviz_dot = "/bin/sh"
sd_custom_directives = {
    "secret": {"inherit": "include", "argument": "@SECRET_ABS@"},
    "secret-literal": {"inherit": "literalinclude", "argument": "@SECRET_ABS@"},
}
