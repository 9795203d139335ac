"""`sosoapi serve` builds /mcp and the OAuth endpoints at the first request that reaches
them (mcp/mount.py): the server answers /healthz without the MCP SDK, the app is built
once however many requests race for it, and its sessions stop with the server."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from sosoapi.app import http_app
from sosoapi.mcp.mount import DeferredMcp, McpHttp
from tests.support.services import make_settings

BASE = "http://127.0.0.1:8080"


class Recorded:
    """A stand-in for the SDK's app: counts its builds, records its running context."""

    def __init__(self) -> None:
        self.builds = 0
        self.events: list[str] = []

    def build(self) -> McpHttp:
        self.builds += 1

        @asynccontextmanager
        async def running() -> AsyncIterator[None]:
            self.events.append("sessions started")
            try:
                yield
            finally:
                self.events.append("sessions stopped")

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            await PlainTextResponse(f"built {self.builds}")(scope, receive, send)

        return McpHttp(app, running(), "unused")


async def test_the_app_is_built_once_at_the_first_request_and_stops_with_the_server() -> None:
    recorded = Recorded()
    deferred = DeferredMcp(recorded.build, BASE)
    assert deferred.metadata_url == f"{BASE}/.well-known/oauth-protected-resource/mcp"
    async with deferred.running:
        assert recorded.builds == 0, "nothing is built before a request"
        transport = httpx.ASGITransport(app=deferred.app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            answers = await asyncio.gather(*(http.post("/mcp") for _ in range(8)))
            assert [a.text for a in answers] == ["built 1"] * 8
            assert (await http.post("/mcp")).text == "built 1"
        assert recorded.builds == 1
        assert recorded.events == ["sessions started"]
    assert recorded.events == ["sessions started", "sessions stopped"]


async def test_a_request_outside_the_servers_lifetime_builds_nothing() -> None:
    recorded = Recorded()
    deferred = DeferredMcp(recorded.build, BASE)
    transport = httpx.ASGITransport(app=deferred.app)
    async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
        with pytest.raises(RuntimeError, match="only while its `running` context is entered"):
            await http.post("/mcp")
    assert recorded.builds == 0


async def test_a_fresh_servers_first_request_may_be_any_oauth_or_mcp_route(
    database_url: str, tmp_path: Path
) -> None:
    """Our authorization metadata (naming `none`, which the SDK's own copy omits) is served
    ahead of the SDK's from the built app, whichever route builds it."""
    settings = make_settings(database_url, tmp_path)
    app = http_app(settings, host="127.0.0.1", port=8080)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url=BASE) as http,
    ):
        assert (await http.get("/healthz")).status_code == 200
        metadata = await http.get("/.well-known/oauth-authorization-server")
        assert metadata.status_code == 200, metadata.text
        assert "none" in metadata.json()["token_endpoint_auth_methods_supported"]
        resource = (await http.get("/.well-known/oauth-protected-resource/mcp")).json()
        assert resource["resource"] == f"{BASE}/mcp"
        refused = await http.post("/mcp", json={})
        assert refused.status_code == 401
        assert (
            f"{BASE}/.well-known/oauth-protected-resource/mcp"
            in refused.headers["www-authenticate"]
        )


SERVE_IMPORTS = "import sys, sosoapi.app; print(*sys.modules)"


def test_the_http_app_imports_no_module_of_the_mcp_sdk() -> None:
    """Any SDK module runs `mcp/__init__`, which imports its client and both protocol
    versions' models: about 0.3 s of every server's start (bench/README.md)."""
    loaded = subprocess.run(
        [sys.executable, "-c", SERVE_IMPORTS], capture_output=True, text=True, check=True
    ).stdout.split()
    assert not {name.split(".")[0] for name in loaded} & {"mcp", "mcp_types"}
    assert "sosoapi.mcp.http" not in loaded and "sosoapi.oauth.server" not in loaded
