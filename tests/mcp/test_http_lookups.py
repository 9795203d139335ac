"""Over streamable HTTP, each request's token is looked up once: the bearer gate's lookup
is the one the tool call uses (the store is read once per request, not twice)."""

from __future__ import annotations

import uuid

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client

from sosoapi.application import Application
from tests.support.calls import RETRIEVE
from tests.support.mcp_http import inprocess_mcp
from tests.support.origin import HTTPSOrigin

BASE = "http://127.0.0.1:8080"


def counted_token_reads(application: Application) -> list[str]:
    """Every token lookup the store answers from now on, by token hash."""
    reads: list[str] = []
    lookup = application.store.auth.token_by_hash

    def counting(token_hash: str):
        reads.append(token_hash)
        return lookup(token_hash)

    application.store.auth.token_by_hash = counting  # type: ignore[method-assign]
    return reads


async def test_a_tool_call_over_http_reads_its_token_once(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    workspace_id, token = owner
    served = inprocess_mcp(application, BASE)
    requests: list[str] = []

    async def counting_requests(scope, receive, send) -> None:
        requests.append(scope["method"])
        await served.app(scope, receive, send)

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        served.running,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=counting_requests), headers=headers, timeout=30
        ) as http,
        mcp.Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client,
    ):
        reads = counted_token_reads(application)
        requests.clear()
        call = {
            "url": origin.url(next(iter(pages))),
            "kind": "url_text",
            "workspace_id": workspace_id,
            "mutation_id": str(uuid.uuid4()),
        }
        result = await client.call_tool(RETRIEVE, call)
    assert result.is_error is False
    assert result.structured_content["retrieval"]["state"] == "completed"
    assert requests, "the call went over HTTP"
    assert len(reads) == len(requests), f"{len(reads)} token lookups for {requests} requests"
