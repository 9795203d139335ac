"""`/register` and `/authorize` of `sosoapi serve` against a flood: a body over 16 KiB is a
413 before it is parsed, unsafe metadata a 400 in RFC 7591's words, and one address past
its rate (the default, or the operator's) a 429 with `Retry-After`. Both stores."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from sosoapi.testing.processes import shared_verify
from tests.support.serve_app import BASE, serve_app
from tests.support.services import ServeProcess

# The module's server takes the refusals below from one address: 7 of /register's default
# 10 at once; the rate limit's own test counts from 0 on a server of its own.
pytestmark = pytest.mark.slow


def metadata(uris: list[str], name: str = "Flood App") -> dict:
    return {
        "client_name": name,
        "redirect_uris": uris,
        "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }


def test_unsafe_registrations_are_refused_in_rfc_7591_terms(served: ServeProcess) -> None:
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        for uri in ("javascript:alert(1)", "http://evil.example/cb", "https://a.example/#x"):
            refused = http.post("/register", json=metadata([uri]))
            assert refused.status_code == 400, refused.text
            assert refused.json()["error"] == "invalid_redirect_uri"
        named = http.post("/register", json=metadata(["https://a.example/cb"], "\u202eexe.txt"))
        assert named.status_code == 400 and named.json()["error"] == "invalid_client_metadata"
        fine = http.post("/register", json=metadata(["http://127.0.0.1:9/cb"]))
        assert fine.status_code == 201, fine.text


def test_a_large_registration_is_refused_before_it_is_parsed(served: ServeProcess) -> None:
    big = metadata([f"https://a.example/{i}/" + "x" * 1000 for i in range(17)])
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        declared = http.post("/register", json=big)
        assert declared.status_code == 413, declared.text
        assert "16384" in declared.json()["error_description"]

        def chunks():  # no Content-Length: counted as it streams
            yield b'{"client_name": "x", "redirect_uris": ["https://a.example/'
            for _ in range(20):
                yield b"y" * 1000
            yield b'"]}'

        streamed = http.post(
            "/register", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert streamed.status_code == 413, streamed.text


# The default bursts (10 registrations, 30 authorizations) with a refill of one a minute:
# the counts do not depend on how fast the machine sends them (the default refill rates
# are checked in tests/test_config.py, and that the operator's reach the gate below).
SLOW_REFILL = {"SOSOAPI_OAUTH_REGISTER_PER_MINUTE": "1", "SOSOAPI_OAUTH_AUTHORIZE_PER_MINUTE": "1"}


@pytest.mark.parametrize("server_env", [SLOW_REFILL])
@pytest.mark.own_server(reason="it counts the server's registrations against its bursts")
def test_one_address_is_rate_limited(served: ServeProcess) -> None:
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        answers = [
            http.post("/register", json=metadata(["https://a.example/cb"])) for _ in range(12)
        ]
        codes = [a.status_code for a in answers]
        assert codes[:10] == [201] * 10 and codes[10:] == [429, 429], codes
        assert int(answers[-1].headers["retry-after"]) >= 1
        client_id = answers[0].json()["client_id"]
        query = {
            "response_type": "code",
            "client_id": client_id,
            "code_challenge": "x" * 43,
            "code_challenge_method": "S256",
            "redirect_uri": "https://a.example/cb",
        }
        statuses = [http.get("/authorize", params=query).status_code for _ in range(32)]
        assert 429 in statuses and statuses.index(429) == 30, statuses


async def test_the_operator_sets_the_limits(tmp_path: Path) -> None:
    """SOSOAPI_OAUTH_* reach the gate `sosoapi serve` builds (its app in process: the
    limit is the store's business nowhere, so SQLite alone)."""
    env = {"SOSOAPI_HOME": str(tmp_path)}
    for name, value in (("REGISTER", "2"), ("AUTHORIZE", "3")):
        env |= {f"SOSOAPI_OAUTH_{name}_BURST": value, f"SOSOAPI_OAUTH_{name}_PER_MINUTE": "1"}
    async with (
        serve_app(env) as app,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as http,
    ):
        registered = [
            await http.post("/register", json=metadata(["https://a.example/cb"])) for _ in range(3)
        ]
        assert [r.status_code for r in registered] == [201, 201, 429]
        assert int(registered[-1].headers["retry-after"]) >= 1
        query = {
            "response_type": "code",
            "client_id": registered[0].json()["client_id"],
            "code_challenge": "x" * 43,
            "code_challenge_method": "S256",
            "redirect_uri": "https://a.example/cb",
        }
        statuses = [(await http.get("/authorize", params=query)).status_code for _ in range(4)]
        assert 429 not in statuses[:3] and statuses[3] == 429, statuses
