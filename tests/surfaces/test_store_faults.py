"""Database faults under a real `sosoapi serve`: a PostgreSQL restart under load, an SQLite
that cannot grow, and a client that hangs up mid-call (issue 10, item 11)."""

from __future__ import annotations

import json
import resource
import signal
import sqlite3
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import httpx
import httpx2
import mcp
import pytest
import sqlalchemy as sa
from mcp.client.streamable_http import streamable_http_client

from sosoapi.testing.processes import shared_verify
from tests.support.cluster import ThrowawayCluster
from tests.support.contract import assert_valid_output
from tests.support.faults import (
    RETRIEVE,
    RETRIEVE_TOOL,
    assert_nothing_half_written,
    assert_store_unavailable,
    assert_store_unavailable_text,
    retrieve_body,
)
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import ServeProcess, cli

pytestmark = [
    pytest.mark.own_server(reason="it breaks the server's store and restarts the server"),
]

SETTLED = ("completed", "cancelled", "unconfirmed", "expired")


def _until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _settled_replay(base: str, headers: dict, body: dict, seconds: float = 90) -> dict:
    """Replay `body` until its receipt is settled; every answer on the way is 200 or 503."""
    deadline = time.monotonic() + seconds
    with httpx.Client(headers=headers, timeout=60, verify=shared_verify()) as http:
        while True:
            response = http.post(base + RETRIEVE, json=body)
            assert response.status_code in (200, 503), response.text
            if response.status_code == 200 and response.json()["retrieval"]["state"] in SETTLED:
                return response.json()
            assert time.monotonic() < deadline, f"not settled: {response.text}"
            time.sleep(0.2)


def _init(env: dict[str, str]) -> dict[str, str]:
    done = cli(["init", "--json"], env)
    assert done.returncode == 0, done.stderr
    created = json.loads(done.stdout)
    return {**env, "WORKSPACE_ID": created["workspace_id"], "SOSOAPI_TOKEN": created["token"]}


@pytest.mark.slow(reason="a PostgreSQL cluster of its own, stopped and started under load")
@pytest.mark.exclusive  # stops a cluster under load: the load has to be the only one
async def test_postgres_restart_under_load_is_503_then_recovers_without_loss(
    tmp_path: Path, origin: HTTPSOrigin, pages: dict
) -> None:
    """The load's reads are held at the origin until the cluster is down, so each of them
    finishes during the outage (its settle retried until the cluster is back) and the
    calls waiting on them answer when their wait budget runs out, with the store down."""
    page = next(iter(pages.values()))
    paths = [f"/load/{i}" for i in range(24)]
    outage = threading.Event()  # set once the cluster is down: the held reads finish then
    for path in paths:
        origin.routes[path] = Route(page, gate=outage)
    for path in ("/warm", "/down", "/again"):
        origin.routes[path] = Route(page)
    with ThrowawayCluster(in_memory=True, fsync="off") as cluster:  # nothing to keep
        env = _init(
            {
                "SOSOAPI_HOME": str(tmp_path / "home"),
                "SOSOAPI_DATABASE_URL": cluster.url,
                "SOSOAPI_LOG_LEVEL": "WARNING",
                "SOSOAPI_SWEEP_INTERVAL_SECONDS": "1",
                "SOSOAPI_WAIT_BUDGET_SECONDS": "3",
                # the load's reads start together, not two at a time 0.2 s apart
                "SOSOAPI_EGRESS_PER_ORIGIN_CONCURRENCY": str(len(paths)),
                "SOSOAPI_EGRESS_PER_ORIGIN_MIN_INTERVAL": "0",
                **origin.egress_env(),
            }
        )
        headers = {"Authorization": f"Bearer {env['SOSOAPI_TOKEN']}"}
        calls = {str(uuid.uuid4()): path for path in paths}
        statuses: Counter[int] = Counter()
        log = tmp_path / "serve.log"
        with ServeProcess(env, log=log) as server:
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
                transport = streamable_http_client(server.base + "/mcp", http_client=http)
                async with mcp.Client(transport) as client:
                    warm = await client.call_tool(
                        RETRIEVE_TOOL,
                        retrieve_body(env["WORKSPACE_ID"], origin.url("/warm"), str(uuid.uuid4())),
                    )
                    assert warm.is_error is False

                    def post(mutation_id: str, path: str) -> None:
                        url = origin.url(path)
                        body = retrieve_body(env["WORKSPACE_ID"], url, mutation_id)
                        response = httpx.post(
                            server.base + RETRIEVE,
                            json=body,
                            headers=headers,
                            timeout=60,
                            verify=shared_verify(),
                        )
                        statuses[response.status_code] += 1
                        if response.status_code != 200:
                            assert_store_unavailable(response)

                    def load_then_outage() -> None:
                        with ThreadPoolExecutor(len(calls)) as pool:
                            futures = [pool.submit(post, m, p) for m, p in calls.items()]
                            _until(
                                lambda: sum(origin.hits[p] for p in paths) >= 6,
                                60,
                                "reads in flight",
                            )
                            cluster.stop("fast")
                            outage.set()
                            for future in futures:
                                future.result()

                    await anyio.to_thread.run_sync(load_then_outage)
                    for mutation_id, path in calls.items():  # a replay in the outage: 503
                        replay = await anyio.to_thread.run_sync(
                            lambda m=mutation_id, p=path: httpx.post(
                                server.base + RETRIEVE,
                                json=retrieve_body(env["WORKSPACE_ID"], origin.url(p), m),
                                headers=headers,
                                timeout=60,
                                verify=shared_verify(),
                            )
                        )
                        assert_store_unavailable(replay)
                    down = await anyio.to_thread.run_sync(
                        lambda: httpx.post(
                            server.base + RETRIEVE,
                            json=retrieve_body(
                                env["WORKSPACE_ID"], origin.url("/down"), str(uuid.uuid4())
                            ),
                            headers=headers,
                            timeout=60,
                            verify=shared_verify(),
                        )
                    )
                    assert_store_unavailable(down)
                    mcp_down = await client.call_tool(
                        RETRIEVE_TOOL,
                        retrieve_body(env["WORKSPACE_ID"], origin.url("/down"), str(uuid.uuid4())),
                    )
                    assert mcp_down.is_error is True
                    assert_store_unavailable_text(mcp_down.content[0].text)
                    await anyio.to_thread.run_sync(cluster.start)
                    # the same server, no restart: calls succeed again
                    again = await client.call_tool(
                        RETRIEVE_TOOL,
                        retrieve_body(env["WORKSPACE_ID"], origin.url("/again"), str(uuid.uuid4())),
                    )
                    assert again.is_error is False, again.content
            receipts = {
                mutation_id: _settled_replay(
                    server.base,
                    headers,
                    retrieve_body(env["WORKSPACE_ID"], origin.url(path), mutation_id),
                )
                for mutation_id, path in calls.items()
            }
            assert server.proc is not None and server.proc.poll() is None  # never restarted
        assert set(statuses) <= {200, 503} and statuses[503] > 0, statuses
        for mutation_id, receipt in receipts.items():
            assert_valid_output(RETRIEVE_TOOL, receipt)
            assert receipt["retrieval"]["state"] == "completed", receipt
            assert receipt["retrieval"]["result"]["status"] == "ready", receipt
            assert origin.hits[calls[mutation_id]] == 1, calls[mutation_id]
        assert origin.hits["/down"] == 0 and origin.hits["/again"] == 1
        engine = sa.create_engine(cluster.url)
        try:
            with engine.connect() as conn:
                counted = dict(
                    conn.execute(
                        sa.text("SELECT mutation_id, count(*) FROM retrievals GROUP BY mutation_id")
                    ).all()
                )
            assert all(counted[m] == 1 for m in calls), counted
            assert_nothing_half_written(engine)
        finally:
            engine.dispose()
        assert "Traceback" not in log.read_text()


