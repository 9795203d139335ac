"""A slow document read becomes an MCP task like a slow page read (tests/mcp/test_tasks.py),
read through tasks/get to the document's receipt, valid against its contract."""

from __future__ import annotations

import uuid

import anyio
import mcp
import pytest

from sosoapi.application import Application
from tests.documents.support import TOOL, by_name_path
from tests.mcp.test_inprocess import server_for
from tests.mcp.test_tasks import CreatedTask, TasksClient, task_call
from tests.support.contract import assert_valid_output
from tests.support.origin import HTTPSOrigin, Route


@pytest.fixture
def receipt_overrides() -> dict[str, float]:
    return {"wait_budget_seconds": 0.5}


async def test_a_slow_document_becomes_a_task_read_to_its_receipt(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    body = by_name_path("pypdf-toy").read_bytes()
    origin.routes["/slow.pdf"] = Route(body, content_type="application/pdf", delay=2.0)
    arguments = {"workspace_id": ws, "url": origin.url("/slow.pdf"),
                 "mutation_id": str(uuid.uuid4())}  # fmt: skip
    server = server_for(application, token)
    async with mcp.Client(server, mode="auto", extensions=[TasksClient()]) as client:
        task = await client.session.call_tool(TOOL, arguments, allow_claimed=True)
        assert isinstance(task, CreatedTask) and task.status == "working"
        seen = await task_call(client.session, "tasks/get", task.task_id)
        with anyio.fail_after(15):
            while seen["status"] == "working":
                await anyio.sleep(0.2)
                seen = await task_call(client.session, "tasks/get", task.task_id)
        assert seen["status"] == "completed"
        receipt = seen["result"]["structuredContent"]
        assert_valid_output(TOOL, receipt)
        assert receipt["retrieval"]["id"] == task.task_id
        assert receipt["retrieval"]["result"]["status"] == "ready"
