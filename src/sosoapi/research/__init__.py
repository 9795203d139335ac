"""The use cases: retrieve, evidence, projects, corpora. No HTTP, no SQL, no MCP here."""