def _file_size_limit(limit: int) -> Callable[[], None]:
    """For the child: writes past `limit` bytes fail with EFBIG (SIGXFSZ ignored)."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.slow(reason="fills a server's database up to its file size limit")
@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
def test_sqlite_out_of_space_is_a_clear_503_and_nothing_half_written(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict, tmp_path: Path
) -> None:
    database = Path(initialised["SOSOAPI_HOME"]) / "sosoapi.sqlite3"
    limit = database.stat().st_size + 256 * 1024
    env = {**initialised, "SOSOAPI_WAIT_BUDGET_SECONDS": "5", "SOSOAPI_LEASE_SECONDS": "3"}
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    bodies = list(pages.values())
    answers: list[httpx.Response] = []
    log = tmp_path / "serve.log"
    with (
        ServeProcess(env, preexec=_file_size_limit(limit), log=log) as server,
        httpx.Client(headers=headers, timeout=60, verify=shared_verify()) as http,
    ):
        for i in range(300):
            path = f"/fill/{i}"
            origin.routes[path] = Route(bodies[i % len(bodies)])
            body = retrieve_body(initialised["WORKSPACE_ID"], origin.url(path), str(uuid.uuid4()))
            answers.append(http.post(server.base + RETRIEVE, json=body))
            if sum(a.status_code == 503 for a in answers) >= 3:
                break
        assert server.proc is not None and server.proc.poll() is None
    assert {a.status_code for a in answers} <= {200, 503}, [a.text for a in answers]
    refused = [a for a in answers if a.status_code == 503]
    assert refused, "the file size limit was never reached"
    for answer in refused:
        assert_store_unavailable(answer)
    assert any(a.status_code == 200 for a in answers)
    check = sqlite3.connect(database)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        check.close()
    engine = sa.create_engine(f"sqlite:///{database}")
    try:
        assert_nothing_half_written(engine)
    finally:
        engine.dispose()
    assert "Traceback" not in log.read_text()


@pytest.mark.slow(reason="a server of its own (the module breaks its servers)")
def test_a_client_that_hangs_up_mid_call_leaves_a_receipt_that_settles_and_replays(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    origin.routes["/slow"] = Route(next(iter(pages.values())), delay=2.0)
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    body = retrieve_body(initialised["WORKSPACE_ID"], origin.url("/slow"), str(uuid.uuid4()))
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            served.base + RETRIEVE, json=body, headers=headers, timeout=0.5, verify=shared_verify()
        )
    settled = _settled_replay(served.base, headers, body)
    assert_valid_output(RETRIEVE_TOOL, settled)
    assert settled["retrieval"]["state"] == "completed"
    assert settled["retrieval"]["result"]["status"] == "ready"
    again = httpx.post(
        served.base + RETRIEVE, json=body, headers=headers, timeout=60, verify=shared_verify()
    )
    assert again.json() == settled
    assert origin.hits["/slow"] == 1
