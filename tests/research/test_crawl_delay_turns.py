"""An origin's turn after a read's deadline keeps the receipt `pending`, not `rate_limited`.

Crawl-delay 30 (capped to 2 s by SOSOAPI_ROBOTS_MAX_CRAWL_DELAY) with a 1 s fetch
deadline: before, every read after the first settled `rate_limited` at its deadline and
was never fetched. Now each waits `pending` for its turn under this instance's lease (no
other instance starts it; if this one dies the lease runs out and any instance resumes
it), is read at its turn, and a replay of the same mutation_id collects it. Only a turn
after the receipt's window settles `rate_limited`, at once, with the turn as the retry.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sosoapi.application import Application
from sosoapi.config import egress_from_env
from sosoapi.contract.vocabulary import State
from sosoapi.research.mutations import new_mutation
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.lifespan import held_open
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import make_settings, owner_token

PAGE = b"<html><body><p>The page read at its turn, not refused before it.</p></body></html>"
CRAWL_DELAY_30 = Route(b"User-agent: *\nCrawl-delay: 30\n", content_type="text/plain")


async def _application(
    database_url: str,
    tmp_path: Path,
    origin: HTTPSOrigin,
    max_crawl_delay: int = 2,
    **receipts: float,
) -> Application:
    env = {**origin.egress_env(), "SOSOAPI_ROBOTS_MAX_CRAWL_DELAY": str(max_crawl_delay)}
    settings = make_settings(database_url, tmp_path, env, **receipts)
    egress = replace(settings.egress, total_timeout=1.0)
    assert egress_from_env(env).robots_max_crawl_delay == max_crawl_delay  # from its setting
    return Application(replace(settings, egress=egress))


@pytest.fixture
async def paced(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin
) -> AsyncIterator[Application]:
    origin.routes["/robots.txt"] = CRAWL_DELAY_30
    origin.routes["/page"] = Route(PAGE)
    app = await _application(database_url, tmp_path, origin, wait_budget_seconds=1.5)
    async with held_open(app.running()):
        yield app
    app.store.close()


async def _retrieve(
    app: Application, token: str, workspace_id: str, url: str, mutation_id: str
) -> dict[str, Any]:
    arguments = {
        "url": url,
        "kind": "url_text",
        "workspace_id": workspace_id,
        "mutation_id": mutation_id,
    }
    outcome = await app.research.call(RETRIEVE, token, arguments, transport="http")
    data = outcome.output.wire()
    assert_valid_output(RETRIEVE, data)
    receipt: dict[str, Any] = data["retrieval"]
    return receipt


async def _all_at_once(
    app: Application, token: str, workspace_id: str, url: str, keys: list[str]
) -> list[dict[str, Any]]:
    """Calls for `keys` at once: their reads reserve the origin's turns 0, 2, 4 s out."""
    calls = (_retrieve(app, token, workspace_id, url, key) for key in keys)
    return list(await asyncio.gather(*calls))


async def test_a_turn_after_the_deadline_stays_pending_and_a_replay_collects_it(
    paced: Application, origin: HTTPSOrigin
) -> None:
    workspace_id, token = owner_token(paced)
    url = origin.url("/page")
    keys = [str(uuid.uuid4()) for _ in range(3)]
    answers = await _all_at_once(paced, token, workspace_id, url, keys)
    # The first read is fetched at once; the turns 2 s and 4 s out are past the 1 s
    # deadline: those calls answer `pending` (not started), never `rate_limited`.
    states = sorted(a["state"] for a in answers)
    assert states[1:] == ["pending", "pending"] and states[0] in ("completed", "running"), answers
    assert all(a["result"] is None or a["result"]["status"] == "ready" for a in answers)
    for key in (a["mutation_id"] for a in answers if a["state"] == "pending"):
        stored = paced.store.retrievals.retrieval(workspace_id, key)
        assert stored is not None and stored.lease_owner == paced.receipts.owner
    assert origin.page_hits["/page"] < 3
    # Replays of the same mutation_ids collect each read once its turn has come.
    settled: dict[str, dict[str, Any]] = {}
    give_up = time.monotonic() + 20
    while len(settled) < 3 and time.monotonic() < give_up:
        for key in keys:
            if key not in settled:
                receipt = await _retrieve(paced, token, workspace_id, url, key)
                if receipt["state"] not in ("pending", "running"):
                    settled[key] = receipt
    assert len(settled) == 3, settled
    for receipt in settled.values():
        assert receipt["state"] == "completed", receipt
        assert receipt["result"]["status"] == "ready", receipt["result"]
        assert "read at its turn" in receipt["result"]["text"]
    assert origin.page_hits["/page"] == 3  # each read fetched exactly once


