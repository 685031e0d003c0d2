"""Wrapper (mdmark's tests): upstream's conf.py (upstream_conf.py, unchanged) without the network
(intersphinx inventories), without ``jupyter_sphinx`` (it runs a Jupyter kernel: not light to
install), and without a third-party HTML theme (the theme plays no part in reading). Sphinx 9's
apidoc has no ``OPTIONS`` list any more: the options upstream appends to it are given the way
Sphinx 9 reads them (``SPHINX_APIDOC_OPTIONS``)."""

import os

from sphinx.ext import apidoc as _apidoc

_apidoc.OPTIONS = []  # type: ignore[attr-defined]
os.environ.setdefault("SPHINX_APIDOC_OPTIONS", "members,undoc-members,show-inheritance,ignore-module-all")

_here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_here, "upstream_conf.py"), encoding="utf-8") as _f:
    exec(compile(_f.read(), os.path.join(_here, "upstream_conf.py"), "exec"))

extensions = [e for e in extensions if e != "jupyter_sphinx"]  # noqa: F821 (from upstream_conf.py)
intersphinx_mapping = {}
html_theme = "alabaster"
html_theme_options = {}
