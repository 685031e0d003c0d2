"""The drift check: :func:`mdmark.check.collect.collect` runs the rule table of :mod:`mdmark.check.rules`
over one context; ``mdmark check``, the MCP tool ``check`` and the Sphinx extension all call it."""
