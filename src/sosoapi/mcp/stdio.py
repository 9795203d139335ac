"""MCP over stdio: identity from SOSOAPI_TOKEN, checked again on every call."""

from __future__ import annotations

import logging

from mcp.server.stdio import stdio_server
from sqlalchemy.engine import make_url

from sosoapi.mcp.server import build_server
from sosoapi.research.service import ResearchService

log = logging.getLogger("sosoapi.mcp")


def database_hint(url: str) -> str:
    """Which database this server opened: a client that starts us without SOSOAPI_HOME
    gets the default one, where its token is unknown."""
    shown = make_url(url).render_as_string(hide_password=True)
    return (
        f"This server opened the database {shown}; if the token was minted elsewhere, set "
        "SOSOAPI_HOME (or SOSOAPI_DATABASE_URL) in the client's `env` to that one "
        "(`sosoapi connect` prints a block that does)."
    )


async def serve_stdio(
    research: ResearchService,
    *,
    profile: str,
    output_schemas: bool,
    token: str | None,
    database_url: str,
) -> None:
    """Serve MCP on this process's stdin and stdout until the client closes them."""
    if not token:
        log.warning("SOSOAPI_TOKEN is not set: every tool call will be refused until it is")
    server = build_server(
        research,
        transport="stdio",
        profile=profile,
        output_schemas=output_schemas,
        token_source=lambda: token,
        unauthenticated_hint=database_hint(database_url),
    )
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
