"""A read on PostgreSQL opens no transaction (no BEGIN, no COMMIT: two round trips each
time, for nothing at READ COMMITTED), and still sees what was committed; SQLite keeps its
read transaction, its one snapshot; a write is a transaction on both, and a write of one
statement on PostgreSQL is its own. SQLite's BEGINs are sent by `Database` itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from sosoapi.store.database import Database
from tests.support.migrations import insert_workspace

# The engine events SQLAlchemy dispatches around every statement and transaction.
STATEMENT_EVENTS = (
    "before_execute",
    "after_execute",
    "before_cursor_execute",
    "after_cursor_execute",
    "begin",
    "commit",
    "rollback",
)


def _in_transaction(conn: Connection) -> bool:
    driver = conn.connection.driver_connection
    if hasattr(driver, "in_transaction"):  # sqlite3
        return bool(driver.in_transaction)
    return driver.info.transaction_status.name != "IDLE"  # psycopg


def test_a_read_opens_a_transaction_on_sqlite_only(database_url: str) -> None:
    db = Database(database_url)
    db.migrate()
    try:
        with db.write() as conn:
            insert_workspace(conn, "w")
            assert _in_transaction(conn)
        with db.read() as conn:
            assert conn.execute(text("SELECT name FROM workspaces")).scalar_one() == "w"
            assert _in_transaction(conn) is db.is_sqlite
        with db.write() as conn:  # a read's connection back in the pool writes as before
            conn.execute(text("UPDATE workspaces SET name = 'v'"))
            assert _in_transaction(conn)
        with db.read() as conn:
            assert conn.execute(text("SELECT name FROM workspaces")).scalar_one() == "v"
    finally:
        db.dispose()


def test_a_one_statement_write_is_its_own_transaction_on_postgres(database_url: str) -> None:
    """`write_one` (a lease taken or renewed, an origin's turn reserved): on PostgreSQL the
    statement commits as it ends, with no BEGIN or COMMIT sent; on SQLite it is a write
    transaction as any other."""
    db = Database(database_url)
    db.migrate()
    try:
        with db.write_one() as conn:
            insert_workspace(conn, "w")
            assert _in_transaction(conn) is db.is_sqlite
        with db.read() as conn:
            assert conn.execute(text("SELECT name FROM workspaces")).scalar_one() == "w"
    finally:
        db.dispose()


def test_sqlite_begins_each_transaction_itself_with_no_engine_events(tmp_path: Path) -> None:
    """A write takes SQLite's write lock at its BEGIN (IMMEDIATE), before any statement; a
    read begins DEFERRED and leaves it free. `Database` sends those BEGINs itself, so the
    engine has no event listener: with one, SQLAlchemy dispatched its events around every
    statement, commit and rollback."""
    db = Database(f"sqlite:///{tmp_path / 'db'}")
    db.migrate()
    other = sqlite3.connect(tmp_path / "db", timeout=0, isolation_level=None)
    try:
        assert not any(getattr(db.engine.dispatch, name) for name in STATEMENT_EVENTS)
        with db.write() as conn:
            assert _in_transaction(conn)
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        with db.read() as conn:
            assert _in_transaction(conn)
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
    finally:
        other.close()
        db.dispose()
