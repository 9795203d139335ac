"""What an operation receives and returns, shared by every use case."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sosoapi.auth.permission import Access, Action
from sosoapi.auth.tokens import Principal
from sosoapi.contract.models import Wire


@dataclass(frozen=True, slots=True)
class Call:
    """One authorised call as an operation sees it."""

    principal: Principal
    access: Access | None
    arguments: dict[str, Any]
    cancel_requested: Callable[[], bool]

    @property
    def workspace_id(self) -> str:
        assert self.access is not None, "this operation is not workspace-scoped"
        return self.access.workspace.id

    @property
    def token_id(self) -> str:
        return self.principal.token_id


@dataclass(frozen=True, slots=True)
class Outcome:
    """An operation's contract output, plus what the snapshot schema has no place for."""

    output: Wire
    corpus_revision: int | None = None


Handler = Callable[[Call], Awaitable[Outcome]]


@dataclass(frozen=True, slots=True)
class Operation:
    """A tool's use case: `action` None means authentication alone (no workspace)."""

    tool: str
    action: Action | None
    handler: Handler
