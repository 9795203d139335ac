"""The door of /mcp: the research scope, a session cap per user, revoked tokens' sessions.

The SDK admits any valid token and caps sessions only process-wide, so one token could
hold every session. In front of it:
- a token without `agent:research` gets 403 `insufficient_scope` with the
  `WWW-Authenticate` challenge of the MCP authorization specification;
- each user holds at most `max_per_user` sessions: opening one more evicts that user's
  oldest idle session (one with no request in flight), or is refused 429 when all are busy;
- a token that no longer verifies (revoked, expired) has the sessions it opened closed
  (`close_token_sessions`, called by the bearer gate in front, which answers it 401).
The token is verified once per request: the gate's result is reused by the verifier.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sosoapi.auth.challenge import bearer_token
from sosoapi.auth.tokens import RESEARCH_SCOPE, hash_token

log = logging.getLogger("sosoapi.mcp")
SESSION_HEADER = b"mcp-session-id"


class Verifier(Protocol):
    async def verify_token(self, token: str) -> AccessToken | None: ...


@dataclass
class _Session:
    user_id: str
    token_digest: str
    last_used: float = field(default_factory=time.monotonic)
    in_flight: int = 0


class _SdkSessions:
    """The SDK manager's live sessions. Its public API cannot list or close one session,
    so this adapter is the one place that reads its registry."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    def alive(self, session_id: str) -> bool:
        return session_id in self.manager._server_instances

    async def close(self, session_id: str) -> None:
        transport = self.manager._server_instances.get(session_id)
        if transport is not None:
            await self.manager._discard_session(session_id, transport)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _bearer(scope: Scope) -> str | None:
    return bearer_token(_header(scope, b"authorization"))


class McpDoor:
    """ASGI wrapper of the SDK's app; only requests to `path` are judged."""

    def __init__(
        self,
        app: ASGIApp,
        verifier: Verifier,
        manager: StreamableHTTPSessionManager,
        *,
        resource_metadata: str,
        max_per_user: int,
        path: str = "/mcp",
    ) -> None:
        self.app = app
        self.verifier = verifier
        self.sdk = _SdkSessions(manager)
        self.resource_metadata = resource_metadata
        self.max_per_user = max_per_user
        self.path = path
        self.sessions: dict[str, _Session] = {}
        self.opening: dict[str, int] = {}  # opening requests in flight, per user

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        access = await self.verifier.verify_token(token) if token else None
        if token and access is None:
            await self.close_token_sessions(token)
        if access is None:  # the SDK answers 401 with its challenge
            await self.app(scope, receive, send)
            return
        if RESEARCH_SCOPE not in access.scopes:
            await self._insufficient_scope(send)
            return
        session_id = _header(scope, SESSION_HEADER)
        if session_id is None and scope.get("method") == "POST":
            await self._open(scope, receive, send, access.client_id, hash_token(token or ""))
            return
        await self._use(session_id, scope, receive, send)

    async def _use(
        self, session_id: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        session = self.sessions.get(session_id or "")
        if session is None:
            await self.app(scope, receive, send)
            return
        session.in_flight += 1
        session.last_used = time.monotonic()
        try:
            await self.app(scope, receive, send)
        finally:
            session.in_flight -= 1
            session.last_used = time.monotonic()

    async def _open(
        self, scope: Scope, receive: Receive, send: Send, user_id: str, digest: str
    ) -> None:
        """Pass an opening request through and remember the session it opens, if any."""
        room, evicted = self._make_room(user_id)
        if not room:
            await self._too_many_sessions(send)
            return
        self.opening[user_id] = self.opening.get(user_id, 0) + 1
        if evicted is not None:
            await self.sdk.close(evicted)
            log.info("mcp session evicted user=%s reason=per_user_cap", user_id)

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = dict(message.get("headers", ())).get(SESSION_HEADER)
                if opened:
                    self.sessions[opened.decode("latin-1")] = _Session(user_id, digest)
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.opening[user_id] -= 1
            if not self.opening[user_id]:
                del self.opening[user_id]

    def _live_sessions_of(self, user_id: str) -> list[tuple[str, _Session]]:
        for session_id in [s for s in self.sessions if not self.sdk.alive(s)]:
            del self.sessions[session_id]
        return [(sid, s) for sid, s in self.sessions.items() if s.user_id == user_id]

    def _make_room(self, user_id: str) -> tuple[bool, str | None]:
        """(may open, session to close first): at the cap, the user's oldest idle session
        goes. Synchronous, so concurrent opening requests are counted exactly."""
        live = self._live_sessions_of(user_id)
        if len(live) + self.opening.get(user_id, 0) < self.max_per_user:
            return True, None
        idle = sorted((s.last_used, sid) for sid, s in live if not s.in_flight)
        if not idle:
            return False, None
        evicted = idle[0][1]
        del self.sessions[evicted]
        return True, evicted

    async def close_token_sessions(self, token: str) -> None:
        """Close every session that `token` opened (it no longer verifies)."""
        digest = hash_token(token)
        closing = [sid for sid, s in self.sessions.items() if s.token_digest == digest]
        for session_id in closing:
            self.sessions.pop(session_id, None)
            await self.sdk.close(session_id)
        if closing:
            log.info("mcp sessions closed count=%d reason=token_not_valid", len(closing))

    async def _insufficient_scope(self, send: Send) -> None:
        description = f"This server's tools need the {RESEARCH_SCOPE} scope"
        challenge = (
            f'Bearer error="insufficient_scope", scope="{RESEARCH_SCOPE}", '
            f'resource_metadata="{self.resource_metadata}", error_description="{description}"'
        )
        body = {"error": "insufficient_scope", "error_description": description + "."}
        await _send_json(send, 403, body, {"www-authenticate": challenge})

    async def _too_many_sessions(self, send: Send) -> None:
        message = (
            f"This user already has {self.max_per_user} MCP sessions with requests in flight "
            "(SOSOAPI_MCP_SESSIONS_PER_USER); end one with DELETE /mcp or retry shortly."
        )
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}
        await _send_json(send, 429, body, {"retry-after": "5"})


async def _send_json(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str]
) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})
