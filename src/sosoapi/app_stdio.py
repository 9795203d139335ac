"""The composition root of `sosoapi mcp`: the MCP server over stdio on the running
`Application` (application.py).

Apart from app.py so that the stdio server imports none of the HTTP app (FastAPI, the
API, the console, the OAuth pages): about half a second of CPU at every start, which an
MCP client that spawns its server pays each time. Only `cli/` imports this module.
"""

from __future__ import annotations

from sosoapi.application import Application
from sosoapi.config import Settings
from sosoapi.mcp.stdio import serve_stdio


async def stdio_main(settings: Settings) -> None:
    """`sosoapi mcp`: the MCP server over stdio, identity from SOSOAPI_TOKEN."""
    application = Application(settings)
    async with application.running():
        await serve_stdio(
            application.research,
            profile=settings.profile,
            output_schemas=settings.output_schemas,
            token=settings.token,
            database_url=settings.database_url,
        )
