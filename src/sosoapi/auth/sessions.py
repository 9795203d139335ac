"""Review-console sessions: a random secret in a cookie, stored only as its SHA-256 hash.

A session speaks for the token it was opened with, so revoking or expiring that token
ends the session too; the session's own expiry is never later than the token's.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sosoapi.auth.tokens import Principal, hash_token, principal_of, refusal
from sosoapi.store.records import SessionRecord, TokenRecord

SESSION_SECONDS = 8 * 3600


def new_session_secret() -> str:
    return secrets.token_urlsafe(32)


def session_hash(secret: str) -> str:
    return hash_token(secret)


def session_expiry(now: datetime, principal: Principal, seconds: float) -> datetime:
    """`seconds` from now, but never past the token's own expiry."""
    until = now + timedelta(seconds=seconds)
    return min(until, principal.expires_at) if principal.expires_at else until


def csrf_token(secret: str) -> str:
    """The sign-out form's token: derived from the session secret, useless without it."""
    return hashlib.sha256(f"sosoapi-console-csrf:{secret}".encode()).hexdigest()


def csrf_matches(secret: str, sent: str) -> bool:
    return hmac.compare_digest(csrf_token(secret), sent)


def session_principal(
    found: tuple[SessionRecord, TokenRecord] | None, now: datetime
) -> Principal | None:
    """The principal a stored session speaks for, or None when it ended or its token did."""
    if found is None:
        return None
    session, token = found
    if session.revoked_at is not None or session.expires_at <= now:
        return None
    return principal_of(token) if refusal(token, now) is None else None
