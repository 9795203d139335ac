"""The MCP Tasks extension (`io.modelcontextprotocol/tasks`) for retrievals, on the
low-level server's handlers: the SDK does not implement it.

Only a 2026-07-28 request that declares the extension in its `_meta` client capabilities
gets a task, and only when its retrieval is still open after the wait budget: the task id
is the retrieval id (the receipt is durable before the reply), `ttlMs` the receipt's
window. `tasks/get` reports `working` with a status message, then the receipt as the
`result`; `tasks/cancel` settles the receipt `cancelled`. A task is visible only to the
OAuth grant (any of its rotating access tokens) or personal token that created it; any
other caller gets the same "not found" as for no task at all. Every other client keeps
today's path: the open receipt, replayed by `mutation_id`.

The registry is bounded: a task is forgotten once `tasks/get` has handed over its result,
or when its receipt's window ends (the receipt itself stays in the store, readable by
replaying its `mutation_id`).
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
from sosoapi.clock import utcnow
from sosoapi.contract.documents import RECEIPT_OUTPUTS
from sosoapi.contract.errors import ServiceError
from sosoapi.contract.guidance import advice
from sosoapi.contract.vocabulary import OPEN_STATES
from sosoapi.research.operation import Outcome
from sosoapi.research.retrieval.contract_receipt import Receipt
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
    holder: str  # Principal.holder: the grant or personal token that started it
    workspace_id: str
    valid_until: datetime


class Tasks:
    """This server's live tasks: who started each, until when (the receipt is in the
    store). Kept in creation order, which is expiry order: every receipt gets the same
    window, so the expired ones are always at the front."""

    def __init__(
        self,
        research: ResearchService,
        caller: Caller,
        render: Render,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.research = research
        self.caller = caller
        self.render = render
        self.clock = clock
        self.owners: dict[str, _Owned] = {}

    def install(self, server: Server) -> None:
        server.extensions[EXTENSION] = {}
        server.add_request_handler("tasks/get", TaskParams, self.on_get)
        server.add_request_handler("tasks/cancel", TaskParams, self.on_cancel)

    def created(self, outcome: Outcome, principal: Principal) -> dict[str, Any] | None:
        """The task for a retrieval still open after the wait budget, else None."""
        output = outcome.output
        if not isinstance(output, RECEIPT_OUTPUTS) or output.retrieval.state not in OPEN_STATES:
            return None
        r = output.retrieval
        self._forget_expired()
        self.owners[str(r.id)] = _Owned(principal.holder, str(r.workspace_id), r.valid_until)
        return {"resultType": "task", **self._task(Receipt(output, outcome.cause))}

    def _forget_expired(self) -> None:
        now = self.clock()
        for task_id, owned in list(self.owners.items()):
            if owned.valid_until > now:
                return
            del self.owners[task_id]

    def _task(self, receipt: Receipt) -> dict[str, Any]:
        r = receipt.output.retrieval
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
        rendered = self.render(Outcome(receipt.output, cause=receipt.cause))
        result = rendered.model_dump(by_alias=True, mode="json", exclude_none=True)
        return {**task, "status": "completed", "result": result}

    async def _receipt(self, task_id: str, *, cancel: bool) -> Receipt:
        principal = await self.caller()
        self._forget_expired()
        owned = self.owners.get(task_id)
        if owned is None or owned.holder != principal.holder:
            raise _unknown(task_id)
        try:
            return await self.research.receipt(
                principal, owned.workspace_id, task_id, cancel=cancel
            )
        except ServiceError:
            raise _unknown(task_id) from None

    async def on_get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        task = self._task(await self._receipt(params.task_id, cancel=False))
        if "result" in task:  # handed over: the receipt stays replayable by mutation_id
            self.owners.pop(params.task_id, None)
        return {"resultType": "complete", **task}

    async def on_cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        current = await self._receipt(params.task_id, cancel=False)
        if current.output.retrieval.state not in OPEN_STATES:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Task {params.task_id[:100]} already finished ({current.output.retrieval.state}); "
                "read it with tasks/get.",
            )
        await self._receipt(params.task_id, cancel=True)
        return {"resultType": "complete"}


def _unknown(task_id: str) -> MCPError:
    return MCPError(
        types.INVALID_PARAMS,
        f"No task {task_id[:100]} for this caller; a task is visible only to the grant or "
        "token that started it, until its result is read or its receipt's window ends "
        "(replay the call's mutation_id to read the receipt).",
    )
