"""The MCP tools as declarations: each tool's parameters, handler and output schema, from which the
input schema, the argument checks and the matching CLI options come (:mod:`~mdmark.tools.registry`).
No transport here: :mod:`mdmark.server` wraps these in the MCP SDK."""
