"""The MCP face: tool catalog, profiles, presenters, framing, stdio and streamable HTTP."""
