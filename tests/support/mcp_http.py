"""The /mcp app built in-process over a test Application, as `sosoapi serve` builds it."""

from __future__ import annotations

from sosoapi.application import Application
from sosoapi.mcp.http import McpAuth, McpHttp, mcp_http
from sosoapi.oauth.server import oauth_server


def inprocess_mcp(application: Application, base: str) -> McpHttp:
    oauth = oauth_server(application.oauth, base)
    return mcp_http(
        application.research,
        McpAuth(oauth.settings, oauth.provider),
        host="127.0.0.1",
        base=base,
        profile="full",
        output_schemas=False,
    )
