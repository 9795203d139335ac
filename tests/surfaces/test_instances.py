"""Two `sosoapi serve` instances sharing one PostgreSQL database.

An instance never judges another's live work: while A holds and renews its lease, B's
replays show `running` long past one lease length. When A is killed, B judges the lost
lease `unconfirmed` once it has run out.
"""

from __future__ import annotations

import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.support.calls import RETRIEVE_PATH
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, start_all, stop_all

pytestmark = pytest.mark.exclusive

LEASE = 2.4
# A lease renewed (every third of it) and then dropped would run out 1.33 leases after it
# was taken: watched this long, the live work was seen through at least two renewals.
WATCH = 1.5 * LEASE


@pytest.mark.parametrize("process_env", ["postgres"], indirect=True)
def test_instances_never_judge_each_others_live_work(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    origin.routes["/stall"] = Route(next(iter(pages.values())), delay=60)
    env = {
        **initialised,
        "SOSOAPI_LEASE_SECONDS": str(LEASE),
        "SOSOAPI_SWEEP_INTERVAL_SECONDS": "0.3",
        "SOSOAPI_WAIT_BUDGET_SECONDS": "0.3",
    }
    request = {
        "url": origin.url("/stall"),
        "kind": "url_text",
        "workspace_id": initialised["WORKSPACE_ID"],
        "mutation_id": str(uuid.uuid4()),
    }
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}

    def replay(server: ServeProcess) -> str:
        body = httpx.post(
            server.base + RETRIEVE_PATH, json=request, headers=headers, timeout=30
        ).json()
        return body["retrieval"]["state"]

    a, b = ServeProcess(env), ServeProcess(env)
    try:
        start_all(a, b)
        deadline = time.monotonic() + 10
        while (state := replay(a)) == "pending" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert state == "running"
        watched_until = time.monotonic() + WATCH
        while time.monotonic() < watched_until:
            assert replay(b) == "running"
            time.sleep(0.3)
        a.kill()
        deadline = time.monotonic() + 10
        while (state := replay(b)) == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop_all(a, b)
    assert state == "unconfirmed"
    assert origin.hits["/stall"] == 1


SKEWED = (sys.executable, "-m", "tests.support.skewed", "60")


@pytest.mark.parametrize("process_env", ["sqlite", "postgres"], indirect=True)
def test_an_instance_whose_clock_runs_60s_ahead_never_judges_live_work(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    """Leases run on the database clock: a host 60 s ahead (25 lease lengths) sees the
    honest instance's live lease as live, and judges it only once it really ran out."""
    page = next(iter(pages))
    origin.routes["/stall"] = Route(pages[page], delay=60)
    env = {
        **initialised,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "SOSOAPI_LEASE_SECONDS": str(LEASE),
        "SOSOAPI_SWEEP_INTERVAL_SECONDS": "0.3",
        "SOSOAPI_WAIT_BUDGET_SECONDS": "0.3",
    }
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}

    def post(server: ServeProcess, url: str, mutation_id: str) -> dict:
        request = {
            "url": url,
            "kind": "url_text",
            "workspace_id": initialised["WORKSPACE_ID"],
            "mutation_id": mutation_id,
        }
        answer = httpx.post(server.base + RETRIEVE_PATH, json=request, headers=headers, timeout=30)
        return answer.json()["retrieval"]

    stalled = str(uuid.uuid4())
    ahead, honest = ServeProcess(env, command=SKEWED), ServeProcess(env)
    try:
        start_all(ahead, honest)
        probe = post(ahead, origin.url(page), str(uuid.uuid4()))
        skew = datetime.fromisoformat(probe["created_at"]) - datetime.now(UTC)
        assert skew > timedelta(seconds=50)  # the process really lives 60 s ahead
        deadline = time.monotonic() + 10
        while (state := post(honest, origin.url("/stall"), stalled)["state"]) == "pending":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert state == "running"
        watched_until = time.monotonic() + WATCH
        while time.monotonic() < watched_until:
            assert post(ahead, origin.url("/stall"), stalled)["state"] == "running"
            time.sleep(0.3)
        honest.kill()
        deadline = time.monotonic() + 10
        while (state := post(ahead, origin.url("/stall"), stalled)["state"]) == "running":
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        stop_all(ahead, honest)
    assert state == "unconfirmed"
    assert origin.hits["/stall"] == 1
