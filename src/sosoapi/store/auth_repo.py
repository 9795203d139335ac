"""Workspaces, users, memberships and hashed tokens."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update

from sosoapi.store.database import Database
from sosoapi.store.records import ApproverState, TokenRecord, WorkspaceRecord, from_row, utc
from sosoapi.store.tables import memberships, tokens, users, workspaces


def token_record(row: object) -> TokenRecord:
    m = row._mapping  # type: ignore[attr-defined]
    return TokenRecord(
        id=m["id"],
        user_id=m["user_id"],
        label=m["label"],
        scopes=frozenset(m["scopes"].split()),
        created_at=utc(m["created_at"]),
        expires_at=utc(m["expires_at"]),
        revoked_at=utc(m["revoked_at"]),
        kind=m["kind"],
        client_id=m["client_id"],
        resource=m["resource"],
        grant_id=m["grant_id"],
        approved_by=m["approved_by"],
        approver=_approver(m) if m["approved_by"] else None,
        last_used_at=utc(m["last_used_at"]),
    )


def _approver(m: Any) -> ApproverState | None:
    """The approving token's columns, when the query joined them (token_by_hash does)."""
    if "approver_id" not in m:
        return None
    return ApproverState(
        found=m["approver_id"] is not None,
        expires_at=utc(m["approver_expires_at"]),
        revoked_at=utc(m["approver_revoked_at"]),
    )


# The reads every call makes, built once (Database.prepared says why).
_APPROVER = tokens.alias("approver")
# The token and, for an OAuth token, the personal token that approved its grant: one read.
_TOKEN_BY_HASH = (
    select(
        tokens,
        _APPROVER.c.id.label("approver_id"),
        _APPROVER.c.expires_at.label("approver_expires_at"),
        _APPROVER.c.revoked_at.label("approver_revoked_at"),
    )
    .select_from(tokens.outerjoin(_APPROVER, _APPROVER.c.id == tokens.c.approved_by))
    .where(tokens.c.token_hash == bindparam("token_hash"))
)
_MEMBERSHIP = (
    select(workspaces, memberships.c.role)
    .join(memberships, memberships.c.workspace_id == workspaces.c.id)
    .where(
        memberships.c.workspace_id == bindparam("workspace_id"),
        memberships.c.user_id == bindparam("user_id"),
    )
)


class AuthRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create_workspace(
        self, name: str, now: datetime, *, research_enabled: bool = True, is_local: bool = False
    ) -> WorkspaceRecord:
        record = WorkspaceRecord(str(uuid.uuid4()), name, research_enabled, is_local, now)
        with self.db.write() as conn:
            conn.execute(workspaces.insert().values(**_ws(record)))
        return record

    def workspace(self, workspace_id: str) -> WorkspaceRecord | None:
        with self.db.read() as conn:
            row = conn.execute(select(workspaces).where(workspaces.c.id == workspace_id)).first()
        return from_row(WorkspaceRecord, row) if row else None

    def local_workspace(self) -> WorkspaceRecord | None:
        query = (
            select(workspaces)
            .where(workspaces.c.is_local.is_(True))
            .order_by(workspaces.c.created_at)
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return from_row(WorkspaceRecord, row) if row else None

    def list_workspaces(self) -> list[WorkspaceRecord]:
        with self.db.read() as conn:
            rows = conn.execute(select(workspaces).order_by(workspaces.c.created_at)).all()
        return [from_row(WorkspaceRecord, r) for r in rows]

    def set_research_enabled(self, workspace_id: str, enabled: bool) -> bool:
        with self.db.write() as conn:
            result = conn.execute(
                update(workspaces)
                .where(workspaces.c.id == workspace_id)
                .values(research_enabled=enabled)
            )
        return result.rowcount == 1

    def create_user(self, name: str, now: datetime) -> str:
        user_id = str(uuid.uuid4())
        with self.db.write() as conn:
            conn.execute(users.insert().values(id=user_id, name=name, created_at=now))
        return user_id

    def user_name(self, user_id: str) -> str | None:
        with self.db.read() as conn:
            return conn.execute(select(users.c.name).where(users.c.id == user_id)).scalar()

    def set_role(self, workspace_id: str, user_id: str, role: str, now: datetime) -> None:
        with self.db.write() as conn:
            stmt = self.db.insert(memberships).values(
                workspace_id=workspace_id, user_id=user_id, role=role, created_at=now
            )
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=["workspace_id", "user_id"], set_={"role": role}
                )
            )

    def membership(self, workspace_id: str, user_id: str) -> tuple[WorkspaceRecord, str] | None:
        """The workspace and the user's role in it, or None when not a member."""
        with self.db.read() as conn:
            row = conn.execute(
                _MEMBERSHIP, {"workspace_id": workspace_id, "user_id": user_id}
            ).first()
        return (from_row(WorkspaceRecord, row), row._mapping["role"]) if row else None

    def members(self, workspace_id: str) -> list[tuple[str, str]]:
        """(user_id, role) of every member, oldest first."""
        query = (
            select(memberships.c.user_id, memberships.c.role)
            .where(memberships.c.workspace_id == workspace_id)
            .order_by(memberships.c.created_at)
        )
        with self.db.read() as conn:
            return [(r.user_id, r.role) for r in conn.execute(query)]

    def memberships_of(self, user_id: str) -> list[tuple[WorkspaceRecord, str]]:
        query = (
            select(workspaces, memberships.c.role)
            .join(memberships, memberships.c.workspace_id == workspaces.c.id)
            .where(memberships.c.user_id == user_id)
            .order_by(workspaces.c.created_at)
        )
        with self.db.read() as conn:
            rows = conn.execute(query).all()
        return [(from_row(WorkspaceRecord, r), r._mapping["role"]) for r in rows]

    def create_token(
        self,
        user_id: str,
        token_hash: str,
        scopes: frozenset[str],
        label: str,
        now: datetime,
        expires_at: datetime | None,
    ) -> TokenRecord:
        record = TokenRecord(str(uuid.uuid4()), user_id, label, scopes, now, expires_at, None)
        with self.db.write() as conn:
            conn.execute(
                tokens.insert().values(
                    id=record.id,
                    user_id=user_id,
                    token_hash=token_hash,
                    label=label,
                    scopes=" ".join(sorted(scopes)),
                    created_at=now,
                    expires_at=expires_at,
                    revoked_at=None,
                )
            )
        return record

    def token_by_id(self, token_id: str) -> TokenRecord | None:
        with self.db.read() as conn:
            row = conn.execute(select(tokens).where(tokens.c.id == token_id)).first()
        return token_record(row) if row else None

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        with self.db.read() as conn:
            row = conn.execute(_TOKEN_BY_HASH, {"token_hash": token_hash}).first()
        return token_record(row) if row else None

    def touch_token(self, token_id: str, now: datetime) -> None:
        """Record that the token was used at `now` (the guard calls it once a minute)."""
        with self.db.write() as conn:
            conn.execute(update(tokens).where(tokens.c.id == token_id).values(last_used_at=now))

    def list_tokens(self) -> list[TokenRecord]:
        with self.db.read() as conn:
            rows = conn.execute(select(tokens).order_by(tokens.c.created_at)).all()
        return [token_record(r) for r in rows]

    def revoke_token(self, token_id: str, now: datetime) -> bool:
        """Revoke a token; an OAuth token takes the rest of its grant (access and refresh),
        a personal token every OAuth token its approval issued."""
        with self.db.write() as conn:
            grant = conn.execute(select(tokens.c.grant_id).where(tokens.c.id == token_id)).scalar()
            result = conn.execute(
                update(tokens)
                .where(tokens.c.id == token_id, tokens.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            if grant is not None:
                conn.execute(
                    update(tokens)
                    .where(tokens.c.grant_id == grant, tokens.c.revoked_at.is_(None))
                    .values(revoked_at=now)
                )
            conn.execute(
                update(tokens)
                .where(tokens.c.approved_by == token_id, tokens.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return result.rowcount == 1


def _ws(record: WorkspaceRecord) -> dict[str, object]:
    return {
        "id": record.id,
        "name": record.name,
        "research_enabled": record.research_enabled,
        "is_local": record.is_local,
        "created_at": record.created_at,
    }
