extensions = ["myst_parser"]
myst_enable_extensions = ["substitution"]
myst_substitutions = {"name": "mdmark"}
