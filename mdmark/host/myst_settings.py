"""The config's ``markdown`` settings as MyST's Sphinx options: the one settings → MyST mapping,
shared by the pipeline's application and ``mdmark.sphinx_ext``. A value conf.py (or ``-D``) sets
is the project's; the config only fills in what it leaves unset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mdmark.config.main import MarkdownSettings

if TYPE_CHECKING:
    from sphinx.config import Config as SphinxConfig


def myst_values(settings: MarkdownSettings) -> dict[str, Any]:
    """The config's ``markdown`` section as Sphinx configuration values."""
    return {
        "myst_enable_extensions": list(settings.extensions),
        "myst_heading_anchors": settings.heading_anchors,
        "myst_substitutions": dict(settings.substitutions),
    }


def user_set(config: SphinxConfig, name: str) -> bool:
    """Whether conf.py (or ``-D``) gave ``name`` a value, as opposed to Sphinx's default."""
    # Sphinx keeps what conf.py's namespace held in a private dict; there is no public question.
    raw: dict[str, Any] = getattr(config, "_raw_config", {})
    return name in raw or name in config.overrides


def fill_in_myst(config: SphinxConfig, settings: MarkdownSettings) -> bool:
    """Give the MyST options conf.py leaves unset the config's ``markdown`` values (the one settings
    → MyST mapping, shared by the pipeline and ``mdmark.sphinx_ext``); whether any changed."""
    changed = False
    for name, value in myst_values(settings).items():
        if not user_set(config, name):
            setattr(config, name, value)
            changed = True
    return changed
