"""The one permission check every operation goes through, in the order of
docs/product.md, "Authentication and permission".

authentication -> scope -> role in the workspace -> feature permission; resource access
is the workspace in every repository query (see `Guard`).
A caller who is not a member learns nothing: "not found", never "forbidden".
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sosoapi.auth.errors import (
    BadToken,
    MissingScope,
    NotAMember,
    NoToken,
    ReadOnlyRole,
    ResearchDisabled,
)
from sosoapi.auth.tokens import (
    RESEARCH_SCOPE,
    Principal,
    approver_lapsed,
    hash_token,
    lapsed_at,
    principal_of,
    refusal,
)
from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.records import StoreUnavailable, TokenRecord, WorkspaceRecord

Action = Literal["read", "write"]
# A token's last use is written at most once per this, never on every call.
LAST_USED_RESOLUTION = timedelta(minutes=1)
ROLES: dict[str, frozenset[Action]] = {
    "viewer": frozenset({"read"}),
    "editor": frozenset({"read", "write"}),
    "owner": frozenset({"read", "write"}),
}


@dataclass(frozen=True, slots=True)
class Access:
    """What a passed check grants: the caller, its workspace and role."""

    principal: Principal
    workspace: WorkspaceRecord
    role: str


class Guard:
    """Authenticates bearer tokens and authorises calls against the auth repository.

    Resource scoping is not here: every repository query names the workspace this check
    admitted (its WHERE clause), so a resource of another workspace is simply not found.
    """

    def __init__(self, repo: AuthRepository) -> None:
        self.repo = repo

    def authenticate(self, token: str | None, now: datetime) -> Principal:
        if not token:
            raise NoToken(
                "No bearer token was sent", "send a token; mint one with `sosoapi tokens create`."
            )
        record = self.repo.token_by_hash(hash_token(token))
        reason = refusal(record, now)
        if reason == "unknown" or record is None:
            raise BadToken(
                "The bearer token is unknown to this server",
                "check it was copied whole, or mint a new one with `sosoapi tokens create` "
                "(OAuth clients: sign in again).",
            )
        if reason is not None:
            when = lapsed_at(record, reason, now)
            ended = approver_lapsed(record, now)
            why = f"; its grant ended: the personal token that approved it was {ended}"
            why = why if ended else ""
            raise BadToken(
                f"The bearer token was {reason} at {when.isoformat() if when else '?'}{why}",
                "mint a new one with `sosoapi tokens create` (OAuth clients: refresh or sign "
                "in again).",
            )
        self._note_use(record, now)
        return principal_of(record)

    def _note_use(self, record: TokenRecord, now: datetime) -> None:
        """Keep `last_used_at` to the minute; a store that cannot write now never fails
        the call (the read that authenticated it succeeded)."""
        last = record.last_used_at
        if last is not None and now - last < LAST_USED_RESOLUTION:
            return
        with contextlib.suppress(StoreUnavailable):
            self.repo.touch_token(record.id, now)

    def check(self, principal: Principal, workspace_id: str, action: Action) -> Access:
        """Authorise `action` in `workspace_id` (scope, membership, role, feature)."""
        if RESEARCH_SCOPE not in principal.scopes:
            raise MissingScope(
                f"The token lacks the `{RESEARCH_SCOPE}` scope",
                f"mint a token with `sosoapi tokens create --scope {RESEARCH_SCOPE}`.",
            )
        member = self.repo.membership(workspace_id, principal.user_id)
        if member is None:
            raise NotAMember(
                f"workspace_id {workspace_id} was not found for this caller",
                "use a workspace you are a member of (`sosoapi_whoami` lists them).",
            )
        workspace, role = member
        if action not in ROLES.get(role, frozenset()):
            raise ReadOnlyRole(
                f"Your role `{role}` in workspace {workspace_id} may only read",
                "ask an owner for the `editor` role to retrieve or seal.",
            )
        if not workspace.research_enabled:
            raise ResearchDisabled(
                f"Research is not enabled for workspace {workspace_id}",
                "an operator can enable it with `sosoapi workspaces enable-research`.",
            )
        return Access(principal, workspace, role)
