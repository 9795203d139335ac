"""MCP over a real `sosoapi mcp` subprocess and over real streamable HTTP to `sosoapi serve`.

A smoke set: each store, each client mode and each output-schemas setting once per
transport (tests/mcp/test_inprocess.py crosses modes and schemas on both stores in
process); a setting that needs no socket is checked in `sosoapi serve`'s app in process."""

from __future__ import annotations

import os
import uuid

import anyio
import httpx2
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from sosoapi.contract.schemas import tool
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route
from tests.support.receipts import database_of, settled_state
from tests.support.serve_app import BASE, serve_app
from tests.support.services import SOSOAPI, ServeProcess


def arguments(env: dict[str, str], url: str) -> dict[str, str]:
    return {
        "url": url,
        "kind": "url_text",
        "workspace_id": env["WORKSPACE_ID"],
        "mutation_id": str(uuid.uuid4()),
    }


async def exercise(
    client: mcp.Client,
    env: dict[str, str],
    origin: HTTPSOrigin,
    path: str,
    schemas: bool,
    transport: str,
) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert listed[RETRIEVE].input_schema == tool(RETRIEVE)["inputSchema"]
    upload = "sosoapi_research_evidence_upload"
    assert (upload in listed) is (transport == "stdio")  # a remote caller never names a path
    if transport == "http":
        with pytest.raises(MCPError) as refused:  # the MCP specification: -32602
            await client.call_tool(
                upload,
                {
                    "workspace_id": env["WORKSPACE_ID"],
                    "mutation_id": str(uuid.uuid4()),
                    "path": "/etc/hostname",
                    "kind": "url_text",
                },
            )
        assert refused.value.code == INVALID_PARAMS and "Unknown tool" in refused.value.message
    assert (listed[RETRIEVE].output_schema is not None) is schemas
    call = arguments(env, origin.url(path))
    first = await client.call_tool(RETRIEVE, call)
    again = await client.call_tool(RETRIEVE, call)
    assert first.is_error is False
    assert_valid_output(RETRIEVE, first.structured_content)
    assert again.structured_content == first.structured_content
    assert first.structured_content["retrieval"]["result"]["status"] == "ready"
    assert origin.hits[path] == 1
    refused = await client.call_tool(RETRIEVE, {**call, "mutation_id": "not-a-uuid"})
    assert refused.is_error is True and "mutation_id" in refused.content[0].text


@pytest.mark.parametrize(
    ("process_env", "mode", "schemas"),
    [("sqlite", "legacy", False), ("postgres", "auto", True)],
    indirect=["process_env"],
)
async def test_stdio_subprocess(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict, mode: str, schemas: bool
) -> None:
    env = {**os.environ, **initialised, "SOSOAPI_OUTPUT_SCHEMAS": "1" if schemas else "0"}
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env=env)
    async with mcp.Client(params, mode=mode) as client:
        await exercise(client, initialised, origin, next(iter(pages)), schemas, "stdio")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_streamable_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin, pages: dict, mode: str
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.base + "/mcp", http_client=http)
        async with mcp.Client(transport, mode=mode) as client:
            await exercise(client, initialised, origin, next(iter(pages)), False, "http")


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
async def test_streamable_http_with_output_schemas(
    initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with (
        serve_app({**initialised, "SOSOAPI_OUTPUT_SCHEMAS": "1"}) as app,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), headers=headers, timeout=30
        ) as http,
        mcp.Client(streamable_http_client(BASE + "/mcp", http_client=http)) as client,
    ):
        await exercise(client, initialised, origin, next(iter(pages)), True, "http")


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
async def test_stdio_without_token_refuses_every_call(initialised: dict[str, str]) -> None:
    env = {k: v for k, v in {**os.environ, **initialised}.items() if k != "SOSOAPI_TOKEN"}
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env=env)
    async with mcp.Client(params) as client:
        result = await client.call_tool(RETRIEVE, arguments(initialised, "https://example.com/"))
    assert result.is_error is True
    assert "SOSOAPI_TOKEN" in result.content[0].text


@pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
async def test_cancellation_over_streamable_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin, pages: dict
) -> None:
    origin.routes["/slow"] = Route(next(iter(pages.values())), delay=5)
    call = arguments(initialised, origin.url("/slow"))
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.base + "/mcp", http_client=http)
        async with mcp.Client(transport, mode="legacy") as client:
            with anyio.move_on_after(1.0):
                await client.call_tool(RETRIEVE, call)
            settled = await settled_state(database_of(initialised), call["mutation_id"])
            assert settled == "cancelled"
            replay = await client.call_tool(RETRIEVE, call)
    assert_valid_output(RETRIEVE, replay.structured_content)
    receipt = replay.structured_content["retrieval"]
    assert receipt["state"] == "cancelled"
    assert receipt["result"]["reason"] == "cancelled"
