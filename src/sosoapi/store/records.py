"""Plain records the repositories return: rows with their UTC zone restored."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


def utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class WorkspaceRecord:
    id: str
    name: str
    research_enabled: bool
    is_local: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TokenRecord:
    id: str
    user_id: str
    label: str
    scopes: frozenset[str]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    kind: str = "personal"  # personal | oauth_access | oauth_refresh
    client_id: str | None = None
    resource: str | None = None
    grant_id: str | None = None


@dataclass(frozen=True, slots=True)
class MutationRecord:
    workspace_id: str
    mutation_id: str
    tool: str
    fingerprint: str
    arguments: str
    token_id: str | None
    result: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class RetrievalRecord:
    id: str
    workspace_id: str
    mutation_id: str
    kind: str
    url: str
    language: str | None
    state: str
    created_at: datetime
    settled_at: datetime | None
    valid_until: datetime
    lease_owner: str | None
    lease_expires_at: datetime | None
    result: str | None
    evidence_id: str | None
    evidence_revision: int | None
    source: str


def from_row(cls: type, row: Any) -> Any:
    """Build a record from a row, restoring UTC on every datetime column."""
    values = {k: (utc(v) if isinstance(v, datetime) else v) for k, v in row._mapping.items()}
    return cls(**{k: values[k] for k in cls.__slots__})  # type: ignore[attr-defined]
