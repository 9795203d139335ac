"""The consent page in a real browser (chromium via Playwright): approve, deny, wrong token.

The client here is a registered public client using PKCE; the browser's return to the
client's redirect URI is intercepted, so the test reads the code the person's approval
produced and exchanges it like the client would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client

from sosoapi.testing.processes import shared_verify
from tests.support.browser import browser_page
from tests.support.oauth import ROOMY_RATES, exchange_code, mcp_status
from tests.support.services import ServeProcess, cli

# SQLite only: the page is the subject. The module's tests share its server.
pytestmark = [pytest.mark.slow, pytest.mark.parametrize("process_env", ["sqlite"], indirect=True)]
REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture
def server_env() -> dict[str, str]:
    return ROOMY_RATES  # the module's sign-ins share its server, one address


def register(base: str) -> str:
    answer = httpx.post(
        f"{base}/register",
        json={
            "client_name": "Browser Test App",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
        timeout=30,  # a server's first OAuth request builds its endpoints (the MCP SDK)
        verify=shared_verify(),
    )
    assert answer.status_code == 201, answer.text
    registered = answer.json()
    assert registered["scope"] == "agent:research"  # registered without a scope
    return registered["client_id"]


def authorize_url(base: str, client_id: str) -> tuple[str, str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    state = secrets.token_urlsafe(16)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge.decode().rstrip("="),
        "code_challenge_method": "S256",
        "state": state,
        "resource": f"{base}/mcp",
    }
    return f"{base}/authorize?{urlencode(query)}", verifier, state


async def sign_in(page, url: str, token: str, decision: str) -> dict[str, str]:
    """Open the authorize URL, paste `token`, press the button; the query sent back."""
    await page.goto(url)
    await page.fill("input[name=token]", token)
    async with page.expect_request(lambda r: r.url.startswith(REDIRECT)) as sent:
        await page.click(f"button[name=decision][value={decision}]")
    return {k: v[0] for k, v in parse_qs(urlsplit((await sent.value).url).query).items()}


def oauth_tokens(env: dict[str, str], client_id: str) -> list[dict]:
    """The tokens issued to `client_id` (the module's other tests sign in on its server)."""
    rows = json.loads(cli(["tokens", "list", "--json"], env).stdout)
    return [t for t in rows if t["client_id"] == client_id]


async def test_approve_in_browser_then_the_client_calls_tools(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    client_id = register(served.base)
    url, verifier, state = authorize_url(served.base, client_id)
    async with browser_page() as page:
        await page.goto(url)
        assert await page.title() == "Allow Browser Test App · SosoAPI Research"
        body = await page.inner_text("body")
        assert "127.0.0.1:9" in body and "agent:research" in body
        returned = await sign_in(page, url, initialised["SOSOAPI_TOKEN"], "approve")
    assert returned["state"] == state
    assert returned["iss"] == served.base
    exchanged = await exchange_code(served.base, client_id, returned["code"], verifier, REDIRECT)
    assert exchanged.status_code == 200, exchanged.text
    access = exchanged.json()["access_token"]
    assert await mcp_status(served.base, access) == (200, None)

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {access}"}, timeout=30) as http,
        mcp.Client(streamable_http_client(f"{served.base}/mcp", http_client=http)) as client,
    ):
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"sosoapi_whoami", "sosoapi_research_evidence_retrieve"} <= names
        whoami = await client.call_tool("sosoapi_whoami", {})
        assert whoami.is_error is False
        assert whoami.structured_content["workspaces"][0]["id"] == initialised["WORKSPACE_ID"]

    # The code again is a replay (RFC 6749 4.1.2): refused, and what it issued is revoked.
    again = await exchange_code(served.base, client_id, returned["code"], verifier, REDIRECT)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert await mcp_status(served.base, access) == (401, "revoked")


async def test_deny_in_browser_redirects_access_denied_and_issues_nothing(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    client_id = register(served.base)
    url, _, state = authorize_url(served.base, client_id)
    async with browser_page() as page:
        returned = await sign_in(page, url, "", "deny")
    assert returned["error"] == "access_denied" and returned["state"] == state
    assert "code" not in returned
    assert oauth_tokens(initialised, client_id) == []


async def test_wrong_token_reshows_the_form_with_an_error(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    client_id = register(served.base)
    url, _, _ = authorize_url(served.base, client_id)
    async with browser_page() as page:
        await page.goto(url)
        await page.fill("input[name=token]", "sosoapi_not-a-real-token")
        await page.click("button[name=decision][value=approve]")
        await page.wait_for_selector(".error")
        assert urlsplit(page.url).path == "/oauth/consent"
        error = await page.inner_text(".error")
        assert "unknown to this server" in error
        assert await page.input_value("input[name=token]") == ""
        # The same page still works: the right token approves.
        await page.fill("input[name=token]", initialised["SOSOAPI_TOKEN"])
        async with page.expect_request(f"{REDIRECT}**") as sent:
            await page.click("button[name=decision][value=approve]")
        assert "code=" in (await sent.value).url
    assert oauth_tokens(initialised, client_id) == []  # nothing issued until the code is exchanged


def test_consent_refuses_cross_site_posts_and_framing(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    client_id = register(served.base)
    url, _, _ = authorize_url(served.base, client_id)
    with httpx.Client(follow_redirects=False, verify=shared_verify()) as browser:
        consent = browser.get(browser.get(url).headers["location"])
        assert consent.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in consent.headers["content-security-policy"]
        cookie = consent.headers["set-cookie"].lower()
        assert "samesite=strict" in cookie and "httponly" in cookie
        assert "secure" not in cookie  # plain-HTTP loopback: a Secure cookie would be dropped
        request_id = parse_qs(urlsplit(str(consent.url)).query)["request"][0]
        form = {
            "request": request_id,
            "csrf": "guessed",
            "token": initialised["SOSOAPI_TOKEN"],
            "decision": "approve",
        }
        # another site: no cookie
        forged = httpx.post(str(consent.url), data=form, timeout=30, verify=shared_verify())
        assert forged.status_code == 403
        guessed = browser.post(str(consent.url), data=form)  # the cookie, a guessed token
        assert guessed.status_code == 403
        # the page's own token and cookie, posted from another site: the Origin alone refuses
        form["csrf"] = re.search(r'name="csrf" value="([^"]+)"', consent.text).group(1)
        wrong_origin = browser.post(
            str(consent.url), data=form, headers={"Origin": "https://evil.example"}
        )
        assert wrong_origin.status_code == 403
    assert oauth_tokens(initialised, client_id) == []
