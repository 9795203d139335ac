"""Running the servers, and creating the local workspace."""

from __future__ import annotations

import anyio
import click

from sosoapi.cli.common import admin_session, emit, main, now, settings_from_env
from sosoapi.config import PROFILES


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=int)
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
@click.option(
    "--public-url",
    default=None,
    help="the URL clients use to reach this server (names /mcp in the auth metadata); "
    "default: SOSOAPI_PUBLIC_URL",
)
def serve(host: str, port: int, profile: str | None, public_url: str | None) -> None:
    """Serve the HTTP API, MCP at /mcp and the review console at /console (health at /healthz)."""
    import uvicorn

    from sosoapi.api.http import create_http_app, public_base
    from sosoapi.app import Application
    from sosoapi.mcp.http import McpLimits, mcp_http
    from sosoapi.research.review import Review
    from sosoapi.web.console import add_console
    from sosoapi.web.oauth import oauth_server

    settings = settings_from_env(profile)
    application = Application(settings)
    base = public_base(host, port, public_url or settings.public_url)
    oauth = oauth_server(application.oauth, base)
    mcp = mcp_http(
        application.research,
        oauth,
        host=host,
        base=base,
        profile=settings.profile,
        output_schemas=settings.output_schemas,
        limits=McpLimits(settings.mcp_sessions_per_user, settings.mcp_session_idle_seconds),
    )
    app = create_http_app(
        application,
        mcp=mcp,
        host=host,
        port=port,
        profile=settings.profile,
        base=base,
        pages=oauth.routes,
    )
    add_console(app, Review(application.research), secure_cookie=base.startswith("https://"))
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")


@main.command("mcp")
@click.option(
    "--profile", type=click.Choice(PROFILES), default=None, help="default: SOSOAPI_PROFILE or full"
)
def mcp_command(profile: str | None) -> None:
    """Serve MCP over stdio; identity from SOSOAPI_TOKEN."""
    from sosoapi.app import Application
    from sosoapi.mcp.stdio import serve_stdio

    settings = settings_from_env(profile)
    anyio.run(serve_stdio, Application(settings), settings.profile)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="print {workspace_id, token} as JSON")
def init(as_json: bool) -> None:
    """Create the local workspace once and mint a new owner token (shown once)."""
    with admin_session() as admin:
        workspace, minted = admin.init_local(now())
    if as_json:
        emit({"workspace_id": workspace.id, "token": minted.token})
    else:
        click.echo(f"workspace_id: {workspace.id}\ntoken (shown once): {minted.token}")
