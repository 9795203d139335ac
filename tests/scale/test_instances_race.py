"""Two instances on one PostgreSQL, forced into the interleavings a load only finds by chance.

Each test holds one instance's transaction open at its commit (a SQLAlchemy `commit`
hook) until the other instance has sent the statement that must wait for it, so the race
happens every run: the same mutation claimed by both at once, and a replay judging a
lease that ran out while its settle was committing. Neither may answer an error, read
twice, or show a receipt half written.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
import sqlalchemy as sa
from sqlalchemy import event

from sosoapi.application import Application
from sosoapi.store.tables import retrievals
from tests.support.calls import args, call
from tests.support.faults import assert_nothing_half_written
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token

pytestmark = pytest.mark.exclusive  # a 1 s lease and held commits: timing

PAGE = b"<html><head><title>T</title></head><body><p>" + b"Plain words here. " * 40 + b"</p>"
HOLD_SECONDS = 10.0


@pytest.fixture
def a_lease() -> float:
    return 30.0


@pytest.fixture
async def instances(
    postgres_url: str, tmp_path: Path, origin: HTTPSOrigin, a_lease: float
) -> AsyncIterator[tuple[Application, Application]]:
    """Instances `a` (its lease `a_lease` seconds) and `b` on one PostgreSQL schema."""
    apps = []
    for name, lease in (("a", a_lease), ("b", 30.0)):
        settings = make_settings(postgres_url, tmp_path / name, origin.egress_env())
        receipts = replace(settings.receipts, lease_seconds=lease, sweep_interval_seconds=60)
        apps.append(Application(replace(settings, receipts=receipts)))
    async with held_open(apps[0].running()), held_open(apps[1].running()):
        yield apps[0], apps[1]
    for app in apps:
        app.store.close()


def hold_commit(
    app: Application, marks: Callable[[str], bool], until: threading.Event
) -> threading.Event:
    """Hold the commit of `app`'s transaction that ran a statement `marks` picks, until
    `until` is set (and 0.2 s more, for the other side's statement to reach the server
    and wait); the event returned is set once the commit is being held."""
    holding = threading.Event()

    @event.listens_for(app.store.db.engine, "before_cursor_execute")
    def mark(conn: sa.Connection, cursor: Any, statement: str, *_: Any) -> None:
        if marks(statement):
            conn.info["held"] = True

    @event.listens_for(app.store.db.engine, "commit")
    def hold(conn: sa.Connection) -> None:
        if conn.info.pop("held", False):
            holding.set()
            assert until.wait(HOLD_SECONDS), "the other instance never sent its statement"
            time.sleep(0.2)

    return holding


def sent(app: Application, marks: Callable[[str], bool]) -> threading.Event:
    """Set once `app` sends a statement `marks` picks."""
    seen = threading.Event()

    @event.listens_for(app.store.db.engine, "before_cursor_execute")
    def note(conn: sa.Connection, cursor: Any, statement: str, *_: Any) -> None:
        if marks(statement):
            seen.set()

    return seen


def errors_of(app: Application) -> list[str]:
    """The names of the database errors `app` meets, as they happen."""
    names: list[str] = []

    @event.listens_for(app.store.db.engine, "handle_error")
    def seen(context: sa.engine.ExceptionContext) -> None:
        names.append(type(context.original_exception).__name__)

    return names


async def test_one_mutation_claimed_by_two_instances_at_once_is_one_receipt_and_one_fetch(
    instances: tuple[Application, Application], origin: HTTPSOrigin
) -> None:
    a, b = instances
    workspace_id, token = owner_token(a)
    origin.routes["/race"] = Route(PAGE)
    b_inserts = sent(b, lambda s: s.startswith("INSERT INTO mutations"))
    a_holds = hold_commit(a, lambda s: s.startswith("INSERT INTO retrievals"), b_inserts)
    b_errors = errors_of(b)
    arguments = args(workspace_id, origin.url("/race"))
    first = asyncio.create_task(call(a, token, arguments))
    assert await anyio.to_thread.run_sync(a_holds.wait, HOLD_SECONDS)
    second = await call(b, token, arguments)  # finds no key, inserts it, waits, loses
    first_receipt = await first
    assert b_errors == ["UniqueViolation"]  # the race was run, and lost on the key
    assert first_receipt["id"] == second["id"]
    for receipt in (first_receipt, await call(b, token, arguments)):
        assert receipt["state"] == "completed" and receipt["result"]["status"] == "ready"
    assert origin.hits["/race"] == 1
    with a.store.db.read() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(retrievals)).scalar() == 1
    assert_nothing_half_written(a.store.db.engine)


@pytest.mark.parametrize("a_lease", [1.0])  # a held settle outlives it
async def test_a_lease_that_runs_out_while_its_settle_commits_is_judged_after_the_commit(
    instances: tuple[Application, Application], origin: HTTPSOrigin
) -> None:
    a, b = instances
    workspace_id, token = owner_token(a)
    origin.routes["/settling"] = Route(PAGE)
    b_judges = sent(b, lambda s: s.startswith("UPDATE retrievals SET state") and "lease" in s)
    a_holds = hold_commit(a, lambda s: s.startswith("INSERT INTO evidence_revisions"), b_judges)
    arguments = args(workspace_id, origin.url("/settling"))
    first = asyncio.create_task(call(a, token, arguments))
    assert await anyio.to_thread.run_sync(a_holds.wait, HOLD_SECONDS)
    await anyio.sleep(1.5)  # a's 1 s lease runs out on the database clock, unrenewed
    replayed = await call(b, token, arguments)  # judges the lease: waits for a's row lock
    first_receipt = await first
    for receipt in (first_receipt, replayed):
        assert receipt["state"] == "completed", receipt
        assert receipt["evidence"] is not None and receipt["result"]["status"] == "ready"
    assert origin.hits["/settling"] == 1
    assert_nothing_half_written(a.store.db.engine)
