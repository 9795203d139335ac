"""The MCP surface: the low-level server over the contract catalog, presenters, the fence for
untrusted text, stdio, and streamable HTTP at /mcp."""
