"""The MCP-native surface over a real `sosoapi mcp` (stdio) and `sosoapi serve` (HTTP).

Resource templates and reads, links in results, completions, prompts, the icon, and
progress during a slow read, with the Python SDK client in legacy and auto modes.
"""

from __future__ import annotations

import json
import os
import time

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
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin
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


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_native_features_over_stdio(
    initialised: dict[str, str], origin: HTTPSOrigin, mode: str
) -> None:
    env = {**os.environ, **initialised}
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env=env)
    async with mcp.Client(params, mode=mode) as client:
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
