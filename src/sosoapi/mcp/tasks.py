"""The MCP Tasks extension (`io.modelcontextprotocol/tasks`) for retrievals, on the
low-level server's handlers: the SDK does not implement it.

Only a 2026-07-28 request that declares the extension in its `_meta` client capabilities
gets a task, and only when its retrieval is still open after the wait budget: the task id
is the retrieval id (the receipt is durable before the reply), `ttlMs` the receipt's
window. `tasks/get` reports `working` with a status message, then the receipt as the
`result`; `tasks/cancel` settles the receipt `cancelled`. A task is visible only to the
token that created it; any other caller gets the same "not found" as for no task at all.
Every other client keeps today's path: the open receipt, replayed by `mutation_id`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from pydantic import Field

from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.guidance import advice
from sosoapi.contract.models import RetrieveOutput
from sosoapi.contract.vocabulary import OPEN_STATES
from sosoapi.research.operation import Outcome
from sosoapi.research.service import ResearchService

EXTENSION = "io.modelcontextprotocol/tasks"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
POLL_INTERVAL_MS = 2_000
Caller = Callable[[], Awaitable[Principal]]
Render = Callable[[Outcome], types.CallToolResult]


class TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId", min_length=1, max_length=100)


def declared(ctx: Any) -> bool:
    """Whether this request's client declared the extension (2026-07-28, per request)."""
    meta = getattr(ctx, "meta", None) or {}
    capabilities = meta.get(CAPABILITIES_META) or {}
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


@dataclass(frozen=True, slots=True)
class _Owned:
    token_id: str
    workspace_id: str


class Tasks:
    """This server's tasks: which token made each (the receipt itself is in the store)."""

    def __init__(self, research: ResearchService, caller: Caller, render: Render) -> None:
        self.research = research
        self.caller = caller
        self.render = render
        self.owners: dict[str, _Owned] = {}

    def install(self, server: Server) -> None:
        server.extensions[EXTENSION] = {}
        server.add_request_handler("tasks/get", TaskParams, self.on_get)
        server.add_request_handler("tasks/cancel", TaskParams, self.on_cancel)

    def created(self, outcome: Outcome, principal: Principal) -> dict[str, Any] | None:
        """The task for a retrieval still open after the wait budget, else None."""
        output = outcome.output
        if not isinstance(output, RetrieveOutput) or output.retrieval.state not in OPEN_STATES:
            return None
        r = output.retrieval
        self.owners[str(r.id)] = _Owned(principal.token_id, str(r.workspace_id))
        return {"resultType": "task", **self._task(output)}

    def _task(self, output: RetrieveOutput, outcome: Outcome | None = None) -> dict[str, Any]:
        r = output.retrieval
        task: dict[str, Any] = {
            "taskId": str(r.id),
            "createdAt": _iso(r.created_at),
            "lastUpdatedAt": _iso(r.settled_at or r.created_at),
            "ttlMs": int((r.valid_until - r.created_at).total_seconds() * 1000),
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if r.state in OPEN_STATES:
            message = f"Retrieval {r.id}: state {r.state}. {advice(None, r.state)}".strip()
            return {**task, "status": "working", "statusMessage": message}
        if r.state == "cancelled":
            return {**task, "status": "cancelled", "statusMessage": "The receipt was cancelled."}
        rendered = self.render(outcome or Outcome(output))
        result = rendered.model_dump(by_alias=True, mode="json", exclude_none=True)
        return {**task, "status": "completed", "result": result}

    async def _receipt(self, task_id: str, *, cancel: bool) -> RetrieveOutput:
        principal = await self.caller()
        owned = self.owners.get(task_id)
        if owned is None or owned.token_id != principal.token_id:
            raise _unknown(task_id)
        try:
            return await self.research.receipt(
                principal, owned.workspace_id, task_id, cancel=cancel
            )
        except ServiceError:
            raise _unknown(task_id) from None

    async def on_get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        return {
            "resultType": "complete",
            **self._task(await self._receipt(params.task_id, cancel=False)),
        }

    async def on_cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        current = await self._receipt(params.task_id, cancel=False)
        if current.retrieval.state not in OPEN_STATES:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Task {params.task_id[:100]} already finished ({current.retrieval.state}); "
                "read it with tasks/get.",
            )
        await self._receipt(params.task_id, cancel=True)
        return {"resultType": "complete"}


def _unknown(task_id: str) -> MCPError:
    return MCPError(
        types.INVALID_PARAMS,
        f"No task {task_id[:100]} for this caller; a task is visible only to the token that "
        "started it.",
    )
