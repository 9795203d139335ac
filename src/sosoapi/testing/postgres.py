"""A private PostgreSQL schema for one test or benchmark, dropped afterwards."""

from __future__ import annotations

import threading
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


def tagged(url: str) -> tuple[str, str]:
    """`url` with a fresh `application_name`, and that name: its connections can be counted."""
    name = f"sosoapi-{uuid.uuid4().hex[:12]}"
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}application_name={name}", name


class ConnectionPeak:
    """The most server connections named `name` open at once while the block runs.

    Sampled every 20 ms from `pg_stat_activity` by a connection of its own (not counted).
    """

    def __init__(self, url: str, name: str) -> None:
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        self.name = name
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        query = sa.text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name")
        with self.engine.connect() as conn:
            while not self._stop.wait(0.02):
                count = conn.execute(query, {"name": self.name}).scalar_one()
                conn.rollback()  # a fresh snapshot of the statistics each time
                self.peak = max(self.peak, count)

    def __enter__(self) -> ConnectionPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self.engine.dispose()
