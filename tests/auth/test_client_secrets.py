"""Only a confidential client's real secret authenticates at /token and /revoke: the stored
hash of it never does, in a urlencoded body, a multipart body, or HTTP Basic."""

from __future__ import annotations

import base64

import httpx
import pytest

from sosoapi.auth.tokens import hash_token
from sosoapi.testing.processes import shared_verify
from tests.support.oauth import ROOMY_RATES
from tests.support.services import ServeProcess

pytestmark = pytest.mark.slow
REDIRECT = "http://127.0.0.1:9/callback"
REFUSED = {"invalid_client", "unauthorized_client"}  # /token says the first, /revoke the second


@pytest.fixture
def server_env() -> dict[str, str]:
    return ROOMY_RATES  # the module's sign-ins share its server, one address


def register(http: httpx.Client, method: str) -> tuple[str, str]:
    answer = http.post(
        "/register",
        json={
            "client_name": "Confidential App",
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        },
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["client_id"], answer.json()["client_secret"]


def basic(client_id: str, secret: str, junk: str = "") -> dict[str, str]:
    encoded = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": "Basic " + junk + encoded}


def post_form(
    http: httpx.Client, path: str, fields: dict[str, str], encoding: str, **kw
) -> httpx.Response:
    if encoding == "urlencoded":
        return http.post(path, data=fields, **kw)
    # Every field as a text part of multipart/form-data (no file parts).
    return http.post(path, files={k: (None, v) for k, v in fields.items()}, **kw)


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_only_the_real_secret_authenticates_in_the_body(
    served: ServeProcess, encoding: str
) -> None:
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        client_id, secret = register(http, "client_secret_post")
        for path, fields, ok in (
            ("/revoke", {"token": "sosoapi_unknown"}, 200),
            ("/token", {"grant_type": "refresh_token", "refresh_token": "sosoapi_x"}, 400),
        ):
            real = post_form(
                http, path, {**fields, "client_id": client_id, "client_secret": secret}, encoding
            )
            assert real.status_code == ok, real.text  # authenticated; the token is unknown
            for forged in (hash_token(secret), hash_token(hash_token(secret)), "wrong"):
                sent = {**fields, "client_id": client_id, "client_secret": forged}
                refused = post_form(http, path, sent, encoding)
                assert refused.status_code == 401, (path, encoding, refused.text)
                assert refused.json()["error"] in REFUSED


def test_only_the_real_secret_authenticates_in_basic(served: ServeProcess) -> None:
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        client_id, secret = register(http, "client_secret_basic")
        form = {"grant_type": "refresh_token", "refresh_token": "sosoapi_x", "client_id": client_id}
        real = http.post("/token", data=form, headers=basic(client_id, secret))
        assert real.status_code == 400, real.text  # authenticated; the refresh token is unknown
        assert real.json()["error"] == "invalid_grant"
        stored = hash_token(secret)
        # The SDK decodes base64 leniently: characters outside the alphabet are skipped, so
        # a header our strict decoder refused used to reach it with the hash unhashed.
        for headers in (basic(client_id, stored), basic(client_id, stored, junk="!")):
            for path in ("/token", "/revoke"):
                for encoding in ("urlencoded", "multipart"):
                    sent = {**form, "token": "sosoapi_unknown"}
                    refused = post_form(http, path, sent, encoding, headers=headers)
                    assert refused.status_code == 401, refused.text
                    assert refused.json()["error"] in REFUSED


def test_a_file_part_is_refused_clearly(served: ServeProcess) -> None:
    with httpx.Client(base_url=served.base, timeout=30, verify=shared_verify()) as http:
        client_id, secret = register(http, "client_secret_post")
        refused = http.post(
            "/revoke",
            data={"token": "sosoapi_unknown", "client_id": client_id},
            files={"client_secret": ("secret.txt", hash_token(secret).encode())},
        )
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"] == "invalid_request"
        assert "client_secret" in refused.json()["error_description"]
