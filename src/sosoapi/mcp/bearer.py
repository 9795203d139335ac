"""Bearer authentication of /mcp with a reason: missing, unknown, expired, revoked, elsewhere.

The SDK's own check answers every failure with "Authentication required". This gate runs
first, answers 401 with `error_description` saying what was wrong with the token (the
same sentence the REST API puts in its problem `detail`), and hands the principal it
found to the SDK's verifier so a request is looked up once.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Awaitable, Callable

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from sosoapi.auth.challenge import bearer_challenge, bearer_token
from sosoapi.auth.errors import BadToken, Fixes, NoToken
from sosoapi.auth.tokens import Principal, audience_refusal
from sosoapi.contract.errors import ErrorCode, ServiceError, unauthenticated
from sosoapi.mcp.outage import RecentTokens, send_unavailable
from sosoapi.research.service import ResearchService

# (token, principal, fresh): fresh when the store confirmed the token for this request,
# not when an outage let a recently seen token through.
_verified: contextvars.ContextVar[tuple[str, Principal, bool] | None] = contextvars.ContextVar(
    "sosoapi_verified_bearer", default=None
)


def http_fixes(metadata_url: str) -> Fixes:
    """An HTTP client fixes its token in the request (a header) or by signing in with OAuth,
    never in a server's environment: the fix names both, and where sign-in starts."""
    oauth = f"or sign in with OAuth (protected-resource metadata: {metadata_url})"
    return {
        NoToken: f"send `Authorization: Bearer <token>` with each request (`sosoapi tokens "
        f"create` mints one), {oauth}.",
        BadToken: f"send a current token as `Authorization: Bearer <token>` (`sosoapi tokens "
        f"create` mints one), {oauth}.",
    }


def access_token(token: str, principal: Principal) -> AccessToken:
    expires = int(principal.expires_at.timestamp()) if principal.expires_at else None
    return AccessToken(
        token=token,
        client_id=principal.user_id,
        scopes=sorted(principal.scopes),
        expires_at=expires,
        resource=principal.resource,
        subject=principal.user_id,
    )


class StoreTokenVerifier:
    """The SDK's bearer check for /mcp, backed by our token store."""

    def __init__(self, research: ResearchService) -> None:
        self.research = research

    async def verify_token(self, token: str) -> AccessToken | None:
        seen = _verified.get()
        if seen is not None and seen[0] == token:
            return access_token(token, seen[1])
        try:
            principal = await self.research.authenticate(token)
        except ServiceError:
            return None
        return access_token(token, principal)


def http_token() -> str | None:
    """The bearer token of the MCP request being handled (set by the SDK's middleware)."""
    access = get_access_token()
    return access.token if access else None


def http_principal() -> Principal | None:
    """The principal the gate confirmed with the store for this request's token, so the
    tool call does not look the token up a second time (None during an outage)."""
    seen = _verified.get()
    token = http_token()
    if seen is None or not seen[2] or token is None or seen[0] != token:
        return None
    return seen[1]


class McpBearerGate:
    """ASGI middleware: refuse /mcp requests whose bearer token does not authenticate here."""

    def __init__(
        self,
        app: ASGIApp,
        research: ResearchService,
        resource: str,
        metadata_url: str,
        *,
        on_refused: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.app = app
        self.research = research
        self.resource = resource
        self.metadata_url = metadata_url
        self.on_refused = on_refused  # told of a refused token, so its sessions can close
        self.recent = RecentTokens()
        self.fixes = http_fixes(metadata_url)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        token = bearer_token(Headers(scope=scope).get("authorization"))
        fresh = True
        try:
            principal = await self.research.authenticate(token, self.fixes)
            refusal = audience_refusal(principal, self.resource)
            if refusal:
                raise unauthenticated(refusal)
        except ServiceError as error:
            if error.code == ErrorCode.UNAVAILABLE:  # the store's outage, not the token's fault
                remembered = self.recent.during_outage(token)
                if remembered is None:
                    await send_unavailable(send, error, scope["path"])
                    return
                principal, fresh = remembered, False
            else:
                if token and self.on_refused is not None:
                    await self.on_refused(token)
                await self._refuse(send, error.message)
                return
        else:
            self.recent.remember(token or "", principal)
        marker = _verified.set((token or "", principal, fresh))
        try:
            await self.app(scope, receive, send)
        finally:
            _verified.reset(marker)

    async def _refuse(self, send: Send, description: str) -> None:
        body = json.dumps({"error": "invalid_token", "error_description": description}).encode()
        challenge = f'{bearer_challenge(description)}, resource_metadata="{self.metadata_url}"'
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
