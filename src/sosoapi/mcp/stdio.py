"""MCP over stdio: identity from SOSOAPI_TOKEN, checked again on every call."""

from __future__ import annotations

import logging

from mcp.server.stdio import stdio_server

from sosoapi.app import Application
from sosoapi.mcp.server import build_server

log = logging.getLogger("sosoapi.mcp")


async def serve_stdio(application: Application, profile: str) -> None:
    settings = application.settings
    if not settings.token:
        log.warning("SOSOAPI_TOKEN is not set: every tool call will be refused until it is")
    server = build_server(
        application.research,
        transport="stdio",
        profile=profile,
        output_schemas=settings.output_schemas,
        token_source=lambda: settings.token,
    )
    async with application.running(), stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
