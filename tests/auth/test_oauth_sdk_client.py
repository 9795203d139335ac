"""The MCP SDK's own OAuth client against `sosoapi serve`: register, authorize, consent,
token, tools/call, refresh with rotation; the tokens listed and revoked by the CLI."""

from __future__ import annotations

import json

import httpx
import httpx2
import mcp
import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from sosoapi.testing.processes import shared_verify
from tests.support.contract import assert_valid_output
from tests.support.oauth import ROOMY_RATES, ConsentAnswer, answer_consent, mcp_status
from tests.support.services import ServeProcess, cli

pytestmark = pytest.mark.slow
REDIRECT = "http://127.0.0.1:9/callback"  # never fetched: the test reads the redirect itself


@pytest.fixture
def server_env() -> dict[str, str]:
    return ROOMY_RATES  # the module's sign-ins share its server, one address


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def oauth_client(
    base: str, token: str, storage: MemoryStorage, auth_method: str
) -> tuple[OAuthClientProvider, list[ConsentAnswer]]:
    answers: list[ConsentAnswer] = []

    async def redirect_handler(url: str) -> None:
        answers.append(await answer_consent(url, token, "approve"))

    async def callback_handler() -> AuthorizationCodeResult:
        params = answers[-1].params
        return AuthorizationCodeResult(
            code=params["code"], state=params.get("state"), iss=params.get("iss")
        )

    metadata = OAuthClientMetadata(
        client_name="SDK test client",
        redirect_uris=[REDIRECT],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=auth_method,  # type: ignore[arg-type]
    )
    provider = OAuthClientProvider(
        f"{base}/mcp", metadata, storage, redirect_handler, callback_handler
    )
    return provider, answers


async def signed_in_whoami(base: str, provider: OAuthClientProvider, workspace_id: str) -> None:
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http,
        mcp.Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
    ):
        whoami = await client.call_tool("sosoapi_whoami", {})
        assert whoami.is_error is False, whoami.content
        assert_valid_output("sosoapi_whoami", whoami.structured_content)
        assert whoami.structured_content["scopes"] == ["agent:research"]
        assert [w["id"] for w in whoami.structured_content["workspaces"]] == [workspace_id]
        listed = await client.call_tool(
            "sosoapi_research_evidence_list", {"workspace_id": workspace_id}
        )
        assert listed.is_error is False, listed.content
        assert_valid_output("sosoapi_research_evidence_list", listed.structured_content)


@pytest.mark.parametrize("auth_method", ["client_secret_post", "none"])
async def test_sdk_oauth_client_signs_in_calls_and_refreshes(
    served: ServeProcess, initialised: dict[str, str], auth_method: str
) -> None:
    storage = MemoryStorage()
    provider, answers = oauth_client(
        served.base, initialised["SOSOAPI_TOKEN"], storage, auth_method
    )
    await signed_in_whoami(served.base, provider, initialised["WORKSPACE_ID"])
    assert len(answers) == 1 and answers[0].location.startswith(REDIRECT)
    # Registered without a scope, granted agent:research.
    assert storage.client is not None and storage.client.scope == "agent:research"
    first = storage.tokens
    assert first is not None and first.refresh_token and first.scope == "agent:research"

    oauth_rows = issued(initialised, storage)
    assert sorted(t["kind"] for t in oauth_rows) == ["oauth_access", "oauth_refresh"]
    assert {t["client_name"] for t in oauth_rows} == {"SDK test client"}
    assert {t["resource"] for t in oauth_rows} == {f"{served.base}/mcp"}

    # Refresh rotates: new access and refresh tokens; the old access token is revoked.
    refreshed = await refresh(served.base, storage)
    assert refreshed.status_code == 200, refreshed.text
    new = refreshed.json()
    assert new["access_token"] != first.access_token
    assert new["refresh_token"] != first.refresh_token
    assert await mcp_status(served.base, first.access_token) == (401, "revoked")
    assert await mcp_status(served.base, new["access_token"]) == (200, None)
    # The rotated refresh token again at once (a lost answer retried): within the grace a
    # fresh pair, the grant kept. Past it, a replay ends the grant (assumed stolen):
    # tests/research/test_oauth_grant_lifetime.py moves the clock for that.
    replay = await refresh(served.base, storage)
    assert replay.status_code == 200, replay.text
    assert await mcp_status(served.base, new["access_token"]) == (200, None)
    assert await mcp_status(served.base, replay.json()["access_token"]) == (200, None)


async def test_cli_revokes_an_oauth_grant(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    storage = MemoryStorage()
    provider, _ = oauth_client(
        served.base, initialised["SOSOAPI_TOKEN"], storage, "client_secret_post"
    )
    await signed_in_whoami(served.base, provider, initialised["WORKSPACE_ID"])
    assert storage.tokens is not None
    access = next(t for t in issued(initialised, storage) if t["kind"] == "oauth_access")
    done = cli(["tokens", "revoke", access["id"]], initialised)
    assert done.returncode == 0, done.stderr
    assert await mcp_status(served.base, storage.tokens.access_token) == (401, "revoked")
    refreshed = await refresh(served.base, storage)  # its refresh token went with it
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"


def issued(env: dict[str, str], storage: MemoryStorage) -> list[dict]:
    """`sosoapi tokens list`'s rows of the tokens issued to this test's client (the
    module's other tests sign in on the same server)."""
    assert storage.client is not None
    rows = json.loads(cli(["tokens", "list", "--json"], env).stdout)
    return [t for t in rows if t["client_id"] == storage.client.client_id]


async def refresh(base: str, storage: MemoryStorage) -> httpx.Response:
    assert storage.tokens is not None and storage.client is not None
    form = {
        "grant_type": "refresh_token",
        "refresh_token": storage.tokens.refresh_token or "",
        "client_id": storage.client.client_id or "",
        "resource": f"{base}/mcp",
    }
    if storage.client.client_secret:
        form["client_secret"] = storage.client.client_secret
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        return await http.post(f"{base}/token", data=form)
