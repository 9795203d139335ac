"""Persistence: SQLAlchemy Core tables, Alembic migrations, one repository per aggregate, and
the write transaction (`Store.transaction`); SQLite by default, PostgreSQL shared."""
