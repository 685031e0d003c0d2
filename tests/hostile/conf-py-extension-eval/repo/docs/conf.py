extensions = ["myst_parser", "sphinx.ext.ifconfig", "sphinx.ext.autodoc", "sphinx.ext.viewcode"]
