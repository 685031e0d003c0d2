extensions = ["myst_parser"]
language = "xx"
