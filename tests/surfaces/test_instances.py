"""Two `sosoapi serve` instances sharing one PostgreSQL database.

An instance never judges another's live work: while A holds and renews its lease, B's
replays show `running` long past one lease length. When A is killed, B judges the lost
lease `unconfirmed` once it has run out.
"""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.support.calls import RETRIEVE_PATH
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess


@pytest.mark.parametrize("process_env", ["postgres"], indirect=True)
def test_instances_never_judge_each_others_live_work(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    origin.routes["/stall"] = Route(next(iter(pages.values())), delay=60)
    env = {
        **initialised,
        "SOSOAPI_LEASE_SECONDS": "2.4",
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

    with ServeProcess(env) as b:
        a = ServeProcess(env).start()
        try:
            deadline = time.monotonic() + 10
            while (state := replay(a)) == "pending" and time.monotonic() < deadline:
                time.sleep(0.1)
            assert state == "running"
            watched_until = time.monotonic() + 5.0  # two lease lengths and more
            while time.monotonic() < watched_until:
                assert replay(b) == "running"
                time.sleep(0.3)
        finally:
            a.kill()
        deadline = time.monotonic() + 10
        while (state := replay(b)) == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
    assert state == "unconfirmed"
    assert origin.hits["/stall"] == 1
