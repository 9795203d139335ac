"""A private PostgreSQL schema for one test or benchmark, dropped afterwards."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote

import sqlalchemy as sa


@contextmanager
def private_schema(base_url: str, prefix: str = "t") -> Iterator[str]:
    """Yield a database URL whose search_path is a fresh schema, so runs never share rows."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(base_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base_url else "?"
    try:
        yield f"{base_url}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
