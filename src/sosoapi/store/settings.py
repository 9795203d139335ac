"""The store's configurable values and their defaults (read from the environment by
`config.py`, which imports nothing else of the store)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DEFAULT_POOL_SIZE = 10  # PostgreSQL connections per process (SOSOAPI_DATABASE_POOL_SIZE)
SQLITE_FILE = "sosoapi.sqlite3"
# What one workspace may store, evidence text and capture bodies (SOSOAPI_WORKSPACE_STORAGE_MAX_MB;
# 0: no limit): a few hundred pages of the largest kind (5 MiB bodies, 500,000-character texts).
DEFAULT_WORKSPACE_STORAGE_MAX_MB = 2048
MIB = 1024 * 1024


def sqlite_url(home: Path) -> str:
    """The embedded default's URL under `home` (the folder is made when it is opened)."""
    return f"sqlite:///{home / SQLITE_FILE}"


def database_url(configured: str | None, home: Path) -> str:
    """SOSOAPI_DATABASE_URL, or SQLite in `home`. PostgreSQL's driver is the `postgres`
    extra (15 MB a SQLite install does without): a PostgreSQL URL without it is refused
    here, naming the fix (never the URL, which may hold a password)."""
    if not configured:
        return sqlite_url(home)
    if configured.startswith("postgresql") and importlib.util.find_spec("psycopg") is None:
        raise ValueError(
            "SOSOAPI_DATABASE_URL names PostgreSQL, but its driver (psycopg) is not "
            "installed; install the postgres extra: pip install 'sosoapi[postgres]'"
        )
    return configured
