"""Administration: workspaces, users, roles and token minting (the CLI's verbs)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sosoapi.auth.errors import NoSuchWorkspace, UnknownRole, UnknownScope
from sosoapi.auth.permission import ROLES
from sosoapi.auth.tokens import KNOWN_SCOPES, RESEARCH_SCOPE, hash_token, new_token
from sosoapi.store.auth_repo import AuthRepository
from sosoapi.store.oauth_repo import OAuthRepository
from sosoapi.store.records import TokenRecord, WorkspaceRecord

LOCAL_WORKSPACE = "local"
LOCAL_OWNER = "local-owner"
AGENT_ROLE = "editor"  # an MCP client reads, retrieves and seals; it never administers


@dataclass(frozen=True, slots=True)
class MintedToken:
    """A token as shown once: the secret and its stored record."""

    token: str
    record: TokenRecord


class Admin:
    """The operator's verbs; refusals are `AdminRefused`, worded by the CLI."""

    def __init__(self, repo: AuthRepository, oauth: OAuthRepository | None = None) -> None:
        self.repo = repo
        self.oauth = oauth

    def workspaces(self) -> list[WorkspaceRecord]:
        return self.repo.list_workspaces()

    def local_workspace(self) -> WorkspaceRecord | None:
        return self.repo.local_workspace()

    def create_workspace(self, name: str, now: datetime, *, research: bool) -> WorkspaceRecord:
        return self.repo.create_workspace(name, now, research_enabled=research)

    def set_research(self, workspace_id: str, enabled: bool) -> None:
        if not self.repo.set_research_enabled(workspace_id, enabled):
            raise NoSuchWorkspace(workspace_id)

    def tokens(self) -> list[TokenRecord]:
        return self.repo.list_tokens()

    def client_names(self) -> dict[str, str]:
        """OAuth client id -> the name it registered with (to show beside its tokens)."""
        return self.oauth.client_names() if self.oauth else {}

    def revoke(self, token_id: str, now: datetime) -> bool:
        """False when the token does not exist or is already revoked."""
        return self.repo.revoke_token(token_id, now)

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
            raise UnknownScope(sorted(unknown), sorted(KNOWN_SCOPES))
        token = new_token()
        expires_at = now + timedelta(seconds=expires_in) if expires_in else None
        record = self.repo.create_token(user_id, hash_token(token), scopes, label, now, expires_at)
        return MintedToken(token, record)

    def add_member(self, workspace_id: str, user_id: str, role: str, now: datetime) -> None:
        if role not in ROLES:
            raise UnknownRole(role, list(ROLES))
        if self.repo.workspace(workspace_id) is None:
            raise NoSuchWorkspace(workspace_id)
        self.repo.set_role(workspace_id, user_id, role, now)

    def create_member(self, workspace_id: str, name: str, role: str, now: datetime) -> str:
        """A new user with `role` in the workspace; returns the user id."""
        if self.repo.workspace(workspace_id) is None:
            raise NoSuchWorkspace(workspace_id)
        user_id = self.repo.create_user(name, now)
        self.add_member(workspace_id, user_id, role, now)
        return user_id

    def roles_of(self, user_id: str) -> list[tuple[str, str]]:
        """(workspace name, role) of every workspace the user is a member of."""
        return [(w.name, role) for w, role in self.repo.memberships_of(user_id)]

    def agent_token(
        self, client: str, now: datetime, *, expires_in: float | None
    ) -> tuple[MintedToken, list[str]]:
        """The token `sosoapi connect` hands one MCP client, and the ids it replaced.

        The client acts as its own user (`agent CLIENT`, an editor in the local
        workspace) with the `agent:research` scope alone. A token's secret is stored
        hashed, so an earlier one cannot be shown again: connecting a client again
        revokes its earlier tokens, leaving one live token per client.
        """
        workspace = self._local(now)
        name = f"agent {client}"
        user_id = next(
            (uid for uid, _ in self.repo.members(workspace.id) if self.repo.user_name(uid) == name),
            None,
        )
        if user_id is None:
            user_id = self.create_member(workspace.id, name, AGENT_ROLE, now)
        label = f"sosoapi connect {client}"
        replaced = [
            t.id
            for t in self.repo.list_tokens()
            if t.user_id == user_id and t.label == label and t.revoked_at is None
        ]
        for token_id in replaced:
            self.repo.revoke_token(token_id, now)
        return self.mint(user_id, now, label=label, expires_in=expires_in), replaced

    def _local(self, now: datetime) -> WorkspaceRecord:
        workspace = self.repo.local_workspace()
        if workspace is None:
            workspace = self.repo.create_workspace(LOCAL_WORKSPACE, now, is_local=True)
        return workspace

    def init_local(
        self, now: datetime, label: str = "sosoapi init"
    ) -> tuple[WorkspaceRecord, MintedToken]:
        """The local workspace (created once) and a new owner token (every run)."""
        workspace = self._local(now)
        owner = next(
            (user_id for user_id, role in self.repo.members(workspace.id) if role == "owner"),
            None,
        )
        if owner is None:
            owner = self.create_member(workspace.id, LOCAL_OWNER, "owner", now)
        return workspace, self.mint(owner, now, label=label)
