"""Retrieval slots shared fairly between workspaces, and a failing PostgreSQL call's log."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime

import anyio
import anyio.lowlevel
import pytest

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from tests.support.origin import HTTPSOrigin, Route

RETRIEVE = "sosoapi_research_evidence_retrieve"


async def test_slots_go_round_robin_and_never_past_the_share() -> None:
    from sosoapi.research.retrieval.fairness import FairSlots

    slots = FairSlots(slots=4, per_workspace=2, max_waiting=500)
    order: list[str] = []
    release = anyio.Event()

    async def read(workspace: str) -> None:
        async with slots.slot(workspace):
            order.append(workspace)
            await release.wait()

    async with anyio.create_task_group() as tg:
        for _ in range(5):
            tg.start_soon(read, "a")
            await anyio.lowlevel.checkpoint()
        for _ in range(3):
            tg.start_soon(read, "b")
            await anyio.lowlevel.checkpoint()
        await anyio.wait_all_tasks_blocked()
        assert order == ["a", "a", "b", "b"]  # `a` came first, yet holds only its share
        assert (slots.waiting("a"), slots.waiting("b")) == (3, 1)
        release.set()
    assert sorted(order) == ["a"] * 5 + ["b"] * 3
    assert slots.waiting("a") == slots.waiting("b") == 0


async def test_the_queue_bound_refuses_and_a_cancelled_waiter_leaves_no_trace() -> None:
    from sosoapi.research.retrieval.fairness import FairSlots

    slots = FairSlots(slots=1, per_workspace=1, max_waiting=2)
    slots.reserve("a")
    slots.reserve("a")
    with pytest.raises(Exception) as refused:
        slots.reserve("a")
    assert refused.value.code == "busy" and refused.value.retry_after_seconds
    slots.reserve("b")  # another workspace has its own bound
    slots.unreserve("a")
    slots.unreserve("a")
    slots.unreserve("b")
    hold = anyio.Event()

    async def holder() -> None:
        async with slots.slot("a"):
            await hold.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(holder)
        await anyio.wait_all_tasks_blocked()
        with anyio.move_on_after(0.01):
            async with slots.slot("a"):
                pytest.fail("the only slot is held")
        assert slots.waiting("a") == 0
        hold.set()
    async with slots.slot("a"):
        pass


@pytest.fixture
def receipt_overrides() -> dict[str, float]:
    return {"max_concurrent_retrievals": 4, "wait_budget_seconds": 0.1}


@pytest.mark.slow(reason="A's slow pages hold their slots for 6 s, waited out at teardown")
async def test_another_workspaces_read_starts_at_once(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    """Workspace A queues twice the slots of slow pages; B's fast page settles before any of
    A's (first come, first served would make it wait for A's first four)."""
    busy_ws, busy_token = owner
    now = datetime.now(UTC)
    auth = application.store.auth
    other_ws = auth.create_workspace("other", now).id
    user = Admin(auth).create_member(other_ws, "b", "editor", now)
    other_token = Admin(auth).mint(user, now).token
    html = next(iter(pages.values()))
    for n in range(8):
        origin.routes[f"/slow{n}"] = Route(html, delay=6.0)

    async def retrieve(token: str, ws: str, path: str, mutation_id: str | None = None) -> dict:
        arguments = {
            "url": origin.url(path),
            "kind": "url_text",
            "workspace_id": ws,
            "mutation_id": mutation_id or str(uuid.uuid4()),
        }
        out = await application.research.call(RETRIEVE, token, arguments)
        return out.output.wire()["retrieval"]

    slow = [await retrieve(busy_token, busy_ws, f"/slow{n}") for n in range(8)]
    fast = await retrieve(other_token, other_ws, next(iter(pages)))

    def state(retrieval_id: str) -> str:
        record = application.store.retrievals.retrieval_by_id(retrieval_id)
        assert record is not None
        return record.state

    while fast["state"] != "completed":  # each replay waits for a settled state
        fast = await retrieve(other_token, other_ws, next(iter(pages)), fast["mutation_id"])
    assert [state(r["id"]) for r in slow].count("completed") == 0
    assert origin.hits[next(iter(pages))] == 1


def test_a_failing_postgres_call_logs_no_argument_values(
    postgres_url: str, tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    from sosoapi.store.store import Store

    store = Store(postgres_url)
    try:
        ws = store.auth.create_workspace("w", datetime.now(UTC)).id
        secret = "a-private-project-title-5d2e"
        log = logging.getLogger("sosoapi.test")
        with caplog.at_level(logging.INFO, logger="sosoapi"):
            try:
                with store.db.write() as conn:
                    store.projects.create(
                        conn, ws, str(uuid.uuid4()), secret + "\x00", datetime.now(UTC)
                    )
            except Exception:  # logged with its whole text, as a careless handler would
                log.exception("store call failed")
            else:
                pytest.fail("PostgreSQL stores no NUL: the call must fail")
        assert "store call failed" in caplog.text and "projects" in caplog.text
        assert secret not in caplog.text
    finally:
        store.close()
