"""The use cases behind every surface: retrieve and upload receipts, evidence, projects,
corpora. They see egress, extract and storage ports, never HTTP, SQL or MCP."""
