"""MCP over streamable HTTP at /mcp: the SDK's app behind our bearer gate and door, with
the SDK's authorization-server endpoints over our OAuth provider.

Layers, outermost first: `McpBearerGate` (401 naming what is wrong with the token; a
refused token's sessions are closed), `McpDoor` (the research scope, sessions per user),
`ClientSecretHasher` (client secrets compared as hashes), `ProgressStreams` (an SSE answer
for a call that asks for progress, JSON for everything else), the SDK's app.
The HTTP server (`api`) mounts this app beside its routes; the two never import each
other, the command that serves (`cli/servers.py`) puts them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from sosoapi.mcp.bearer import (
    McpBearerGate,
    StoreTokenVerifier,
    http_fixes,
    http_principal,
    http_token,
)
from sosoapi.mcp.door import McpDoor
from sosoapi.mcp.mount import McpHttp, resource_metadata_url
from sosoapi.mcp.server import build_server
from sosoapi.mcp.streaming import streaming
from sosoapi.research.service import ResearchService


@dataclass(frozen=True, slots=True)
class McpAuth:
    """The OAuth authorization server the SDK mounts beside /mcp (built by the web layer):
    its settings, its store-backed provider, and a wrapper for the SDK's OAuth routes."""

    settings: AuthSettings
    provider: Any
    wrap_routes: Callable[[ASGIApp], ASGIApp] = lambda app: app


@dataclass(frozen=True, slots=True)
class McpLimits:
    """How many /mcp sessions one user may hold, and how long an idle one lives."""

    sessions_per_user: int = 100
    session_idle_seconds: float = 600.0


# The HTTP server's BodyLimit is the body cap; the SDK's own check, which answers plain text
# to a declared length, is set past it so every refusal is that problem+json.
UNBOUNDED_BY_SDK = 1 << 62


def mcp_http(
    research: ResearchService,
    oauth: McpAuth,
    *,
    host: str,
    base: str,
    profile: str,
    output_schemas: bool,
    limits: McpLimits | None = None,
) -> McpHttp:
    """MCP at `{base}/mcp`; `base` is how clients reach us (behind a proxy, say)."""
    limits = limits or McpLimits()
    metadata_url = resource_metadata_url(base)
    server = build_server(
        research,
        transport="http",
        profile=profile,
        output_schemas=output_schemas,
        token_source=http_token,
        principal_source=http_principal,
        fixes=http_fixes(metadata_url),
    )
    verifier = StoreTokenVerifier(research)
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        # Host and Origin are checked for every route, /mcp included, by the HTTP server's
        # HostCheck (api/hosts.py), against the public URL and the operator's extra names;
        # the SDK's own check knew only the loopback names.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        json_response=True,
        max_request_body_size=UNBOUNDED_BY_SDK,
        session_idle_timeout=limits.session_idle_seconds,
        auth=oauth.settings,
        token_verifier=verifier,
        auth_server_provider=oauth.provider,
    )
    door = McpDoor(
        oauth.wrap_routes(streaming(app, server.session_manager)),
        verifier,
        server.session_manager,
        resource_metadata=metadata_url,
        max_per_user=limits.sessions_per_user,
    )
    gated = McpBearerGate(
        door, research, f"{base}/mcp", metadata_url, on_refused=door.close_token_sessions
    )

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return McpHttp(gated, running(), metadata_url)
