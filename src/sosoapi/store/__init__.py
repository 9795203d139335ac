"""Persistence behind small repositories: SQLite embedded by default, PostgreSQL shared."""
