"""The research operations behind every surface: authenticate, validate, authorise, act.

MCP and HTTP both call `ResearchService.call` with a tool name and raw JSON arguments, so
every rule (input validation against the contract, the permission check, idempotency) is
written once and the transports only translate.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from sosoapi.auth.permission import Access, Action, Guard
from sosoapi.auth.tokens import Principal
from sosoapi.contract.errors import not_found
from sosoapi.contract.models import RetrieveInput, Wire
from sosoapi.contract.schemas import validate_input
from sosoapi.research.receipts import ReceiptService, utcnow
from sosoapi.store.store import Store


@dataclass(frozen=True, slots=True)
class Call:
    """One authorised call as an operation sees it."""

    access: Access
    arguments: dict[str, Any]
    cancel_requested: Callable[[], bool]


@dataclass(frozen=True, slots=True)
class Outcome:
    """An operation's contract output, plus what the snapshot schema has no place for."""

    output: Wire
    corpus_revision: int | None = None


Handler = Callable[[Call], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Operation:
    tool: str
    action: Action
    handler: Handler


class ResearchService:
    def __init__(self, store: Store, guard: Guard, receipts: ReceiptService) -> None:
        self.store = store
        self.guard = guard
        self.receipts = receipts
        self.operations: dict[str, Operation] = {}
        self.register(Operation("sosoapi_research_evidence_retrieve", "write", self._retrieve))

    def register(self, operation: Operation) -> None:
        self.operations[operation.tool] = operation

    async def authenticate(self, token: str | None) -> Principal:
        return await anyio.to_thread.run_sync(self.guard.authenticate, token, utcnow())

    async def call(
        self,
        tool: str,
        token: str | None,
        arguments: Any,
        cancel_requested: Callable[[], bool] = lambda: False,
    ) -> Outcome:
        """Authenticate, validate, authorise and run `tool`; raise `ServiceError` if no result."""
        operation = self.operations.get(tool)
        if operation is None:
            raise not_found(
                f"Unknown tool `{tool}`; list the tools to see what this server offers."
            )
        access, arguments = await anyio.to_thread.run_sync(self._admit, operation, token, arguments)
        return await operation.handler(Call(access, arguments, cancel_requested))

    def _admit(
        self, operation: Operation, token: str | None, arguments: Any
    ) -> tuple[Access, dict[str, Any]]:
        """The checks of SPEC section 3 in order, input validation after authentication."""
        principal = self.guard.authenticate(token, utcnow())
        arguments = validate_input(operation.tool, arguments)
        access, _ = self.guard.check(principal, arguments["workspace_id"].lower(), operation.action)
        return access, arguments

    async def _retrieve(self, call: Call) -> Outcome:
        request = RetrieveInput.model_validate(call.arguments)
        output = await self.receipts.retrieve(
            request, call.access.principal.token_id, call.cancel_requested
        )
        return Outcome(output)
