"""Migrate once, copy per test: a migrated template database for each store.

Each test that builds an Application gets its own database, as before, but as a copy of
one migrated per session (per xdist worker) instead of running every migration again: a
file copy for SQLite, `CREATE DATABASE ... TEMPLATE` for PostgreSQL.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from sosoapi.store.settings import SQLITE_FILE, sqlite_url
from sosoapi.store.store import Store


def migrated_sqlite(home: Path) -> Path:
    """A SQLite file migrated to head under `home`, closed (no WAL left beside it)."""
    Store(sqlite_url(home)).close()
    path = home / SQLITE_FILE
    assert not path.with_name(path.name + "-wal").exists(), "the template kept a WAL file"
    return path


def copy_sqlite(template: Path, home: Path) -> str:
    """The URL of a copy of `template` at `sqlite_url(home)`."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, home / SQLITE_FILE)
    return sqlite_url(home)


def _with_database(base_url: str, name: str) -> str:
    return sa.make_url(base_url).set(database=name).render_as_string(hide_password=False)


def _admin(base_url: str) -> sa.Engine:
    return sa.create_engine(base_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)


@contextmanager
def postgres_database(base_url: str, template: str | None = None) -> Iterator[str]:
    """A database of our own on `base_url`'s server (a copy of `template` if given), dropped
    afterwards: only databases made here are ever dropped."""
    name = f"sosoapi_{'t' if template else 'tmpl'}_{uuid.uuid4().hex[:16]}"
    admin = _admin(base_url)
    copy = f' TEMPLATE "{template}"' if template else ""
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"{copy}'))
        try:
            yield name
        finally:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@contextmanager
def migrated_postgres(base_url: str) -> Iterator[str]:
    """The name of a template database migrated to head, for `postgres_copy`."""
    with postgres_database(base_url) as name:
        Store(_with_database(base_url, name)).close()  # closes every connection it opened
        yield name


class PostgresPool:
    """Copies of a migrated template, each emptied after its test and handed to the next.

    Dropping a database makes PostgreSQL 15 checkpoint (seconds on a busy server, once
    28 s), so a copy is made only when every earlier one is in use; giving one back
    truncates every table a test wrote to and restarts every sequence it drew from, which
    leaves what a fresh copy of the template holds: the migrated schema, no rows.
    """

    def __init__(self, base_url: str, template: str) -> None:
        self.base_url = base_url
        self.template = template
        self._idle: list[str] = []
        self._made: list[str] = []

    @contextmanager
    def lease(self) -> Iterator[str]:
        """The URL of a migrated database no other test is using."""
        name = self._idle.pop() if self._idle else self._copy()
        yield _with_database(self.base_url, name)
        if self._emptied(name):
            self._idle.append(name)
        else:
            self._drop(name)

    def close(self) -> None:
        for name in list(self._made):
            self._drop(name)

    def _copy(self) -> str:
        name = f"sosoapi_t_{uuid.uuid4().hex[:16]}"
        with _admin(self.base_url).connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"'))
        self._made.append(name)
        return name

    def _emptied(self, name: str) -> bool:
        """Truncate every table but alembic's; False if a lingering lock stopped it."""
        engine = sa.create_engine(_with_database(self.base_url, name), poolclass=sa.pool.NullPool)
        try:
            with engine.begin() as conn:
                conn.execute(sa.text("SET LOCAL lock_timeout = '5s'"))
                tables = conn.execute(TABLES).scalars().all()
                written = " UNION ALL ".join(
                    f"SELECT '{t}' WHERE EXISTS (SELECT 1 FROM \"{t}\")" for t in tables
                )
                used = conn.execute(sa.text(written)).scalars().all()
                if used:  # an empty table needs nothing (truncating makes new files)
                    listed = ", ".join(f'"{table}"' for table in used)
                    conn.execute(sa.text(f"TRUNCATE {listed} CASCADE"))
                for sequence in conn.execute(USED_SEQUENCES).scalars():  # rollbacks count too
                    conn.execute(sa.text(f'ALTER SEQUENCE "{sequence}" RESTART'))
            return True
        except sa.exc.OperationalError:
            return False
        finally:
            engine.dispose()

    def _drop(self, name: str) -> None:
        with _admin(self.base_url).connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self._made.remove(name)


USED_SEQUENCES = sa.text(
    "SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND last_value IS NOT NULL"
)
TABLES = sa.text(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
)
