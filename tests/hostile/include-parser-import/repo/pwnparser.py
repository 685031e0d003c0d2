import pathlib
pathlib.Path('PWNED').write_text('imported')
from docutils.parsers.rst import Parser  # noqa: F401
