"""Wrapper (mdmark's tests): upstream's conf.py (upstream_conf.py, unchanged) with the package
source on the path, the version it reads from the installed package given, and no network
(intersphinx inventories) and no third-party HTML theme (the theme plays no part in reading)."""

import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, os.pardir, "src"))
with open(os.path.join(_here, "upstream_conf.py"), encoding="utf-8") as _f:
    _source = _f.read().replace('metadata.version("svcs")', '"25.1.0"')
    _source = _source.replace("metadata.metadata('svcs')['summary']", "'A Flexible Service Locator'")
exec(compile(_source, os.path.join(_here, "upstream_conf.py"), "exec"))

intersphinx_mapping = {}
html_theme = "alabaster"
html_theme_options = {}
