"""Administration: workspaces, users, roles and token minting (the CLI's verbs)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sosoapi.auth.permission import ROLES
from sosoapi.auth.tokens import KNOWN_SCOPES, RESEARCH_SCOPE, hash_token, new_token
from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.records import TokenRecord, WorkspaceRecord

LOCAL_WORKSPACE = "local"
LOCAL_OWNER = "local-owner"


@dataclass(frozen=True, slots=True)
class MintedToken:
    """A token as shown once: the secret and its stored record."""

    token: str
    record: TokenRecord


class Admin:
    def __init__(self, repo: AuthRepository) -> None:
        self.repo = repo

    def mint(
        self,
        user_id: str,
        now: datetime,
        *,
        scopes: frozenset[str] = frozenset({RESEARCH_SCOPE}),
        label: str = "",
        expires_in: float | None = None,
    ) -> MintedToken:
        unknown = scopes - KNOWN_SCOPES
        if unknown:
            raise ValueError(
                f"--scope {', '.join(sorted(unknown))} is unknown; use one of "
                f"{', '.join(sorted(KNOWN_SCOPES))}"
            )
        token = new_token()
        expires_at = now + timedelta(seconds=expires_in) if expires_in else None
        record = self.repo.create_token(user_id, hash_token(token), scopes, label, now, expires_at)
        return MintedToken(token, record)

    def add_member(self, workspace_id: str, user_id: str, role: str, now: datetime) -> None:
        if role not in ROLES:
            raise ValueError(f"--role {role!r} is unknown; use one of {', '.join(ROLES)}")
        if self.repo.workspace(workspace_id) is None:
            raise ValueError(
                f"workspace {workspace_id} does not exist; see `sosoapi workspaces list`"
            )
        self.repo.set_role(workspace_id, user_id, role, now)

    def create_member(self, workspace_id: str, name: str, role: str, now: datetime) -> str:
        """A new user with `role` in the workspace; returns the user id."""
        if self.repo.workspace(workspace_id) is None:
            raise ValueError(
                f"workspace {workspace_id} does not exist; see `sosoapi workspaces list`"
            )
        user_id = self.repo.create_user(name, now)
        self.add_member(workspace_id, user_id, role, now)
        return user_id

    def init_local(
        self, now: datetime, label: str = "sosoapi init"
    ) -> tuple[WorkspaceRecord, MintedToken]:
        """The local workspace (created once) and a new owner token (every run)."""
        workspace = self.repo.local_workspace()
        if workspace is None:
            workspace = self.repo.create_workspace(LOCAL_WORKSPACE, now, is_local=True)
        owner = next(
            (user_id for user_id, role in self._members(workspace.id) if role == "owner"),
            None,
        )
        if owner is None:
            owner = self.create_member(workspace.id, LOCAL_OWNER, "owner", now)
        return workspace, self.mint(owner, now, label=label)

    def _members(self, workspace_id: str) -> list[tuple[str, str]]:
        return self.repo.members(workspace_id)
