# mdmark's test copy: the unchanged upstream conf.py, then its theme replaced by Sphinx's own
# (sphinx_book_theme is not installed here; the theme changes no document).
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream_conf.py"), encoding="utf-8") as _f:
    exec(compile(_f.read(), "upstream_conf.py", "exec"))

html_theme = "basic"
html_theme_options = {}
