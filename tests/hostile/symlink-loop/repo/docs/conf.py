extensions = ["myst_parser"]
exclude_patterns = []
