"""The one permission check every operation goes through, in the order of SPEC section 3.

authentication -> scope -> role in the workspace -> resource access -> feature permission.
A caller who is not a member learns nothing: "not found", never "forbidden".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

from sosoapi.auth.tokens import RESEARCH_SCOPE, Principal, hash_token, principal_of, refusal
from sosoapi.contract.errors import forbidden, not_found, unauthenticated
from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.records import WorkspaceRecord

Action = Literal["read", "write"]
ROLES: dict[str, frozenset[Action]] = {
    "viewer": frozenset({"read"}),
    "editor": frozenset({"read", "write"}),
    "owner": frozenset({"read", "write"}),
}
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Access:
    """What a passed check grants: the caller, its workspace and role."""

    principal: Principal
    workspace: WorkspaceRecord
    role: str


class Guard:
    """Authenticates bearer tokens and authorises calls against the auth repository."""

    def __init__(self, repo: AuthRepository) -> None:
        self.repo = repo

    def authenticate(self, token: str | None, now: datetime) -> Principal:
        if not token:
            raise unauthenticated(
                "No bearer token was sent; send `Authorization: Bearer <token>` "
                "(stdio: set SOSOAPI_TOKEN). Mint one with `sosoapi tokens create`."
            )
        record = self.repo.token_by_hash(hash_token(token))
        reason = refusal(record, now)
        if reason == "unknown" or record is None:
            raise unauthenticated(
                "The bearer token is unknown to this server; check it was copied whole, or "
                "mint a new one with `sosoapi tokens create` (OAuth clients: sign in again)."
            )
        if reason is not None:
            when = record.revoked_at if reason == "revoked" else record.expires_at
            raise unauthenticated(
                f"The bearer token was {reason} at {when.isoformat() if when else '?'}; mint a "
                "new one with `sosoapi tokens create` (OAuth clients: refresh or sign in again)."
            )
        return principal_of(record)

    def check(
        self,
        principal: Principal,
        workspace_id: str,
        action: Action,
        resource: Callable[[], T | None] | None = None,
        *,
        scope: str = RESEARCH_SCOPE,
        what: str = "resource",
    ) -> tuple[Access, T | None]:
        """Authorise `action` in `workspace_id`; load `resource` inside that workspace."""
        if scope not in principal.scopes:
            raise forbidden(
                f"The token lacks the `{scope}` scope; mint a token with "
                f"`sosoapi tokens create --scope {scope}`."
            )
        member = self.repo.membership(workspace_id, principal.user_id)
        if member is None:
            raise not_found(
                f"workspace_id {workspace_id} was not found for this caller; use a workspace "
                "you are a member of (`sosoapi_whoami` lists them)."
            )
        workspace, role = member
        if action not in ROLES.get(role, frozenset()):
            raise forbidden(
                f"Your role `{role}` in workspace {workspace_id} may only read; ask an owner "
                "for the `editor` role to retrieve or seal."
            )
        loaded = resource() if resource is not None else None
        if resource is not None and loaded is None:
            raise not_found(f"The {what} was not found in workspace {workspace_id}; check the id.")
        if not workspace.research_enabled:
            raise forbidden(
                f"Research is not enabled for workspace {workspace_id}; an operator can enable "
                "it with `sosoapi workspaces enable-research`."
            )
        return Access(principal, workspace, role), loaded
