"""The store's configurable values and their defaults (read from the environment by
`config.py`, which imports nothing else of the store)."""

from __future__ import annotations

from pathlib import Path

DEFAULT_POOL_SIZE = 10  # PostgreSQL connections per process (SOSOAPI_DATABASE_POOL_SIZE)
SQLITE_FILE = "sosoapi.sqlite3"


def sqlite_url(home: Path) -> str:
    """The embedded default's URL under `home` (the folder is made when it is opened)."""
    return f"sqlite:///{home / SQLITE_FILE}"
