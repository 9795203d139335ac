"""Bearer tokens: 256 random bits, shown once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sosoapi.store.records import TokenRecord

TOKEN_PREFIX = "sosoapi_"  # noqa: S105 - a public prefix, not a secret
RESEARCH_SCOPE = "agent:research"
KNOWN_SCOPES = frozenset({RESEARCH_SCOPE})
BEARER_KINDS = frozenset({"personal", "oauth_access"})  # a refresh token never authenticates


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller: the token that spoke and the user behind it."""

    token_id: str
    user_id: str
    scopes: frozenset[str]
    expires_at: datetime | None
    kind: str = "personal"
    resource: str | None = None  # an OAuth token's resource indicator (its audience)
    grant_id: str | None = None  # an OAuth token's grant, which outlives its rotations

    @property
    def holder(self) -> str:
        """Who keeps what this caller starts (an MCP task): the OAuth grant, whose access
        tokens rotate, or else the personal token itself."""
        return f"grant:{self.grant_id}" if self.grant_id else f"token:{self.token_id}"


def refusal(record: TokenRecord | None, now: datetime) -> str | None:
    """Why a stored token does not authenticate (unknown, revoked, expired), or None."""
    if record is None or record.kind not in BEARER_KINDS:
        return "unknown"
    return lapsed(record, now)


def lapsed(record: TokenRecord, now: datetime) -> str | None:
    """Revoked or expired, itself or (an OAuth token) the personal token that approved it.

    A grant never outlives the approval: when that personal token is revoked or expires,
    every token of the grant stops working at once, access and refresh alike.
    """
    if record.revoked_at is not None:
        return "revoked"
    if record.expires_at is not None and record.expires_at <= now:
        return "expired"
    return approver_lapsed(record, now)


def approver_lapsed(record: TokenRecord, now: datetime) -> str | None:
    approver = record.approver
    if record.approved_by is None or approver is None:
        return None
    if not approver.found or approver.revoked_at is not None:
        return "revoked"
    if approver.expires_at is not None and approver.expires_at <= now:
        return "expired"
    return None


def lapsed_at(record: TokenRecord, reason: str, now: datetime) -> datetime | None:
    """When the token (or the approval it rests on) was revoked or expired."""
    if reason == "revoked" and record.revoked_at is not None:
        return record.revoked_at
    if reason == "expired" and record.expires_at is not None and record.expires_at <= now:
        return record.expires_at
    approver = record.approver
    if approver is None:
        return None
    return approver.revoked_at if reason == "revoked" else approver.expires_at


def principal_of(record: TokenRecord) -> Principal:
    return Principal(
        record.id,
        record.user_id,
        record.scopes,
        record.expires_at,
        record.kind,
        record.resource,
        record.grant_id,
    )


def same_resource(a: str, b: str) -> bool:
    """Resource indicators compare as URLs, a trailing slash aside."""
    return a.rstrip("/").lower() == b.rstrip("/").lower()


def audience_refusal(principal: Principal, resource: str) -> str | None:
    """Why an OAuth token may not be used at `resource` (it was issued for another)."""
    if principal.resource is None or same_resource(principal.resource, resource):
        return None
    return (
        f"The bearer token was issued for {principal.resource}, not {resource}; sign in again "
        f"with resource {resource}."
    )