async def test_a_turn_after_the_receipts_window_settles_rate_limited_at_once(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin
) -> None:
    """A window of 1.5 s cannot hold a turn 2 or 4 s out: `rate_limited` at once (inside
    the 5 s wait budget), retry after no more than the turn, and no fetch."""
    origin.routes["/robots.txt"] = CRAWL_DELAY_30
    origin.routes["/page"] = Route(PAGE)
    app = await _application(
        database_url, tmp_path, origin, wait_budget_seconds=5.0, idempotency_window_seconds=1.5
    )
    async with held_open(app.running()):
        workspace_id, token = owner_token(app)
        url = origin.url("/page")
        keys = [str(uuid.uuid4()) for _ in range(3)]
        answers = await _all_at_once(app, token, workspace_id, url, keys)
        assert all(a["state"] == "completed" for a in answers), answers
        results = sorted((a["result"] for a in answers), key=lambda r: r["status"])
        assert [r["status"] for r in results] == ["rate_limited", "rate_limited", "ready"]
        for late in results[:2]:
            assert late["reason"] == "rate_limited"
            assert 1 <= late["retry_after_seconds"] <= 4, late  # the turn, rounded up
        assert origin.page_hits["/page"] == 1
    app.store.close()


def _claimed(app: Application, workspace_id: str, owner: str) -> str:
    """A receipt claimed running under `owner`'s lease, as a worker starting a read has it."""
    now = datetime.now(UTC)
    arguments = {"url": "https://a.test/", "kind": "url_text", "language": None}
    key = new_mutation(
        RETRIEVE,
        {**arguments, "workspace_id": workspace_id, "mutation_id": str(uuid.uuid4())},
        None,
        now,
    )
    record = app.store.retrievals.claim_retrieval(
        key,
        str(uuid.uuid4()),
        "url_text",
        "https://a.test/",
        None,
        now + timedelta(hours=1),
        lease=(owner, 30.0),
    )
    assert record is not None and record.state == State.RUNNING
    return record.id


def test_a_parked_receipt_is_pending_under_its_lease_and_resumed_when_it_runs_out(
    application: Application, owner: tuple[str, str]
) -> None:
    """Parked: `pending`, still leased (renewed), so no other instance lists or takes it;
    its own worker takes it back at the turn. A lease run out (the instance died) frees it
    for any instance, as any pending read."""
    repo = application.store.retrievals
    retrieval_id = _claimed(application, owner[0], "here")
    assert repo.park(retrieval_id, "here", 30.0)
    assert not repo.park(retrieval_id, "there", 30.0)
    parked = repo.retrieval_by_id(retrieval_id)
    assert parked is not None and parked.state == State.PENDING
    assert parked.lease_owner == "here"
    assert repo.renew(retrieval_id, "here", 30.0)  # renewing keeps it pending
    assert repo.retrieval_by_id(retrieval_id).state == State.PENDING  # type: ignore[union-attr]
    assert retrieval_id not in repo.pending_ids(100)
    assert repo.acquire(retrieval_id, "there", 30.0) is None
    resumed = repo.acquire(retrieval_id, "here", 30.0)
    assert resumed is not None and resumed.state == State.RUNNING
    # The instance dies while parked: its lease runs out (here: parked with none left).
    assert repo.park(retrieval_id, "here", -1.0)
    assert repo.sweep(retrieval_id).unconfirmed == 0  # pending, never judged lost
    assert retrieval_id in repo.pending_ids(100)
    taken = repo.acquire(retrieval_id, "there", 30.0)
    assert taken is not None and taken.lease_owner == "there"
    # A stopping instance hands a parked read back: only its own, only while parked.
    assert not repo.release(retrieval_id, "there")  # running: not parked
    assert repo.park(retrieval_id, "there", 30.0)
    assert not repo.release(retrieval_id, "here")
    assert retrieval_id not in repo.pending_ids(100)
    assert repo.release(retrieval_id, "there")
    assert retrieval_id in repo.pending_ids(100)
    freed = repo.retrieval_by_id(retrieval_id)
    assert freed is not None and (freed.state, freed.lease_owner) == (State.PENDING, None)


