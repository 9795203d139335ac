"""The /mcp app built in-process over a test Application, as `sosoapi serve` builds it,
and the SDK client that talks to it (or to a real server) over streamable HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client

from sosoapi.application import Application
from sosoapi.mcp.http import McpAuth, mcp_http
from sosoapi.mcp.mount import McpHttp
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


@asynccontextmanager
async def streamable(
    served: McpHttp, headers: dict[str, str], base: str = "http://127.0.0.1:8080"
) -> AsyncIterator[mcp.Client]:
    """An SDK client of the in-process /mcp over streamable HTTP, sending `headers`."""
    async with (
        served.running,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=served.app), headers=headers, timeout=60
        ) as http,
        mcp.Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        yield client


@asynccontextmanager
async def over_http(mcp_url: str, token: str) -> AsyncIterator[mcp.Client]:
    """An SDK client of a running server's /mcp (`mcp_url`) with a bearer token."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        mcp.Client(streamable_http_client(mcp_url, http_client=http)) as client,
    ):
        yield client
