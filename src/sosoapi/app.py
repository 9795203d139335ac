"""The composition root's HTTP surfaces: the HTTP app (API, MCP, OAuth, docs, console),
built on the running `Application` (application.py); the stdio server's root is
app_stdio.py, apart, so that `sosoapi mcp` imports none of this.

Nothing else builds a surface: `api/`, `mcp/`, `oauth/` and `web/` take what they need as arguments
and never import this module; `cli/` (the program's entry) asks it for the HTTP app.

MCP at /mcp and the OAuth endpoints stand on the MCP SDK, so `sosoapi serve` builds them at
the first request that reaches them (`_mcp_and_oauth`, mcp/mount.py): their modules are
imported there, not at the top of this one.
"""

from __future__ import annotations

from functools import partial

from fastapi import FastAPI

from sosoapi.api.http import create_http_app, public_base
from sosoapi.application import Application
from sosoapi.config import Settings
from sosoapi.mcp.mount import DeferredMcp, McpHttp
from sosoapi.research.review.sessions import ConsoleSessions
from sosoapi.research.review.views import Review
from sosoapi.web.consent import ConsentPage
from sosoapi.web.console import add_console
from sosoapi.web.docs import docs_routes

__all__ = ["Application", "http_app"]


def http_app(settings: Settings, *, host: str, port: int, public_url: str | None = None) -> FastAPI:
    """`sosoapi serve`'s app: the HTTP API, MCP at /mcp, OAuth, the docs and the console."""
    application = Application(settings)
    base = public_base(host, port, public_url or settings.public_url)
    app = create_http_app(
        application.research,
        running=application.running(),
        mcp=DeferredMcp(partial(_mcp_and_oauth, application, host, base), base),
        host=host,
        port=port,
        profile=settings.profile,
        base=base,
        max_request_bytes=settings.max_request_bytes,
        pages=[*ConsentPage(application.oauth, base).routes(), *docs_routes(base)],
        allowed_hosts=settings.allowed_hosts,
    )
    add_console(
        app,
        ConsoleSessions(application.research),
        Review(application.research),
        secure_cookie=base.startswith("https://"),
    )
    return app


def _mcp_and_oauth(application: Application, host: str, base: str) -> McpHttp:
    """MCP at /mcp behind the OAuth server's metadata routes; the SDK's authorization
    endpoints are mounted inside the MCP app (mcp/http.py)."""
    from starlette.routing import Mount, Router

    from sosoapi.mcp.http import McpAuth, McpLimits, mcp_http
    from sosoapi.oauth.client_secrets import ClientSecretHasher
    from sosoapi.oauth.registration import RateLimit, RegistrationGate
    from sosoapi.oauth.server import oauth_server

    settings = application.settings
    oauth = oauth_server(application.oauth, base)
    register = RateLimit(settings.oauth_register_burst, settings.oauth_register_per_minute)
    authorize = RateLimit(settings.oauth_authorize_burst, settings.oauth_authorize_per_minute)
    mcp = mcp_http(
        application.research,
        McpAuth(
            oauth.settings,
            oauth.provider,
            lambda sdk: RegistrationGate(ClientSecretHasher(sdk), register, authorize),
        ),
        host=host,
        base=base,
        profile=settings.profile,
        output_schemas=settings.output_schemas,
        limits=McpLimits(settings.mcp_sessions_per_user, settings.mcp_session_idle_seconds),
    )
    routes = Router([*oauth.routes, Mount("/", app=mcp.app)])  # ours ahead of the SDK's
    return McpHttp(routes, mcp.running, mcp.metadata_url)