async def test_a_parked_read_survives_its_callers_all_giving_up(
    paced: Application, origin: HTTPSOrigin
) -> None:
    """The caller's wait budget ends, not the read: nobody replays, and it is read anyway."""
    workspace_id, token = owner_token(paced)
    url = origin.url("/page")
    answers = await _all_at_once(
        paced, token, workspace_id, url, [str(uuid.uuid4()) for _ in range(2)]
    )
    key = next(a["mutation_id"] for a in answers if a["state"] == "pending")
    give_up = time.monotonic() + 15
    record = paced.store.retrievals.retrieval(workspace_id, key)
    while record is not None and record.state != State.COMPLETED and time.monotonic() < give_up:
        await asyncio.sleep(0.2)
        record = paced.store.retrievals.retrieval(workspace_id, key)
    assert (
        record is not None
        and record.state == State.COMPLETED
        and '"status":"ready"' in (record.result or "")
    )


async def _collect(
    app: Application, token: str, workspace_id: str, url: str, key: str
) -> dict[str, Any]:
    """Replay `key` until its receipt settles."""
    give_up = time.monotonic() + 30
    receipt = await _retrieve(app, token, workspace_id, url, key)
    while receipt["state"] in ("pending", "running") and time.monotonic() < give_up:
        receipt = await _retrieve(app, token, workspace_id, url, key)
    return receipt


@pytest.mark.slow(reason="the parked read's turn is 6 s out: the next instance collects it then")
async def test_a_stopping_instance_hands_its_parked_read_back_to_the_next(
    database_url: str, tmp_path: Path, origin: HTTPSOrigin
) -> None:
    """A stop does not hold for a parked read's turn (6 s out here, inside a 60 s grace):
    the receipt goes back `pending` with no lease at once, so the next instance resumes it
    at its first sweep, not after the lease runs out. Before, the stop waited the turn out
    (or, with a turn past the grace, left the receipt leased to a dead instance)."""
    origin.routes["/robots.txt"] = CRAWL_DELAY_30
    origin.routes["/page"] = Route(PAGE)
    url = origin.url("/page")
    keys = [str(uuid.uuid4()) for _ in range(2)]
    first = await _application(
        database_url, tmp_path, origin, 6, wait_budget_seconds=1.5, shutdown_grace_seconds=60
    )
    async with held_open(first.running()):
        workspace_id, token = owner_token(first)
        answers = await _all_at_once(first, token, workspace_id, url, keys)
        parked = next(a["mutation_id"] for a in answers if a["state"] == "pending")
        read = next(a["mutation_id"] for a in answers if a["mutation_id"] != parked)
        held = first.store.retrievals.retrieval(workspace_id, parked)
        assert held is not None and held.lease_owner == first.receipts.owner
    handed = first.store.retrievals.retrieval(workspace_id, parked)
    assert handed is not None and (handed.state, handed.lease_owner) == (State.PENDING, None)
    assert handed.lease_expires_at is None
    assert origin.page_hits["/page"] == 1  # the parked read was not fetched on the way out
    first.store.close()

    second = await _application(database_url, tmp_path, origin, 6, wait_budget_seconds=5)
    async with held_open(second.running()):
        receipt = await _collect(second, token, workspace_id, url, parked)
        other = await _collect(second, token, workspace_id, url, read)
    second.store.close()
    assert receipt["state"] == "completed" and receipt["result"]["status"] == "ready", receipt
    assert receipt["id"] == held.id
    assert other["state"] == "completed" and other["result"]["status"] == "ready", other
    assert origin.page_hits["/page"] == 2  # each read fetched exactly once
