"""``mdmark preview``: the built page (or one exported document) served on loopback and reloaded on every save.

:mod:`~mdmark.preview.session` builds the page and the drift panel with the same library functions
as ``mdmark build``, ``mdmark export`` and ``mdmark check`` (warm: only what changed is parsed and
rendered again), :mod:`~mdmark.preview.inject` adds the panel and the reload script to the page,
:mod:`~mdmark.preview.watcher` sees the saves, and :mod:`~mdmark.preview.server` serves the page
and the reload events behind the MCP server's Host/Origin guard.
"""

from __future__ import annotations

#: The port ``mdmark preview`` listens on when neither ``--port`` nor ``MDMARK_PREVIEW_PORT`` says one.
DEFAULT_PORT = 8783

#: The environment variable with the port.
PORT_ENV = "MDMARK_PREVIEW_PORT"
