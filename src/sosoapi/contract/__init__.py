"""The published contract: tool JSON (verbatim), its pydantic models, the one vocabulary of
reasons, statuses and states, the tool catalog, and the `ServiceError` codes."""
