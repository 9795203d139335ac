"""MCP over streamable HTTP at /mcp: the SDK's app behind our bearer check.

The HTTP server (`api`) mounts this app beside its routes; the two never import each
other, the command that serves (`cli/servers.py`) puts them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from starlette.types import ASGIApp

from sosoapi.contract.errors import ServiceError
from sosoapi.mcp.server import build_server
from sosoapi.research.service import ResearchService


class StoreTokenVerifier:
    """The SDK's bearer check for /mcp, backed by our token store."""

    def __init__(self, research: ResearchService) -> None:
        self.research = research

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            principal = await self.research.authenticate(token)
        except ServiceError:
            return None
        expires = int(principal.expires_at.timestamp()) if principal.expires_at else None
        return AccessToken(
            token=token,
            client_id=principal.user_id,
            scopes=sorted(principal.scopes),
            expires_at=expires,
        )


def http_token() -> str | None:
    access = get_access_token()
    return access.token if access else None


@dataclass(frozen=True, slots=True)
class McpHttp:
    """The /mcp app, the context that runs its sessions, and its auth metadata URL."""

    app: ASGIApp
    running: AbstractAsyncContextManager[None]
    metadata_url: str


def mcp_http(
    research: ResearchService, *, host: str, base: str, profile: str, output_schemas: bool
) -> McpHttp:
    """MCP at `{base}/mcp`; `base` is how clients reach us (behind a proxy, say)."""
    server = build_server(
        research,
        transport="http",
        profile=profile,
        output_schemas=output_schemas,
        token_source=http_token,
    )
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        json_response=True,
        auth=AuthSettings(issuer_url=base, resource_server_url=f"{base}/mcp", required_scopes=[]),
        token_verifier=StoreTokenVerifier(research),
    )

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return McpHttp(app, running(), f"{base}/.well-known/oauth-protected-resource/mcp")
