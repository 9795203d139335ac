"""A person's browser in code: follow /authorize to the consent page and answer it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import httpx

from sosoapi.testing.processes import shared_verify

FIELD = re.compile(r'name="(request|csrf)" value="([^"]+)"')


@dataclass
class ConsentAnswer:
    """The redirect the server sent the browser back with, as query parameters."""

    location: str
    params: dict[str, str] = field(default_factory=dict)


async def answer_consent(authorize_url: str, token: str, decision: str) -> ConsentAnswer:
    """GET the authorize URL, open the consent page it redirects to, post the decision."""
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=30, verify=shared_verify()
    ) as browser:
        to_consent = await browser.get(authorize_url)
        assert to_consent.status_code == 302, to_consent.text
        page = await browser.get(to_consent.headers["location"])
        assert page.status_code == 200, page.text
        fields = dict(FIELD.findall(page.text))
        back = await browser.post(
            str(page.url),
            data={**fields, "token": token, "decision": decision},
            headers={"Origin": f"{page.url.scheme}://{page.url.netloc.decode()}"},
        )
        assert back.status_code == 303, back.text
        location = back.headers["location"]
        query = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
        return ConsentAnswer(location, query)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
REASONS = ("No bearer token", "unknown", "expired", "revoked", "issued for")


async def mcp_status(base: str, token: str | None) -> tuple[int, str | None]:
    """Status of an MCP initialize with `token`, and the 401's reason, checked in both places."""
    headers = {"Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        answer = await http.post(f"{base}/mcp", json=INITIALIZE, headers=headers)
    if answer.status_code != 401:
        return answer.status_code, None
    description = answer.json()["error_description"]
    challenge = answer.headers["www-authenticate"]
    assert f'error_description="{description}"' in challenge
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
    found = [r for r in REASONS if r in description]
    assert len(found) == 1, description
    return 401, {"No bearer token": "missing", "issued for": "elsewhere"}.get(found[0], found[0])


async def exchange_code(
    base: str, client_id: str, code: str, verifier: str, redirect_uri: str
) -> httpx.Response:
    """The client's half after consent: trade the code and the PKCE verifier for tokens."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect_uri,
        "client_id": client_id,
        "code_verifier": verifier,
    }
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        return await http.post(f"{base}/token", data=form)


# A module's `server_env` (tests/support/served.py) when its OAuth sign-ins share one server:
# room for all of them from one address. The default limits are
# tests/auth/test_registration_door.py's subject, on a server of its own.
ROOMY_RATES = {
    f"SOSOAPI_OAUTH_{name}": "100"
    for name in ("REGISTER_BURST", "REGISTER_PER_MINUTE", "AUTHORIZE_BURST", "AUTHORIZE_PER_MINUTE")
}
