"""DNS-rebinding protection on every route of `sosoapi serve`, not only /mcp: a Host that is
not this server's is a 421 problem; a browser Origin from elsewhere is a 403; the public
URL's host and `SOSOAPI_ALLOWED_HOSTS` are answered to. The app `sosoapi serve` runs, in
process (tests/support/serve_app.py): the check reads the request's headers, not the
socket. SQLite only: no store is involved."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from sosoapi.api.hosts import HostPolicy, parse_allowed
from tests.support.serve_app import BASE, PORT, serve_app

ROUTES = [
    ("GET", "/healthz"),
    ("GET", "/console"),
    ("POST", "/research-api/whoami"),
    ("POST", "/register"),
    ("GET", "/authorize"),
    ("POST", "/token"),
    ("POST", "/revoke"),
    ("POST", "/mcp"),
    ("GET", "/docs"),
    ("GET", "/oauth/consent"),
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("GET", "/openapi.json"),
    ("GET", "/no-such-page"),
]


@asynccontextmanager
async def serving(home: Path, **env: str) -> AsyncIterator[httpx.AsyncClient]:
    async with serve_app({"SOSOAPI_HOME": str(home), **env}) as app:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            yield http


async def status(http: httpx.AsyncClient, method: str, path: str, **headers: str) -> httpx.Response:
    return await http.request(method, path, headers=headers, json={} if method == "POST" else None)


async def test_every_route_refuses_a_foreign_host(tmp_path: Path) -> None:
    async with serving(tmp_path) as http:
        for method, path in ROUTES:
            for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1.evil.example"):
                refused = await status(http, method, path, Host=host)
                assert refused.status_code == 421, (path, host, refused.text)
                problem = refused.json()
                assert problem["status"] == 421 and "SOSOAPI_ALLOWED_HOSTS" in problem["detail"]
            for host in (f"127.0.0.1:{PORT}", f"localhost:{PORT}", "localhost"):
                answered = await status(http, method, path, Host=host)
                assert answered.status_code != 421, (path, host, answered.text)


async def test_a_foreign_browser_origin_is_refused_but_oauth_clients_may_call_cross_origin(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as http:
        for method, path in (("POST", "/research-api/whoami"), ("GET", "/console")):
            refused = await status(http, method, path, Origin="https://evil.example")
            assert refused.status_code == 403, (path, refused.text)
            assert "evil.example" in refused.json()["detail"]
            ours = await status(http, method, path, Origin=BASE)
            assert ours.status_code not in (403, 421), (path, ours.text)
        for path in ("/token", "/register"):  # browser-based OAuth clients live elsewhere
            answered = await status(http, "POST", path, Origin="https://client.example")
            assert answered.status_code not in (403, 421), (path, answered.text)


async def test_public_url_and_extra_hosts_are_answered_to(tmp_path: Path) -> None:
    async with serving(
        tmp_path,
        SOSOAPI_PUBLIC_URL="https://research.example.org/",
        SOSOAPI_ALLOWED_HOSTS="extra.example:*, pinned.example:8443",
    ) as http:
        for host, answered in (
            ("research.example.org", True),
            ("research.example.org:443", True),
            ("research.example.org:8080", False),
            ("extra.example:9", True),
            ("pinned.example:8443", True),
            ("pinned.example:8444", False),
            (f"127.0.0.1:{PORT}", True),
            ("evil.example", False),
        ):
            got = await status(http, "POST", "/research-api/whoami", Host=host)
            assert (got.status_code != 421) is answered, (host, got.status_code)
        mcp = await status(http, "POST", "/mcp", Host="research.example.org")
        assert mcp.status_code == 401  # past the Host check, asking for a token


def test_policy_parsing() -> None:
    loopback = HostPolicy.build("127.0.0.1", "http://127.0.0.1:8080")
    assert loopback.permits("127.0.0.1:8080") and loopback.permits("[::1]:5")
    for bad in (None, "", "evil.example", "[::1", "127.0.0.1:0", "127.0.0.1:x", "::1"):
        assert not loopback.permits(bad), bad
    assert not loopback.permits_origin("null")
    assert loopback.permits_origin("http://localhost:3000")
    everywhere = HostPolicy.build("0.0.0.0", "http://0.0.0.0:8080")
    assert everywhere.allowed is None  # no names known: documented, nothing checked
    assert HostPolicy.build("127.0.0.1", "http://127.0.0.1:1", ["*"]).allowed is None
    with pytest.raises(ValueError, match="SOSOAPI_ALLOWED_HOSTS"):
        parse_allowed("bad host/")
