"""Package discovery for the design card's layout (everything else is in pyproject.toml).

``mdmark/`` installs as itself; the top-level ``sphinx_ext/`` and ``templates/`` install as
``mdmark.sphinx_ext`` and ``mdmark.templates``. pyproject.toml's ``packages.find`` cannot map a
folder to another package name, so the packages are found here instead of listed by hand.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        "mdmark",
        *(f"mdmark.{name}" for name in find_packages("mdmark")),
        "mdmark.sphinx_ext",
        "mdmark.templates",
    ],
    package_dir={"mdmark": "mdmark", "mdmark.sphinx_ext": "sphinx_ext", "mdmark.templates": "templates"},
)
