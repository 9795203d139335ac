"""Latency of an idempotent replay, through the HTTP API and over MCP, on SQLite and PostgreSQL.

One completed receipt is created, then replayed N times with the same mutation_id against
a real `sosoapi serve` (uvicorn) process. The floor of the same HTTP stack, `GET /healthz`,
is measured in the same run so the replay's own cost shows as a ratio.

    .venv/bin/python bench/replay.py [--n 300] [--postgres URL]
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent

from common import latency_args, percentiles, print_table  # noqa: E402
from sosoapi.testing.origin import HTTPSOrigin, Route  # noqa: E402
from sosoapi.testing.pages import pages_dir, real_pages  # noqa: E402
from sosoapi.testing.postgres import private_schema  # noqa: E402
from sosoapi.testing.processes import ServeProcess, cli  # noqa: E402

RETRIEVE = "sosoapi_research_evidence_retrieve"


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


async def timed_async(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - start)
    return out


async def mcp_replays(base: str, token: str, arguments: dict, n: int) -> list[float]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        mcp.Client(
            streamable_http_client(f"{base}/mcp", http_client=http), mode="legacy"
        ) as client,
    ):
        await client.call_tool(RETRIEVE, arguments)
        return await timed_async(lambda: client.call_tool(RETRIEVE, arguments), n)


def run_store(
    label: str, env: dict[str, str], origin: HTTPSOrigin, path: str, n: int
) -> list[tuple]:
    created = json.loads(cli(["init", "--json"], env).stdout)
    token, workspace_id = created["token"], created["workspace_id"]
    arguments = {
        "url": origin.url(path),
        "kind": "url_text",
        "workspace_id": workspace_id,
        "mutation_id": str(uuid.uuid4()),
    }
    rows = []
    with ServeProcess(env) as server, httpx.Client(timeout=30) as http:
        headers = {"Authorization": f"Bearer {token}"}
        url = server.base + "/research-api/evidence/retrieve"
        assert (
            http.post(url, json=arguments, headers=headers).json()["retrieval"]["state"]
            == "completed"
        )
        for _ in range(20):
            http.get(server.base + "/healthz")
            http.post(url, json=arguments, headers=headers)
        floor = timed(lambda: http.get(server.base + "/healthz"), n)
        api = timed(lambda: http.post(url, json=arguments, headers=headers), n)
        over_mcp = asyncio.run(mcp_replays(server.base, token, arguments, n))
    fp50, _ = percentiles(floor)
    for name, samples in (
        ("GET /healthz (floor)", floor),
        ("HTTP API replay", api),
        ("MCP replay (streamable HTTP)", over_mcp),
    ):
        p50, p99 = percentiles(samples)
        rows.append((label, name, p50, p99, p50 / fp50))
    assert origin.hits[path] == 1, "a replay fetched again"
    return rows


def main() -> None:
    args = latency_args()
    page = real_pages(pages_dir(ROOT))[0]
    rows: list[tuple] = []
    with HTTPSOrigin({f"/{page.name}": Route(page.html)}) as origin:
        base = {"SOSOAPI_LOG_LEVEL": "WARNING", **origin.egress_env()}
        with tempfile.TemporaryDirectory() as home:
            rows += run_store(
                "sqlite", {**base, "SOSOAPI_HOME": home}, origin, f"/{page.name}", args.n
            )
        origin.hits.clear()
        with tempfile.TemporaryDirectory() as home, private_schema(args.postgres, "bench") as url:
            env = {**base, "SOSOAPI_HOME": home, "SOSOAPI_DATABASE_URL": url}
            rows += run_store("postgres", env, origin, f"/{page.name}", args.n)
    print_table(f"replay latency, n={args.n} sequential calls per row (ms)", rows)


if __name__ == "__main__":
    main()
