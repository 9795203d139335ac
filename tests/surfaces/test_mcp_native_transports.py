"""The MCP-native surface over a real `sosoapi mcp` (stdio) and `sosoapi serve` (HTTP).

Resource templates and reads, links in results, completions, prompts, the icon, and
progress during a slow read, with the Python SDK client in legacy and auto modes (each
mode once over stdio: legacy here, auto with tasks; tests/mcp/test_native.py crosses them
in process). Tasks over HTTP run in `sosoapi serve`'s app in process: polling and
cancelling a task are requests of their own, nothing streamed.
"""

from __future__ import annotations

import json
import os
import time

import anyio
import httpx2
import mcp
import mcp.types as types
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.test_native import (
    TEMPLATES,
    assert_progress,
    evidence_uri,
    links,
    progress_of_a_slow_read,
    seed,
)
from tests.mcp.test_tasks import CreatedTask, TasksClient, slow_call, task_call
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin
from tests.support.serve_app import BASE, serve_app
from tests.support.services import SOSOAPI, ServeProcess

pytestmark = pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)


async def native(client: mcp.Client, ws: str, origin: HTTPSOrigin) -> None:
    listed = (await client.list_resource_templates()).resource_templates
    assert {t.uri_template for t in listed} == TEMPLATES
    seeded = await seed(client, origin, ws)
    first = seeded["ids"][0]
    assert links(seeded["long"]) == [evidence_uri(ws, first, 1)]
    read = await client.read_resource(evidence_uri(ws, first, 1))
    window, as_json = read.contents
    assert isinstance(window, types.TextResourceContents) and 'nonce="' in window.text
    assert_valid_output("sosoapi_research_evidence_get", json.loads(as_json.text))
    assert window.meta and window.meta["sosoapi/window"]["next"]
    corpus = seeded["corpus"]["id"]
    sealed = await client.read_resource(f"sosoapi://workspaces/{ws}/corpora/{corpus}/revisions/1")
    assert json.loads(sealed.contents[1].text)["snapshot"]["id"] == corpus
    ref = types.ResourceTemplateReference(uri=sorted(TEMPLATES)[1])
    done = await client.complete(
        ref, {"name": "evidence_id", "value": first[:6]}, {"workspace_id": ws}
    )
    assert done.completion.values == [first]
    spaces = await client.complete(ref, {"name": "workspace_id", "value": ""})
    assert spaces.completion.values == [ws]
    prompts = {p.name for p in (await client.list_prompts()).prompts}
    assert prompts == {"check_quotations", "read_and_keep"}
    got = await client.get_prompt(
        "read_and_keep", {"workspace_id": ws, "url": "https://example.com/", "project_id": "p"}
    )
    assert "sosoapi_research_evidence_retrieve" in got.messages[0].content.text
    info = client.server_info
    assert info is not None and info.icons
    started = time.monotonic()
    heard, result = await progress_of_a_slow_read(client, origin, ws)
    assert result.structured_content["retrieval"]["state"] == "completed"
    assert_progress(heard, time.monotonic() - started)


async def test_native_features_over_stdio(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    env = {**os.environ, **initialised}
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env=env)
    async with mcp.Client(params, mode="legacy") as client:
        await native(client, initialised["WORKSPACE_ID"], origin)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_native_features_over_streamable_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin, mode: str
) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(served.base + "/mcp", http_client=http)
        async with mcp.Client(transport, mode=mode) as client:
            await native(client, initialised["WORKSPACE_ID"], origin)


async def task_to_result(client: mcp.Client, ws: str, origin: HTTPSOrigin) -> None:
    arguments = slow_call(origin, ws)
    task = await client.session.call_tool(RETRIEVE, arguments, allow_claimed=True)
    assert isinstance(task, CreatedTask) and task.status == "working"
    seen = await task_call(client.session, "tasks/get", task.task_id)
    with anyio.fail_after(20):
        while seen["status"] == "working":
            await anyio.sleep(0.3)
            seen = await task_call(client.session, "tasks/get", task.task_id)
    assert seen["status"] == "completed"
    assert seen["result"]["structuredContent"]["retrieval"]["id"] == task.task_id
    cancelled = await client.session.call_tool(
        RETRIEVE, slow_call(origin, ws, "/slower"), allow_claimed=True
    )
    assert isinstance(cancelled, CreatedTask)
    await task_call(client.session, "tasks/cancel", cancelled.task_id)
    assert (await task_call(client.session, "tasks/get", cancelled.task_id))["status"] == (
        "cancelled"
    )


async def test_tasks_over_stdio(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    env = {**os.environ, **initialised, "SOSOAPI_WAIT_BUDGET_SECONDS": "0.5"}
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env=env)
    async with mcp.Client(params, mode="auto", extensions=[TasksClient()]) as client:
        await task_to_result(client, initialised["WORKSPACE_ID"], origin)


async def test_tasks_over_streamable_http(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    async with (
        serve_app({**initialised, "SOSOAPI_WAIT_BUDGET_SECONDS": "0.5"}) as app,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app), headers=headers, timeout=30
        ) as http,
        mcp.Client(
            streamable_http_client(BASE + "/mcp", http_client=http),
            mode="auto",
            extensions=[TasksClient()],
        ) as client,
    ):
        await task_to_result(client, initialised["WORKSPACE_ID"], origin)
