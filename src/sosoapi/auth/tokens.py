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


def principal_of(record: TokenRecord | None, now: datetime) -> Principal | None:
    """The principal of a stored token, or None when unknown, revoked or expired."""
    if record is None or record.revoked_at is not None:
        return None
    if record.expires_at is not None and record.expires_at <= now:
        return None
    return Principal(record.id, record.user_id, record.scopes, record.expires_at)
