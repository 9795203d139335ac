"""The HTTP API (/research-api/...), problem+json errors, OpenAPI, and hosting of /mcp."""
