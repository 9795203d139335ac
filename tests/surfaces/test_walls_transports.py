"""The corpus pages marked `transports` (tests/data/walls) over real server processes.

Each page is retrieved over the HTTP API of `sosoapi serve`, over MCP streamable HTTP to
the same server and over MCP stdio to `sosoapi mcp`; every output is checked against the
contract copy, and must settle as the corpus says. The MCP content line carries the
reason's advice (for a script shell: that it needs a browser).
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import httpx
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters

from sosoapi.contract.guidance import advice
from sosoapi.contract.vocabulary import Reason, State
from tests.support.calls import RETRIEVE, RETRIEVE_PATH
from tests.support.contract import assert_valid_output
from tests.support.mcp_http import over_http
from tests.support.origin import HTTPSOrigin
from tests.support.services import SOSOAPI, ServeProcess
from tests.support.walls import WallCase, assert_settles, wall_cases

CASES = [case for case in wall_cases() if case.transports]
SQLITE = pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)


def request(env: dict[str, str], url: str) -> dict[str, str]:
    return {
        "url": url,
        "kind": "url_text",
        "workspace_id": env["WORKSPACE_ID"],
        "mutation_id": str(uuid.uuid4()),
    }


def serve(origin: HTTPSOrigin) -> None:
    for case in CASES:
        origin.routes[case.path] = case.route()


def check(case: WallCase, receipt: dict[str, Any]) -> None:
    assert receipt["state"] == "completed", (case.file, receipt["state"])
    assert_settles(case, receipt["result"], receipt["evidence"])


def test_the_subset_covers_every_kind_of_page() -> None:
    assert len(CASES) >= 15
    settled = {(c.expect_status, c.expect_reason) for c in CASES}
    assert {
        ("blocked", "access_denied"),
        ("blocked", "login_required"),
        ("unavailable", "not_found"),
        ("unavailable", "unavailable"),
        ("partial", "source_partial"),
        ("empty", "no_text"),
        ("empty", "metadata_only"),
        ("ready", None),
    } <= settled


@pytest.mark.slow(reason="every wall page of the dev set through a real transport")
@SQLITE
def test_over_the_http_api(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin)
    headers = {"Authorization": f"Bearer {initialised['SOSOAPI_TOKEN']}"}
    with httpx.Client(base_url=served.base, headers=headers, timeout=30) as client:
        for case in CASES:
            answer = client.post(RETRIEVE_PATH, json=request(initialised, origin.url(case.path)))
            assert answer.status_code == 200, (case.file, answer.text)
            assert_valid_output(RETRIEVE, answer.json())
            check(case, answer.json()["retrieval"])


async def call_all(client: mcp.Client, env: dict[str, str], origin: HTTPSOrigin) -> None:
    for case in CASES:
        result = await client.call_tool(RETRIEVE, request(env, origin.url(case.path)))
        assert result.is_error is False, case.file
        assert_valid_output(RETRIEVE, result.structured_content)
        receipt = result.structured_content["retrieval"]
        check(case, receipt)
        line = result.content[0].text.splitlines()[0]
        if case.expect_reason is not None:  # the advice for the cause, where one was named
            cause = (result.meta or {}).get("sosoapi/cause")
            told = advice(Reason(case.expect_reason), State.COMPLETED, None, cause)
            assert told in line, (case.file, line)


@pytest.mark.slow(reason="every wall page of the dev set through a real transport")
@SQLITE
async def test_over_mcp_streamable_http(
    served: ServeProcess, initialised: dict[str, str], origin: HTTPSOrigin
) -> None:
    serve(origin)
    async with over_http(served.base + "/mcp", initialised["SOSOAPI_TOKEN"]) as client:
        await call_all(client, initialised, origin)


@pytest.mark.slow(reason="every wall page of the dev set through a real transport")
@SQLITE
async def test_over_mcp_stdio(initialised: dict[str, str], origin: HTTPSOrigin) -> None:
    serve(origin)
    params = StdioServerParameters(command=SOSOAPI, args=["mcp"], env={**os.environ, **initialised})
    async with mcp.Client(params) as client:
        await call_all(client, initialised, origin)
