"""The MCP server (``mdmark serve``): nine tools over Streamable HTTP at ``/mcp`` or over stdio.

:mod:`mdmark.tools.registry` holds the tool schemas and argument handling (no transport);
:mod:`mdmark.server.app` wraps them in the MCP SDK's low-level server, uvicorn and stdio.
"""

from __future__ import annotations

DEFAULT_PORT = 8782
