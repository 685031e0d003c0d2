"""mdmark inside an existing Sphinx project: ``extensions = ["mdmark.sphinx_ext"]`` in ``conf.py``.

* enables ``myst_parser`` and ``sphinx_design`` (when conf.py has not already);
* finds ``mdmark.config.yaml`` (``mdmark_config = "path"`` relative to conf.py's folder, else the
  nearest one from conf.py's folder upward) and applies its ``markdown`` settings to the MyST
  options conf.py does not set itself;
* reports every drift of ``mdmark check`` as a warning ``[mdmark.<kind>]`` with its location, from
  the doctrees this build read (:mod:`.facts`, :mod:`.drift`);
* adds ``{mdmark-related}``, ``{mdmark-docs}`` and ``{mdmark-glossary}`` (:mod:`.directives`) and,
  for HTML, tag pages and a glossary page that ``{term}`` resolves to, reachable with ``{ref}``
  labels ``mdmark-tags``, ``mdmark-tag:<name>``, ``mdmark-glossary`` (:mod:`.pages`).

Warnings: ``mdmark.<kind>`` for each drift kind of ``mdmark check``; ``mdmark.check.collect`` when the check
cannot run (unreadable index); ``mdmark.directive`` for a directive that cannot show what it was
asked for; ``mdmark.pages`` when a document already has a generated page's name.

Configuration values: ``mdmark_config`` (path or None), ``mdmark_pages`` (folder of the generated
pages, default ``"mdmark"``; None turns them off), ``mdmark_check`` (report drift, default True),
``mdmark_join_east_asian_lines`` (a newline between Japanese characters joins the lines instead of
showing as a space, as in ``mdmark export``; default False, :mod:`mdmark.host.linebreaks`).
Nothing heavy happens in :func:`setup`: the config is read on ``config-inited``, the index on first
use, and the check once at the end of the build.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark import __version__

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config as SphinxConfig


def _on_config_inited(app: Sphinx, config: SphinxConfig) -> None:
    from sphinx.errors import ConfigError
    from sphinx.util import logging as sphinx_logging

    from mdmark.config.main import find_config, load_config
    from mdmark.core.errors import MdmarkError
    from mdmark.host.myst_settings import fill_in_myst

    from .state import State, set_state

    logger = sphinx_logging.getLogger("mdmark.sphinx_ext")
    confdir = Path(app.confdir)
    explicit = config.mdmark_config
    try:
        if explicit:
            found = load_config(confdir, str(explicit))
        elif find_config(confdir) is not None:
            found = load_config(confdir)
        else:
            found = None
    except MdmarkError as exc:
        raise ConfigError(exc.message) from None
    set_state(app, State(confdir=confdir, config=found))
    if found is None:
        logger.info(f"mdmark: `{confdir}` から上に mdmark.config.yaml が無いので、索引を使う機能と点検は働きません。")
        return
    # MyST's own config-inited handler (later) reads these into its configuration.
    fill_in_myst(config, found.markdown)


def setup(app: Sphinx) -> dict[str, Any]:
    from . import directives, drift, facts, pages, state

    app.setup_extension("myst_parser")
    app.setup_extension("sphinx_design")
    # mdmark_join_east_asian_lines: the line-break post-transform export and build use (off by default).
    app.setup_extension("mdmark.host.linebreaks")

    app.add_config_value("mdmark_config", None, "env", types=(str, type(None)))
    app.add_config_value("mdmark_pages", "mdmark", "html", types=(str, type(None)))
    app.add_config_value("mdmark_check", True, "", types=(bool,))

    app.add_directive("mdmark-related", directives.RelatedDirective)
    app.add_directive("mdmark-docs", directives.DocsDirective)
    app.add_directive("mdmark-glossary", directives.GlossaryDirective)
    app.add_node(directives.tag_ref)
    app.add_css_file("mdmark.css")

    # Early, so every later config-inited handler sees the MyST options mdmark sets.
    app.connect("config-inited", _on_config_inited, priority=400)
    app.connect("builder-inited", state.bind_env)
    app.connect("env-before-read-docs", state.on_env_before_read_docs)
    # Late, so Sphinx's collectors (images, metadata) have run on the doctree.
    app.connect("doctree-read", facts.on_doctree_read, priority=900)
    app.connect("env-purge-doc", facts.on_env_purge_doc)
    app.connect("env-merge-info", facts.on_env_merge_info)
    app.connect("env-updated", pages.on_env_updated)
    app.connect("doctree-resolved", pages.on_doctree_resolved)
    app.connect("html-collect-pages", pages.on_html_collect_pages)
    app.connect("build-finished", pages.on_build_finished_static)
    app.connect("build-finished", drift.on_build_finished, priority=900)

    return {
        "version": __version__,
        "env_version": 1,
        # Facts are merged back from read processes (env-merge-info); every directive's effect
        # lives in the doctree or in domain data Sphinx merges itself.
        "parallel_read_safe": True,
        # Writing only resolves tag links per doctree; pages and the check run in the main process.
        "parallel_write_safe": True,
    }
