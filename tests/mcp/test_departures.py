"""Issue 36 item 3: a streamable-HTTP MCP client that goes away stops its heavy reads.

A real uvicorn serves the /mcp app over this test's Application (both stores). A client
sends five quote checks; the first is held inside the quote algorithm by a gate, the other
four wait in the heavy-read pool's queue. The client is then cancelled (its connections
close, as when it is killed): the four queued calls must leave the queue without ever
starting. On 00f031f they stayed queued and all ran (the REST API already stopped them).
Both protocol eras: the legacy session (2025-11-25) and the stateless 2026-07-28 POST.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import mcp
import pytest
import uvicorn
from mcp.client.streamable_http import streamable_http_client

from sosoapi.application import Application
from sosoapi.research.evidence import quotes
from tests.support.evidence_tools import html
from tests.support.mcp_http import inprocess_mcp
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import free_port

P = "sosoapi_research_evidence_"
MARK = "departuremark"
CALLS = 5


class Gate:
    """Holds every quote check of MARK's text inside the algorithm until opened."""

    def __init__(self, find: Callable[..., Any]) -> None:
        self.find, self.opened, self.entered = find, threading.Event(), 0

    def __call__(self, text: str, quote: str, **kwargs: Any) -> Any:
        if MARK in quote:
            self.entered += 1
            assert self.opened.wait(60), "the gate was never opened"
        return self.find(text, quote, **kwargs)


async def _until(condition: Callable[[], bool]) -> None:
    with anyio.fail_after(30):
        while not condition():  # noqa: ASYNC110 (the pool's state: no event to wait on)
            await anyio.sleep(0.01)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_that_leaves_stops_its_queued_heavy_reads(
    application: Application,
    owner: tuple[str, str],
    origin: HTTPSOrigin,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    ws, token = owner
    origin.routes["/survey"] = Route(html("en", "Survey", [f"The {MARK} survey reports ice."]))
    outcome = await application.research.call(
        P + "retrieve", token,
        {"workspace_id": ws, "url": origin.url("/survey"), "kind": "url_text",
         "mutation_id": str(uuid.uuid4())},
    )  # fmt: skip
    evidence_id = str(outcome.output.retrieval.evidence.evidence_id)  # type: ignore[attr-defined]
    gate = Gate(quotes.find_quote)
    monkeypatch.setattr(quotes, "find_quote", gate)
    heavy = application.research.heavy

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    served = inprocess_mcp(application, base)
    config = uvicorn.Config(served.app, host="127.0.0.1", port=port, lifespan="off",
                            log_level="warning")  # fmt: skip
    server = uvicorn.Server(config)
    quote = {"workspace_id": ws, "evidence_id": evidence_id, "quote": f"The {MARK} survey"}

    async def client(scope: anyio.CancelScope) -> None:
        with scope:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                mcp.Client(
                    streamable_http_client(f"{base}/mcp", http_client=http), mode=mode
                ) as session,  # fmt: skip
                anyio.create_task_group() as calls,
            ):
                for _ in range(CALLS):
                    calls.start_soon(session.call_tool, P + "quote", quote)

    async with served.running, anyio.create_task_group() as tg:
        tg.start_soon(server.serve)
        try:
            await _until(lambda: server.started)
            leaving = anyio.CancelScope()
            tg.start_soon(client, leaving)
            await _until(lambda: gate.entered == 1 and heavy.slots.waiting(ws) == CALLS - 1)
            leaving.cancel()  # the client goes away with four calls queued
            await _until(lambda: heavy.slots.waiting(ws) == 0)
            assert heavy.started == 1  # the queued calls never ran
        finally:
            gate.opened.set()
            server.should_exit = True
    assert heavy.started == 1 and heavy.slots.waiting(ws) == 0
