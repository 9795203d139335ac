"""PostgreSQL's pool pings a connection before handing it out only when it sat idle for
over `PING_AFTER_IDLE_SECONDS` (store/database.py `_ping_idle_connections`): a retrieval
takes a connection 6 to 9 times within milliseconds, and a ping each time was a round
trip for nothing. An idle connection the server dropped is still replaced before a
statement meets it; one dropped inside the window fails its call once as unavailable, and
the pool is new for the next.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from sosoapi.store import database
from sosoapi.store.database import Database
from sosoapi.store.records import StoreUnavailable

pytestmark = pytest.mark.postgres


@pytest.fixture
def db(postgres_url: str) -> Iterator[Database]:
    db = Database(postgres_url, pool_size=1)
    yield db
    db.dispose()


@pytest.fixture
def pings(db: Database, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every ping the pool sends, counted on its way to the driver."""
    sent: list[Any] = []
    do_ping = db.engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        sent.append(dbapi_connection)
        return do_ping(dbapi_connection)

    monkeypatch.setattr(db.engine.dialect, "do_ping", counted)
    return sent


def _backend(db: Database) -> int:
    with db.read() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


def _drop(postgres_url: str, pid: int) -> None:
    """The server ends the backend, as a restart or an idle timeout would."""
    engine = sa.create_engine(postgres_url)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            gone = sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid")
            while conn.execute(gone, {"pid": pid}).scalar_one():
                time.sleep(0.01)
    finally:
        engine.dispose()


def test_a_connection_back_within_the_window_is_handed_out_without_a_ping(
    db: Database, pings: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "PING_AFTER_IDLE_SECONDS", 3600.0)
    backends = {_backend(db) for _ in range(5)}
    assert len(backends) == 1  # one connection, taken five times
    assert pings == []


def test_an_idle_connection_the_server_dropped_is_replaced_before_use(
    db: Database, postgres_url: str, pings: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _backend(db)
    _drop(postgres_url, first)
    monkeypatch.setattr(database, "PING_AFTER_IDLE_SECONDS", 0.0)  # every connection idle
    second = _backend(db)  # no error: the ping found it dropped
    assert second != first
    assert pings[0].broken  # the dropped one was pinged, found broken and replaced


def test_a_connection_dropped_inside_the_window_fails_once_and_the_pool_is_replaced(
    db: Database, postgres_url: str, pings: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "PING_AFTER_IDLE_SECONDS", 3600.0)
    first = _backend(db)
    _drop(postgres_url, first)
    with pytest.raises(StoreUnavailable):
        _backend(db)
    assert _backend(db) != first
    assert pings == []
