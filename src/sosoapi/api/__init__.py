"""The HTTP surface: one POST route per tool (/research-api/...), problem+json, OpenAPI;
it mounts the MCP app it is handed at /mcp without importing `mcp`."""
