"""The Tasks extension over MCP (in-process SDK client, 2026-07-28): a slow retrieval
becomes a task whose id is the retrieval id; tasks/get reads it to the receipt, tasks/cancel
settles it cancelled, only its creator sees it, and a client without the extension keeps
today's open receipt."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
import mcp
import mcp.types as types
import pytest
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict, TypeAdapter

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.mcp.tasks import EXTENSION
from tests.mcp.test_inprocess import server_for
from tests.support.calls import RETRIEVE
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route

ANY = TypeAdapter(dict[str, Any])


@pytest.fixture
def receipt_overrides() -> dict[str, float]:
    return {"wait_budget_seconds": 0.5}


class CreatedTask(types.Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    ttl_ms: int


class TaskParams(types.RequestParams):
    task_id: str


class TaskRequest(types.Request[TaskParams, str]):
    method: str
    params: TaskParams


async def task_call(session: Any, method: str, task_id: str) -> dict[str, Any]:
    request = TaskRequest(method=method, params=TaskParams(task_id=task_id))
    return await session.send_request(request, ANY)


async def _unused(result: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
    raise AssertionError("the tests read the task themselves")


class TasksClient(ClientExtension):
    identifier = EXTENSION

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=_unused)]


def slow_call(origin: HTTPSOrigin, ws: str, path: str = "/slow") -> dict[str, str]:
    origin.routes[path] = Route(
        b"<html><body><p>" + b"Slow words. " * 40 + b"</p></body></html>", delay=2.0
    )
    return {
        "workspace_id": ws,
        "url": origin.url(path),
        "kind": "url_text",
        "mutation_id": str(uuid.uuid4()),
    }


async def test_a_slow_retrieval_becomes_a_task_read_to_its_receipt(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    arguments = slow_call(origin, ws)
    server = server_for(application, token)
    async with mcp.Client(server, mode="auto", extensions=[TasksClient()]) as client:
        assert EXTENSION in (client.server_capabilities.extensions or {})
        task = await client.session.call_tool(RETRIEVE, arguments, allow_claimed=True)
        assert isinstance(task, CreatedTask) and task.status == "working"
        assert task.ttl_ms == 24 * 3600 * 1000
        seen = await task_call(client.session, "tasks/get", task.task_id)
        assert seen["status"] == "working" and seen["statusMessage"]
        with anyio.fail_after(15):
            while seen["status"] == "working":
                await anyio.sleep(0.2)
                seen = await task_call(client.session, "tasks/get", task.task_id)
        assert seen["status"] == "completed" and seen["taskId"] == task.task_id
        receipt = seen["result"]["structuredContent"]
        assert_valid_output(RETRIEVE, receipt)
        assert receipt["retrieval"]["id"] == task.task_id  # task id = retrieval id
        assert receipt["retrieval"]["result"]["status"] == "ready"
    async with mcp.Client(server_for(application, token)) as replaying:  # today's path
        again = await replaying.call_tool(RETRIEVE, arguments)
    assert again.structured_content == receipt


async def test_tasks_cancel_settles_the_receipt_and_only_the_creator_sees_a_task(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    now = datetime.now(UTC)
    admin = Admin(application.store.auth)
    colleague = admin.mint(admin.create_member(ws, "colleague", "owner", now), now).token
    arguments = slow_call(origin, ws)
    async with mcp.Client(
        server_for(application, token), mode="auto", extensions=[TasksClient()]
    ) as client:
        task = await client.session.call_tool(RETRIEVE, arguments, allow_claimed=True)
        assert isinstance(task, CreatedTask)
        async with mcp.Client(server_for(application, colleague), mode="auto") as other:
            for method in ("tasks/get", "tasks/cancel"):
                with pytest.raises(MCPError) as hidden:
                    await task_call(other.session, method, task.task_id)
                assert (
                    hidden.value.code == types.INVALID_PARAMS and "No task" in hidden.value.message
                )
        with pytest.raises(MCPError) as unknown:
            await task_call(client.session, "tasks/get", str(uuid.uuid4()))
        assert unknown.value.message.split(" for ")[1] == hidden.value.message.split(" for ")[1]
        await task_call(client.session, "tasks/cancel", task.task_id)
        seen = await task_call(client.session, "tasks/get", task.task_id)
        assert seen["status"] == "cancelled"
        with pytest.raises(MCPError) as finished:
            await task_call(client.session, "tasks/cancel", task.task_id)
        assert "already finished" in finished.value.message
        replay = await client.call_tool(RETRIEVE, arguments)
    receipt = replay.structured_content["retrieval"]
    assert receipt["state"] == "cancelled" and receipt["result"]["reason"] == "cancelled"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_the_extension_keeps_the_open_receipt(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin, mode: str
) -> None:
    ws, token = owner
    async with mcp.Client(server_for(application, token), mode=mode) as client:
        result = await client.call_tool(RETRIEVE, slow_call(origin, ws))
    assert isinstance(result, types.CallToolResult)
    assert result.structured_content["retrieval"]["state"] in {"pending", "running"}
