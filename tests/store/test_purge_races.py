"""`purge` against the writes it can meet (issue 36, item 8): a retrieval storing a body
the purge is about to remove as unused, and a seal pinning a revision whose captures the
purge is about to remove. Each racing transaction is held open at its worst moment while
the purge runs; the body and the pinned captures survive, and the purge does not fail.
Both stores (SQLite serialises writers; PostgreSQL needs the locks)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, text

from sosoapi.application import Application
from sosoapi.clock import utcnow
from sosoapi.store.captures_repo import write_captures
from sosoapi.store.corpora_repo import CorporaInTx
from sosoapi.store.database import Database
from sosoapi.store.maintenance import PurgeCounts, purge_receipts
from sosoapi.store.records import CaptureWrite
from tests.support.calls import RETRIEVE
from tests.support.origin import HTTPSOrigin, Route

BODY = b"<html><body><p>" + b"Harbour words, kept once. " * 400 + b"</p></body></html>"


async def retrieved(application: Application, token: str, ws: str, origin: HTTPSOrigin) -> str:
    origin.routes["/page"] = Route(BODY)
    outcome = await application.research.call(
        RETRIEVE, token,
        {"workspace_id": ws, "url": origin.url("/page"), "kind": "url_text",
         "mutation_id": str(uuid.uuid4())},
    )  # fmt: skip
    evidence_id: str = outcome.output.wire()["retrieval"]["evidence"]["evidence_id"]
    return evidence_id


class Held(threading.Thread):
    """A write transaction that does `work`, then stays open until `release()`."""

    def __init__(self, db: Database, work: Callable[[Connection], Any]) -> None:
        super().__init__(daemon=True)
        self.db, self.work = db, work
        self.written, self.go = threading.Event(), threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with self.db.write() as conn:
                self.work(conn)
                self.written.set()
                self.go.wait(60)
        except BaseException as error:  # reported by the test
            self.error = error
            self.written.set()


class Purge(threading.Thread):
    def __init__(self, db: Database) -> None:
        super().__init__(daemon=True)
        self.db = db
        self.counts: PurgeCounts | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        later = utcnow() + timedelta(days=3)  # every capture and receipt is old enough
        try:
            self.counts = purge_receipts(self.db, later, later)
        except BaseException as error:
            self.error = error


def waiting_on_a_lock(db: Database) -> bool:
    """Whether some transaction of this database waits for a lock (PostgreSQL)."""
    with db.read() as conn:
        return bool(
            conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks WHERE NOT granted AND database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database())"
                )
            ).scalar()
        )


def race(db: Database, work: Callable[[Connection], Any]) -> Purge:
    """Hold `work`'s transaction open, run a purge until it ends or waits on that
    transaction, then let `work` commit; the purge, finished."""
    held = Held(db, work)
    held.start()
    assert held.written.wait(30) and held.error is None, held.error
    purge = Purge(db)
    purge.start()
    deadline = time.monotonic() + 30
    # SQLite: the purge's write waits for the held one (busy_timeout) by construction
    while not db.is_sqlite and purge.is_alive() and not waiting_on_a_lock(db):
        assert time.monotonic() < deadline, "the purge neither finished nor waited"
        time.sleep(0.02)
    held.go.set()
    held.join(30)
    purge.join(60)
    assert held.error is None, held.error
    assert not purge.is_alive() and purge.error is None, purge.error
    return purge


async def test_a_body_a_retrieval_is_storing_survives_a_racing_purge(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    evidence_id = await retrieved(application, token, ws, origin)
    store = application.store
    assert [c.body for c in store.captures.of_revision(ws, evidence_id, 1)] == [BODY]
    again = CaptureWrite("response", origin.url("/page"), utcnow() + timedelta(days=9), None,
                         200, "{}", BODY)  # fmt: skip

    def store_the_same_body(conn: Connection) -> None:
        write_captures(store.db, conn, evidence_id, 2, [again])

    purge = race(store.db, store_the_same_body)
    assert purge.counts is not None and purge.counts.captures >= 1  # revision 1's went
    assert store.captures.of_revision(ws, evidence_id, 1) == []
    assert [c.body for c in store.captures.of_revision(ws, evidence_id, 2)] == [BODY]


async def test_captures_a_racing_seal_pins_survive_the_purge(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    evidence_id = await retrieved(application, token, ws, origin)
    project = await application.research.call(
        "sosoapi_research_projects_create", token,
        {"workspace_id": ws, "title": "Harbour", "mutation_id": str(uuid.uuid4())},
    )  # fmt: skip
    project_id = project.output.wire()["project"]["id"]
    store = application.store
    snapshot = json.dumps({"evidence": [{"evidence_id": evidence_id, "revision": 1}]})

    def seal(conn: Connection) -> None:
        CorporaInTx(conn, lock_rows=False).seal(
            ws, str(uuid.uuid4()), project_id, snapshot, utcnow()
        )

    purge = race(store.db, seal)
    assert purge.counts is not None
    assert [c.body for c in store.captures.of_revision(ws, evidence_id, 1)] == [BODY]
