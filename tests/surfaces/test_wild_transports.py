"""One page of each class of the wild dev set over real server processes.

A challenge served with an error status, a sign-in page, a WSJ paywall teaser, a soft
404, a script shell and an article, all captured from the live web by other projects,
are retrieved over the HTTP API of `sosoapi serve`, MCP streamable HTTP to the same
server and MCP stdio to `sosoapi mcp`, with their recorded status and headers; every
output is checked against the contract copy and must settle as its class allows.
Skipped without the wild dev set (tests/research/test_wild_retrieve.py says where it is
looked for).
"""

from __future__ import annotations

import gzip
import os
from typing import Any

import httpx
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

from tests.research.test_wild_retrieve import GUARD, NEEDS_WILD, WILD, _manifest
from tests.support.calls import RETRIEVE, RETRIEVE_PATH
from tests.support.contract import assert_valid_output
from tests.support.mcp_http import over_http
from tests.support.origin import HTTPSOrigin, Route
from tests.support.services import SOSOAPI, ServeProcess
from tests.surfaces.test_walls_transports import request

pytestmark = NEEDS_WILD
SQLITE = pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)
CLASSES = ("challenge", "sign_in", "paywall", "soft_404", "shell", "article")


def _one_of_each() -> list[dict[str, Any]]:
    """The first guarded page of each class by name, pages served with an error status
    first (so the challenge is one answered 403 or 503)."""
    rows = sorted(_manifest(), key=lambda row: (row["status"] == 200, row["name"]))
    guarded = set(GUARD["settled"])
    chosen = {}
    for row in rows:
        if row["name"] in guarded:
            chosen.setdefault(row["class"], row)
    assert set(chosen) == set(CLASSES)
    return [chosen[kind] for kind in CLASSES]


def serve(origin: HTTPSOrigin) -> list[dict[str, Any]]:
    rows = _one_of_each()
    for row in rows:
        body = gzip.decompress((WILD / row["file"]).read_bytes())
        origin.routes[row["path"]] = Route(
            body, status=row["status"], content_type=row["content_type"], headers=row["headers"]
        )
    return rows


def check(row: dict[str, Any], receipt: dict[str, Any]) -> None:
    assert receipt["state"] == "completed", (row["name"], receipt["state"])
    settled = [receipt["result"]["status"], receipt["result"]["reason"]]
    assert settled in row["expect"], (row["class"], row["name"], settled)


async def call_all(client: mcp.Client, env: dict[str, str], origin: HTTPSOrigin) -> None:
    for row in serve(origin):
        result = await client.call_tool(RETRIEVE, request(env, origin.url(row["path"])))
        assert result.is_error is False, row["name"]
        assert_valid_output(RETRIEVE, result.structured_content)
        check(row, result.structured_content["retrieval"])


@SQLITE
def test_over_the_http_api(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    rows = serve(origin)
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    with httpx.Client(base_url=served.base, headers=headers, timeout=30) as client:
        for row in rows:
            answer = client.post(RETRIEVE_PATH, json=request(initialised, origin.url(row["path"])))
            assert answer.status_code == 200, (row["name"], answer.text)
            assert_valid_output(RETRIEVE, answer.json())
            check(row, answer.json()["retrieval"])


@SQLITE
async def test_over_mcp_streamable_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    async with over_http(served.base + "/mcp", initialised["SOSOAPI_TOKEN"]) as client:
        await call_all(client, initialised, origin)


@SQLITE
async def test_over_mcp_stdio(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env={**os.environ, **initialised})
    async with mcp.Client(params) as client:
        await call_all(client, initialised, origin)
