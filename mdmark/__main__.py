import os
import sys

# `python -m mdmark` puts the starting folder first on sys.path: a repository's own `yaml.py` or
# `docutils/` there must never be imported in place of the installed package (nor a conf.py's
# extension be found there).
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from mdmark.cli.main import entry  # noqa: E402 - after sys.path is safe

entry()
