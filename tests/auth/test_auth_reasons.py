"""401 answers say what was wrong with the token, on /mcp as on the REST API; an OAuth
token works only at the resource it was issued for; the auth metadata names our server."""

from __future__ import annotations

import json
import time

import anyio
import httpx
import pytest

from sosoapi.testing.processes import shared_verify
from tests.auth.test_oauth_consent_browser import REDIRECT, authorize_url, register
from tests.support.oauth import answer_consent, exchange_code, mcp_status
from tests.support.services import ServeProcess, cli

pytestmark = pytest.mark.slow
WHOAMI = "/research-api/whoami"


async def rest_status(base: str, token: str | None) -> tuple[int, str | None]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        answer = await http.post(base + WHOAMI, json={}, headers=headers)
    if answer.status_code != 401:
        return answer.status_code, None
    detail = answer.json()["detail"]
    assert f'error_description="{detail}"' in answer.headers["www-authenticate"]
    words = {"No bearer token": "missing", "unknown": "unknown"}
    words |= {"expired": "expired", "revoked": "revoked"}
    found = [reason for text, reason in words.items() if text in detail]
    assert len(found) == 1, detail
    return 401, found[0]


def mint(env: dict[str, str], *extra: str) -> dict:
    done = cli(
        [
            "tokens",
            "create",
            "--workspace",
            env["WORKSPACE_ID"],
            "--role",
            "editor",
            "--json",
            *extra,
        ],
        env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def test_every_reason_on_mcp_and_rest(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    base = served.base
    assert await mcp_status(base, None) == (401, "missing")
    assert await rest_status(base, None) == (401, "missing")
    assert await mcp_status(base, "sosoapi_nope") == (401, "unknown")
    assert await rest_status(base, "sosoapi_nope") == (401, "unknown")

    revoked = mint(initialised)
    assert await rest_status(base, revoked["token"]) == (200, None)
    assert cli(["tokens", "revoke", revoked["id"]], initialised).returncode == 0
    assert await mcp_status(base, revoked["token"]) == (401, "revoked")
    assert await rest_status(base, revoked["token"]) == (401, "revoked")

    expiring = mint(initialised, "--expires-in", "1")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait for the clock to pass the expiry
        if (await rest_status(base, expiring["token"]))[0] == 401:
            break
        await anyio.sleep(0.2)
    assert await mcp_status(base, expiring["token"]) == (401, "expired")
    assert await rest_status(base, expiring["token"]) == (401, "expired")

    # A personal token keeps working on both surfaces.
    assert await mcp_status(base, initialised["SOSOAPI_TOKEN"]) == (200, None)
    assert await rest_status(base, initialised["SOSOAPI_TOKEN"]) == (200, None)


async def test_oauth_token_is_bound_to_its_resource(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    base = served.base
    client_id = register(base)
    url, verifier, _ = authorize_url(base, client_id)
    without = url.split("&resource=")[0]  # authorize_url puts the resource last
    for_rest = f"{without}&{httpx.QueryParams({'resource': base})}"
    answer = await answer_consent(for_rest, initialised["SOSOAPI_TOKEN"], "approve")
    exchanged = await exchange_code(base, client_id, answer.params["code"], verifier, REDIRECT)
    token = exchanged.json()["access_token"]
    assert await rest_status(base, token) == (200, None)
    assert await mcp_status(base, token) == (401, "elsewhere")

    foreign = f"{without}&resource=https%3A%2F%2Fother.example%2Fmcp"
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=30, verify=shared_verify()
    ) as browser:
        refused = await browser.get(foreign)
    assert refused.status_code == 302
    assert "error=invalid_target" in refused.headers["location"]


def test_authorization_metadata_names_this_server(served: ServeProcess) -> None:
    base = served.base
    resource = httpx.get(
        f"{base}/.well-known/oauth-protected-resource/mcp", timeout=30, verify=shared_verify()
    ).json()
    assert resource["resource"] == f"{base}/mcp"
    assert resource["authorization_servers"] == [base]
    assert resource["scopes_supported"] == ["agent:research"]
    server = httpx.get(
        f"{base}/.well-known/oauth-authorization-server", timeout=30, verify=shared_verify()
    ).json()
    assert server["issuer"] == base
    assert server["registration_endpoint"] == f"{base}/register"
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert set(server["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert server["revocation_endpoint"] == f"{base}/revoke"
    # public clients (PKCE, no secret) authenticate with `none`, which the server accepts
    assert server["token_endpoint_auth_methods_supported"][0] == "none"
    assert {"client_secret_post", "client_secret_basic"} <= set(
        server["token_endpoint_auth_methods_supported"]
    )


async def test_an_http_client_is_told_the_header_and_the_oauth_metadata(
    served: ServeProcess,
) -> None:
    """A 401 on /mcp advises what an HTTP client can do (a header, OAuth sign-in), never a
    stdio server's environment variable."""
    base = served.base
    metadata = f"{base}/.well-known/oauth-protected-resource/mcp"
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        for token in (None, "sosoapi_nope"):
            sent = {**headers, **({"Authorization": f"Bearer {token}"} if token else {})}
            answer = await http.post(f"{base}/mcp", json={}, headers=sent)
            assert answer.status_code == 401
            description = answer.json()["error_description"]
            assert "Authorization: Bearer <token>" in description
            assert f"sign in with OAuth (protected-resource metadata: {metadata})" in description
            assert "SOSOAPI_TOKEN" not in description and "env" not in description
            assert (await http.get(metadata)).status_code == 200
