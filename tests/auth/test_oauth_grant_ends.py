"""Against `sosoapi serve`, both stores: an OAuth grant ends with the personal token that
approved it (expiry, `sosoapi tokens revoke`), and a replayed code revokes its grant."""

from __future__ import annotations

import time

import anyio
import httpx
import pytest

from sosoapi.testing.processes import shared_verify
from tests.auth.test_auth_reasons import mint, rest_status
from tests.auth.test_oauth_consent_browser import REDIRECT, authorize_url, register
from tests.support.oauth import ROOMY_RATES, answer_consent, exchange_code, mcp_status
from tests.support.services import ServeProcess, cli

pytestmark = pytest.mark.slow


@pytest.fixture
def server_env() -> dict[str, str]:
    return ROOMY_RATES  # the module's sign-ins share its server, one address


async def signed_in(base: str, personal: str) -> tuple[dict, str, str, str]:
    client_id = register(base)
    url, verifier, _ = authorize_url(base, client_id)
    answer = await answer_consent(url, personal, "approve")
    code = answer.params["code"]
    exchanged = await exchange_code(base, client_id, code, verifier, REDIRECT)
    assert exchanged.status_code == 200, exchanged.text
    return exchanged.json(), client_id, code, verifier


async def refresh(base: str, client_id: str, refresh_token: str) -> httpx.Response:
    form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
    async with httpx.AsyncClient(timeout=30, verify=shared_verify()) as http:
        return await http.post(f"{base}/token", data=form)


async def signed_in_before_expiry(base: str, env: dict[str, str]) -> tuple[dict, dict, str]:
    """A personal token that expires soon, and an OAuth grant it approved, in use.

    The lifetime starts at 2 s and doubles (to 32 s) only when signing in took longer
    than it, so a quiet machine waits a second or two for the expiry, not 15 s. A sign-in
    that failed while its token was still alive is a failure, not a retry."""
    lifetime = 2
    while lifetime <= 32:
        started = time.monotonic()
        personal = mint(env, "--expires-in", str(lifetime))
        try:
            tokens, client_id, _, _ = await signed_in(base, personal["token"])
            assert tokens["expires_in"] <= lifetime  # the grant ends with its approver
            assert await rest_status(base, tokens["access_token"]) == (200, None)
        except AssertionError:
            if time.monotonic() - started < lifetime:
                raise
            lifetime *= 2  # the token may have expired mid-sign-in: a loaded machine
            continue
        return personal, tokens, client_id
    raise AssertionError("signing in took over 32 s every time")


async def test_the_grant_expires_with_its_approving_token(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    personal, tokens, client_id = await signed_in_before_expiry(served.base, initialised)
    deadline = time.monotonic() + 60
    while await rest_status(served.base, personal["token"]) != (401, "expired"):
        assert time.monotonic() < deadline
        await anyio.sleep(0.2)
    assert await rest_status(served.base, tokens["access_token"]) == (401, "expired")
    assert await mcp_status(served.base, tokens["access_token"]) == (401, "expired")
    again = await refresh(served.base, client_id, tokens["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


async def test_the_grant_is_revoked_with_its_approving_token(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    personal = mint(initialised)
    tokens, client_id, _, _ = await signed_in(served.base, personal["token"])
    rotated = await refresh(served.base, client_id, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    fresh = rotated.json()
    assert cli(["tokens", "revoke", personal["id"]], initialised).returncode == 0
    assert await rest_status(served.base, fresh["access_token"]) == (401, "revoked")
    assert await mcp_status(served.base, fresh["access_token"]) == (401, "revoked")
    again = await refresh(served.base, client_id, fresh["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


async def test_a_replayed_code_revokes_what_it_issued(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    tokens, client_id, code, verifier = await signed_in(served.base, initialised["SOSOAPI_TOKEN"])
    assert await rest_status(served.base, tokens["access_token"]) == (200, None)
    replay = await exchange_code(served.base, client_id, code, verifier, REDIRECT)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert await rest_status(served.base, tokens["access_token"]) == (401, "revoked")
    again = await refresh(served.base, client_id, tokens["refresh_token"])
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


async def test_four_parallel_refreshes_of_one_token_all_succeed(
    served: ServeProcess, initialised: dict[str, str]
) -> None:
    import asyncio

    tokens, client_id, _, _ = await signed_in(served.base, initialised["SOSOAPI_TOKEN"])
    answers = await asyncio.gather(
        *(refresh(served.base, client_id, tokens["refresh_token"]) for _ in range(4))
    )
    assert [a.status_code for a in answers] == [200] * 4, [a.text for a in answers]
    for answer in answers:  # every pair works: the grant was not taken for stolen
        assert await rest_status(served.base, answer.json()["access_token"]) == (200, None)
    # The next refresh rotates again, from any of the racers' refresh tokens.
    onward = await refresh(served.base, client_id, answers[-1].json()["refresh_token"])
    assert onward.status_code == 200, onward.text
