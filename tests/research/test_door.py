"""Contract-valid input is never a 500 on either store; what no store can hold is refused
at the service door naming the field, and nothing is written."""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import replace

import httpx
import mcp
import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from sosoapi.application import Application
from sosoapi.contract.errors import ServiceError
from sosoapi.mcp.server import build_server
from tests.support.contract import assert_valid_output

CREATE = "sosoapi_research_projects_create"
SEAL = "sosoapi_research_corpora_seal"


def key() -> str:
    return str(uuid.uuid4())


async def refused(app: Application, token: str, tool: str, arguments: dict) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        await app.research.call(tool, token, arguments)
    return caught.value


async def project(app: Application, token: str, ws: str, title: str = "Door") -> str:
    out = await app.research.call(
        CREATE, token, {"workspace_id": ws, "mutation_id": key(), "title": title}
    )
    return out.output.wire()["project"]["id"]


async def project_count(app: Application, token: str, ws: str) -> int:
    listed = await app.research.call(
        "sosoapi_research_projects_list", token, {"workspace_id": ws, "limit": 200}
    )
    return len(listed.output.wire()["items"])


def test_raw_depth_scan_agrees_with_the_parse() -> None:
    from sosoapi.contract.inputs import MAX_DEPTH, raw_depth_exceeded

    for depth in (0, 1, MAX_DEPTH, MAX_DEPTH + 1, 100_000):
        text = "[" * depth + "]" * depth
        assert raw_depth_exceeded(text.encode()) is (depth > MAX_DEPTH), depth
    quoted = json.dumps({"title": "[" * 10_000})  # brackets inside a string do not nest
    assert raw_depth_exceeded(quoted.encode()) is False
    escaped = json.dumps({"t": '\\"' + "[" * 100}).encode()
    assert raw_depth_exceeded(escaped) is False


def test_normalise_refuses_depth_without_recursion() -> None:
    from sosoapi.contract.inputs import MAX_DEPTH, normalise

    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ServiceError) as caught:
        normalise({"x": deep})
    assert caught.value.code == "invalid_input" and str(MAX_DEPTH) in caught.value.message
    given = {"limit": 1.0, "nested": [2.0, 2.5]}
    assert normalise(given) == {"limit": 1, "nested": [2, 2.5]}
    assert type(normalise(given)["limit"]) is int and given["limit"] == 1.0  # a copy


async def test_integral_floats_are_counts(application: Application, owner: tuple[str, str]) -> None:
    ws, token = owner
    for title in ("one", "two"):
        project_id = await project(application, token, ws, title)
        await application.research.call(
            SEAL, token, {"workspace_id": ws, "mutation_id": key(), "project_id": project_id}
        )
    for tool in ("sosoapi_research_projects_list", "sosoapi_research_corpora_list"):
        listed = await application.research.call(tool, token, {"workspace_id": ws, "limit": 1.0})
        page = listed.output.wire()
        assert_valid_output(tool, page)
        assert len(page["items"]) == 1 and page["next_cursor"], tool


async def test_seal_replayed_with_1_after_1_0_is_the_same_seal(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    project_id = await project(application, token, ws)
    seal = {"workspace_id": ws, "mutation_id": key(), "project_id": project_id}
    first = await application.research.call(SEAL, token, {**seal, "max_items": 1.0})
    again = await application.research.call(SEAL, token, {**seal, "max_items": 1})
    assert_valid_output(SEAL, first.output.wire())
    assert again.output.wire() == first.output.wire()


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("title", "a\x00b", "NUL"),
        ("title", "a\ud800b", "surrogate"),
    ],
)
async def test_unstorable_titles_are_refused_naming_the_field(
    application: Application, owner: tuple[str, str], field: str, value: str, problem: str
) -> None:
    ws, token = owner
    arguments = {"workspace_id": ws, "mutation_id": key(), field: value}
    error = await refused(application, token, CREATE, arguments)
    assert (error.code, error.field) == ("invalid_input", field)
    assert (problem in error.message and "remove it" in error.message) or "UTF-8" in error.message
    assert await project_count(application, token, ws) == 0


