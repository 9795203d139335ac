"""Tokens, principals, scopes, roles, and the one permission check."""
