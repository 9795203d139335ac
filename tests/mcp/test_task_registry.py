"""The MCP task registry is bounded and belongs to the grant (issue 36, item 8): a task is
forgotten once its result is handed over or its receipt's window ends, and an OAuth
client keeps its tasks across refresh-token rotation. Both stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.mcp.server import build_server, success_result
from sosoapi.mcp.tasks import TaskParams, Tasks
from tests.mcp.test_tasks import CreatedTask, TasksClient, slow_call, task_call
from tests.support.calls import RETRIEVE
from tests.support.origin import HTTPSOrigin

CLIENT = "task-client"


@pytest.fixture
def receipt_overrides() -> dict[str, float]:
    return {"wait_budget_seconds": 0.5}


async def until_settled(session: Any, task_id: str) -> dict[str, Any]:
    with anyio.fail_after(15):
        while True:
            seen = await task_call(session, "tasks/get", task_id)
            if seen["status"] != "working":
                return seen
            await anyio.sleep(0.2)


def oauth_tokens(application: Application, personal: str) -> tuple[str, str]:
    """An OAuth grant approved with `personal`: (access token, refresh token)."""
    now = datetime.now(UTC)
    grants = application.oauth
    grants.register(CLIENT, None, "Task client", "{}", now)
    request_id = grants.begin(
        CLIENT, {"scopes": ["agent:research"], "resource": "http://127.0.0.1:1/mcp"}, now
    )
    code, _ = grants.approve(request_id, personal, now)
    record = grants.code(code, CLIENT, now)
    assert record is not None
    issued = grants.exchange(code, record, now)
    return issued.access_token, issued.refresh_token


async def test_a_task_is_forgotten_once_its_result_is_handed_over(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    server = build_server(
        application.research, transport="stdio", profile="full", output_schemas=False,
        token_source=lambda: token,
    )  # fmt: skip
    async with mcp.Client(server, mode="auto", extensions=[TasksClient()]) as client:
        task = await client.session.call_tool(RETRIEVE, slow_call(origin, ws), allow_claimed=True)
        assert isinstance(task, CreatedTask)
        done = await until_settled(client.session, task.task_id)
        assert done["status"] == "completed" and done["result"]["structuredContent"]
        with pytest.raises(MCPError) as gone:
            await task_call(client.session, "tasks/get", task.task_id)
        assert "No task" in gone.value.message and "mutation_id" in gone.value.message


async def test_an_oauth_client_keeps_its_tasks_across_refresh_rotation(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, personal = owner
    access, refresh = oauth_tokens(application, personal)
    speaking = {"token": access}
    server = build_server(
        application.research, transport="stdio", profile="full", output_schemas=False,
        token_source=lambda: speaking["token"],
    )  # fmt: skip
    now = datetime.now(UTC)
    admin = Admin(application.store.auth)
    colleague = admin.mint(admin.create_member(ws, "colleague", "owner", now), now).token
    async with mcp.Client(server, mode="auto", extensions=[TasksClient()]) as client:
        task = await client.session.call_tool(RETRIEVE, slow_call(origin, ws), allow_claimed=True)
        assert isinstance(task, CreatedTask)
        record = application.oauth.refresh_record(refresh, CLIENT, datetime.now(UTC))
        assert record is not None
        rotated = application.oauth.rotate(record, ["agent:research"], datetime.now(UTC))
        assert rotated.access_token != access
        speaking["token"] = rotated.access_token  # the same grant, a new access token
        assert (await until_settled(client.session, task.task_id))["status"] == "completed"
        task = await client.session.call_tool(RETRIEVE, slow_call(origin, ws, "/b"),
                                              allow_claimed=True)  # fmt: skip
        assert isinstance(task, CreatedTask)
        speaking["token"] = colleague  # another token of the same user's workspace: hidden
        with pytest.raises(MCPError) as hidden:
            await task_call(client.session, "tasks/get", task.task_id)
        assert "No task" in hidden.value.message


async def test_a_task_is_forgotten_when_its_receipt_window_ends(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    principal = await application.research.authenticate(token)
    now = [datetime.now(UTC)]
    tasks = Tasks(application.research, lambda: _async(principal), success_result,
                  clock=lambda: now[0])  # fmt: skip
    first = await application.research.call(RETRIEVE, token, slow_call(origin, ws, "/one"))
    second = await application.research.call(RETRIEVE, token, slow_call(origin, ws, "/two"))
    one = tasks.created(first, principal)
    assert one is not None and tasks.created(second, principal) is not None
    window = timedelta(milliseconds=one["ttlMs"])
    assert (await tasks.on_get(None, TaskParams(taskId=one["taskId"])))["taskId"] == one["taskId"]
    now[0] += window + timedelta(seconds=5)
    with pytest.raises(MCPError) as expired:
        await tasks.on_get(None, TaskParams(taskId=one["taskId"]))
    assert "No task" in expired.value.message
    assert tasks.owners == {}  # both windows ended: nothing kept
    third = await application.research.call(RETRIEVE, token, slow_call(origin, ws, "/three"))
    now[0] = datetime.now(UTC)
    assert tasks.created(third, principal) is not None and len(tasks.owners) == 1


async def _async(value: Any) -> Any:
    return value