@pytest.mark.parametrize("value", ["gone\x00", "gone\udfff"])
async def test_unstorable_notes_and_cursors_are_refused(
    application: Application, owner: tuple[str, str], value: str
) -> None:
    ws, token = owner
    project_id = await project(application, token, ws)
    notes = {
        "workspace_id": ws,
        "mutation_id": key(),
        "project_id": project_id,
        "missing_notes": ["fine", value],
    }
    error = await refused(application, token, "sosoapi_research_projects_add_sources", notes)
    assert (error.code, error.field) == ("invalid_input", "missing_notes.1")
    got = await application.research.call(
        "sosoapi_research_projects_get", token, {"workspace_id": ws, "project_id": project_id}
    )
    assert got.output.wire()["project"]["sources"] == []
    for tool in ("sosoapi_research_evidence_list", "sosoapi_research_projects_list"):
        error = await refused(application, token, tool, {"workspace_id": ws, "cursor": value})
        assert (error.code, error.field) == ("invalid_input", "cursor")


@pytest.mark.parametrize("revision", [2**31, 2**53 - 1, 2**53 - 1.0])
async def test_revisions_across_the_contract_range_are_not_found(
    application: Application, owner: tuple[str, str], revision: float
) -> None:
    ws, token = owner
    project_id = await project(application, token, ws)
    sealed = await application.research.call(
        SEAL, token, {"workspace_id": ws, "mutation_id": key(), "project_id": project_id}
    )
    corpus_id = sealed.output.wire()["snapshot"]["id"]
    error = await refused(
        application,
        token,
        "sosoapi_research_corpora_get",
        {"workspace_id": ws, "id": corpus_id, "revision": revision},
    )
    assert error.code == "not_found"
    error = await refused(
        application,
        token,
        "sosoapi_research_evidence_get",
        {"workspace_id": ws, "evidence_id": key(), "revision": revision},
    )
    assert error.code == "not_found"


def server_for(app: Application, token: str):
    return build_server(
        app.research,
        transport="stdio",
        profile="full",
        output_schemas=False,
        token_source=lambda: token,
    )


async def test_mcp_limit_1_0_and_unknown_tool(
    application: Application, owner: tuple[str, str]
) -> None:
    ws, token = owner
    async with mcp.Client(server_for(application, token)) as client:
        listed = await client.call_tool(
            "sosoapi_research_projects_list", {"workspace_id": ws, "limit": 1.0}
        )
        assert listed.is_error is False, listed.content
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("sosoapi_research_no_such_tool", {})
    assert unknown.value.code == INVALID_PARAMS
    assert "Unknown tool" in unknown.value.message


def break_create(application: Application) -> str:
    """Make project creation fail with a bug whose message carries the caller's title;
    returns the title to send (it must reach neither the caller nor the log)."""

    async def broken(call) -> None:
        raise RuntimeError(f"boom with {call.arguments['title']}")

    working = application.research.operations[CREATE]
    application.research.operations[CREATE] = replace(working, handler=broken)
    return "secret-argument-value-7c1f"


async def test_unexpected_failure_is_an_incident_never_exception_text(
    application: Application, owner: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    ws, token = owner
    secret = break_create(application)
    arguments = {"workspace_id": ws, "mutation_id": key(), "title": secret}
    with caplog.at_level(logging.INFO, logger="sosoapi"):
        async with mcp.Client(server_for(application, token)) as client:
            with pytest.raises(MCPError) as failed:
                await client.call_tool(CREATE, arguments)
    error = failed.value
    assert error.code == INTERNAL_ERROR
    incident_id = error.data["incident_id"]
    assert incident_id in error.message and secret not in error.message
    assert "boom" not in error.message
    logged = [r.getMessage() for r in caplog.records if incident_id in r.getMessage()]
    assert logged, "the incident id is in the log"
    assert secret not in caplog.text


async def test_unexpected_failure_over_http_is_a_500_problem_with_the_incident(
    application: Application, owner: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    from sosoapi.api.http import create_http_app
    from tests.support.mcp_http import inprocess_mcp

    ws, token = owner
    secret = break_create(application)
    base = "http://127.0.0.1:8080"
    mcp_app = inprocess_mcp(application, base)
    api = create_http_app(
        application.research,
        running=application.running(),
        mcp=mcp_app,
        host="127.0.0.1",
        port=8080,
        profile="full",
        base=base,
        max_request_bytes=application.settings.max_request_bytes,
    )
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as http:
        with caplog.at_level(logging.INFO, logger="sosoapi"):
            response = await http.post(
                "/research-api/projects/create",
                json={"workspace_id": ws, "mutation_id": key(), "title": secret},
                headers={"Authorization": f"Bearer {token}"},
            )
    assert response.status_code == 500
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["type"].endswith("/internal") and problem["status"] == 500
    assert problem["incident_id"] in problem["detail"] and problem["incident_id"] in caplog.text
    assert secret not in response.text and "boom" not in response.text
    assert secret not in caplog.text
