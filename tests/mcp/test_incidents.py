"""An unexpected failure on any MCP request takes the one incident path (issue 39 item 6).

A tool call's bug was already an incident: logged once with an id, answered as a JSON-RPC
internal error carrying only that id. A resource read or a completion that failed the
same way escaped to the SDK, which logged a bare traceback (quoting the request's values)
with no id for the operator to match. Each request kind is broken here on purpose.
"""

from __future__ import annotations

import logging
import uuid

import mcp
import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from sosoapi.application import Application
from sosoapi.mcp import completions, resources
from tests.mcp.test_inprocess import server_for

SECRET = "value-from-the-request-9f3c"


def _broken(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError(f"a bug that would quote {SECRET}")


async def _assert_incident(
    caught: pytest.ExceptionInfo[MCPError], caplog: pytest.LogCaptureFixture
) -> None:
    error = caught.value.error
    assert error.code == types.INTERNAL_ERROR
    incident_id = (error.data or {})["incident_id"]
    assert incident_id in error.message and SECRET not in error.message
    logged = [r.getMessage() for r in caplog.records if "incident=" in r.getMessage()]
    assert len(logged) == 1 and f"incident={incident_id}" in logged[0]


async def test_a_failing_resource_read_is_an_incident(
    application: Application,
    owner: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ws, token = owner
    monkeypatch.setattr(resources, "read", _broken)
    uri = f"sosoapi://workspaces/{ws}/evidence/{uuid.uuid4()}"
    with caplog.at_level(logging.ERROR, logger="sosoapi"):
        async with mcp.Client(server_for(application, token)) as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(uri)
    await _assert_incident(caught, caplog)


async def test_a_failing_completion_is_an_incident(
    application: Application,
    owner: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ws, token = owner
    monkeypatch.setattr(completions, "complete", _broken)
    template = types.ResourceTemplateReference(
        type="ref/resource",
        uri="sosoapi://workspaces/{workspace_id}/evidence/{evidence_id}",
    )
    with caplog.at_level(logging.ERROR, logger="sosoapi"):
        async with mcp.Client(server_for(application, token)) as client:
            with pytest.raises(MCPError) as caught:
                await client.complete(template, {"name": "workspace_id", "value": ws[:4]})
    await _assert_incident(caught, caplog)
