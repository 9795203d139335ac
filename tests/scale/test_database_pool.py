"""A process's PostgreSQL connections: a fixed pool that callers queue for, never overflow.

Three instances under 200 clients each opened up to 40 connections (a pool of 10 plus 30
overflow) against a server allowing 100; the calls that met "too many clients" failed
(a 500 before store faults were typed, a 503 after). Now each process holds at most
`SOSOAPI_DATABASE_POOL_SIZE` connections and a caller past them waits for one.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
import sqlalchemy as sa

from sosoapi.contract.errors import ServiceError
from sosoapi.research.faults import answering_store_faults
from sosoapi.store.database import Database
from sosoapi.store.faults import operational_faults
from sosoapi.store.records import StoreUnavailable
from tests.support.cluster import ThrowawayCluster

CALLERS = 40


def _backend_pids(databases: list[Database], callers: int) -> set[int]:
    """Run `callers` reads at once, spread over `databases`; the server processes they used."""
    barrier = threading.Barrier(callers)

    def read(n: int) -> int:
        barrier.wait()
        with databases[n % len(databases)].read() as conn:
            time.sleep(0.05)  # hold the connection while the others ask for theirs
            return conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()

    with ThreadPoolExecutor(callers) as pool:
        return set(pool.map(read, range(callers)))


def test_two_processes_within_max_connections_serve_every_caller() -> None:
    """Two pools of 3 on a server allowing 6: 40 simultaneous callers all get an answer."""
    with ThrowawayCluster(max_connections=6, superuser_reserved_connections=0) as cluster:
        databases = [Database(cluster.url, pool_size=3) for _ in range(2)]
        try:
            pids = _backend_pids(databases, CALLERS)
        finally:
            for db in databases:
                db.dispose()
    assert 2 <= len(pids) <= 6


def test_a_caller_past_the_pool_timeout_gets_store_unavailable(postgres_url: str) -> None:
    db = Database(postgres_url, pool_size=1, pool_timeout=0.2)
    try:
        with db.read():  # the one pooled connection stays busy
            with pytest.raises(StoreUnavailable) as raised, db.read():
                pass
            with pytest.raises(ServiceError) as answered, answering_store_faults(), db.read():
                pass
    finally:
        db.dispose()
    assert raised.value.cause == "pool_timeout"
    assert answered.value.http_status == 503 and answered.value.retry_after_seconds


def test_too_many_clients_is_unavailable_named_by_its_code() -> None:
    refused = psycopg.OperationalError(
        'connection failed: connection to server at "db", port 5432 failed: '
        "FATAL:  sorry, too many clients already"
    )
    with pytest.raises(StoreUnavailable) as raised, operational_faults():
        raise sa.exc.OperationalError("connect", None, refused)
    assert raised.value.cause == "OperationalError 53300"
    assert "db" not in str(raised.value)
