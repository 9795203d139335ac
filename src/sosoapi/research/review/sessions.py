"""Console sessions: a person signs in with a token and gets a server-side session.

The session is stored hashed and speaks for the token that opened it, never longer than
that token lives (`auth.sessions.session_expiry`); signing in is the tools' own
authentication, so a token the tools refuse opens nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import anyio

from sosoapi.auth.errors import Fixes
from sosoapi.auth.sessions import (
    SESSION_SECONDS,
    new_session_secret,
    session_expiry,
    session_hash,
    session_principal,
)
from sosoapi.auth.tokens import Principal
from sosoapi.clock import utcnow
from sosoapi.contract.errors import unauthenticated
from sosoapi.research.service import ResearchService


@dataclass(frozen=True, slots=True)
class OpenedSession:
    secret: str
    expires_at: datetime


class ConsoleSessions:
    def __init__(
        self,
        research: ResearchService,
        *,
        session_seconds: float = SESSION_SECONDS,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.research = research
        self.sessions = research.store.sessions
        self.session_seconds = session_seconds
        self.clock = clock

    async def sign_in(self, token: str | None, fixes: Fixes | None = None) -> OpenedSession:
        """The tools' own authentication, then a new session for that token."""
        principal = await self.research.authenticate(token, fixes)
        secret, now = new_session_secret(), self.clock()
        until = session_expiry(now, principal, self.session_seconds)
        await anyio.to_thread.run_sync(
            self.sessions.create, session_hash(secret), principal.token_id, now, until
        )
        return OpenedSession(secret, until)

    async def principal(self, secret: str | None) -> Principal:
        """Who a session cookie speaks for, or `unauthenticated` once it has ended."""
        found = None
        if secret:
            found = await anyio.to_thread.run_sync(self.sessions.by_hash, session_hash(secret))
        principal = session_principal(found, self.clock())
        if principal is None:
            raise unauthenticated("Your console session ended; sign in again with a token.")
        return principal

    async def sign_out(self, secret: str) -> bool:
        return await anyio.to_thread.run_sync(
            self.sessions.revoke, session_hash(secret), self.clock()
        )
