"""MCP over streamable HTTP at /mcp: the SDK's app behind our bearer gate, with the SDK's
authorization-server endpoints over our OAuth provider.

The HTTP server (`api`) mounts this app beside its routes; the two never import each
other, the command that serves (`cli/servers.py`) puts them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from starlette.types import ASGIApp

from sosoapi.mcp.bearer import McpBearerGate, StoreTokenVerifier, http_token
from sosoapi.mcp.server import build_server
from sosoapi.research.service import ResearchService
from sosoapi.web.client_secrets import ClientSecretHasher
from sosoapi.web.oauth import OAuthServer


@dataclass(frozen=True, slots=True)
class McpHttp:
    """The /mcp app, the context that runs its sessions, and its auth metadata URL."""

    app: ASGIApp
    running: AbstractAsyncContextManager[None]
    metadata_url: str


def mcp_http(
    research: ResearchService,
    oauth: OAuthServer,
    *,
    host: str,
    base: str,
    profile: str,
    output_schemas: bool,
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
        auth=oauth.settings,
        token_verifier=StoreTokenVerifier(research),
        auth_server_provider=oauth.provider,
    )
    metadata_url = f"{base}/.well-known/oauth-protected-resource/mcp"
    gated = McpBearerGate(ClientSecretHasher(app), research, f"{base}/mcp", metadata_url)

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return McpHttp(gated, running(), metadata_url)
