"""What open registration may store, both stores: redirect URIs a browser can safely be
sent to, short plain names, unused clients and consent requests swept and capped."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientInformationFull

from sosoapi.application import Application
from sosoapi.oauth import grants as oauth_module
from sosoapi.oauth.server import oauth_server
from sosoapi.store.tables import oauth_authorizations, oauth_clients

BASE = "http://127.0.0.1:8080"
T0 = datetime.now(UTC).replace(microsecond=0)
REFUSED_URIS = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "http://evil.example/callback",
    "https://app.example/callback#fragment",
    "vbscript:msgbox",
    "ftp://app.example/cb",
    "myapp:/callback",  # private-use schemes must be reverse-domain
    "https://app.example/" + "x" * 2100,
]
ACCEPTED_URIS = [
    "https://app.example/callback",
    "http://127.0.0.1:5000/callback",
    "http://[::1]/callback",
    "http://localhost:9/cb",
    "com.example.app:/oauth2redirect",
]


def info(client_id: str, uris: list[str], name: str = "Test App") -> OAuthClientInformationFull:
    return OAuthClientInformationFull.model_validate(
        {
            "client_id": client_id,
            "client_name": name,
            "redirect_uris": uris,
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
        }
    )


def rows(application: Application, table) -> int:
    import sqlalchemy as sa

    with application.store.db.read() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()


async def test_only_safe_redirect_uris_register(application: Application) -> None:
    provider = oauth_server(application.oauth, BASE).provider
    before = rows(application, oauth_clients)
    for n, uri in enumerate(REFUSED_URIS):
        with pytest.raises(RegistrationError) as refused:
            await provider.register_client(info(f"bad-{n}", ["https://ok.example/cb", uri]))
        assert refused.value.error == "invalid_redirect_uri", uri
        assert "redirect URI" in (refused.value.error_description or "")
    with pytest.raises(RegistrationError, match="at most 10"):
        await provider.register_client(
            info("many", [f"https://app.example/{i}" for i in range(11)])
        )
    assert rows(application, oauth_clients) == before  # nothing half-written
    await provider.register_client(info("good", ACCEPTED_URIS))
    assert (await provider.get_client("good")) is not None


@pytest.mark.parametrize(
    "name", ["x" * 101, "\u202eevil.exe", "a\u2066b", "bell\x07", "new\nline", "zero\u200bwidth"]
)
async def test_client_names_are_short_and_plain(application: Application, name: str) -> None:
    provider = oauth_server(application.oauth, BASE).provider
    with pytest.raises(RegistrationError) as refused:
        await provider.register_client(info("named", ["https://app.example/cb"], name))
    assert refused.value.error == "invalid_client_metadata"
    assert "client_name" in (refused.value.error_description or "")
    assert (await provider.get_client("named")) is None


async def test_a_stored_unsafe_client_is_unknown(application: Application) -> None:
    """Registered before the rules held: /authorize never sends a browser to its URIs."""
    provider = oauth_server(application.oauth, BASE).provider
    unsafe = info("old", ["javascript:alert(1)"])
    application.oauth.register("old", None, "Old", unsafe.model_dump_json(), T0)
    assert (await provider.get_client("old")) is None


async def test_the_sweeper_removes_stale_requests_and_unused_clients(
    application: Application,
) -> None:
    grants = application.oauth
    params = {"scopes": ["agent:research"], "resource": BASE + "/mcp"}
    grants.register("unused", None, "Unused", "{}", T0)
    grants.register("used", None, "Used", "{}", T0)
    import sqlalchemy as sa

    with application.store.db.write() as conn:  # as an exchange marks it
        conn.execute(
            sa.update(oauth_clients)
            .where(oauth_clients.c.client_id == "used")
            .values(authorized_at=T0)
        )
    grants.begin("unused", params, T0)
    grants.begin("used", params, T0 + timedelta(minutes=5))
    swept = grants.sweep(T0 + timedelta(minutes=11))
    assert (swept.requests, swept.clients) == (1, 0)
    assert rows(application, oauth_authorizations) == 1
    swept = grants.sweep(T0 + timedelta(hours=25))
    assert (swept.requests, swept.clients) == (1, 1)
    assert grants.client("unused") is None
    assert grants.client("used") is not None


async def test_unused_clients_and_pending_requests_are_capped_oldest_first(
    application: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(oauth_module, "MAX_UNUSED_CLIENTS", 3)
    monkeypatch.setattr(oauth_module, "MAX_PENDING_REQUESTS", 4)
    grants = application.oauth
    for i in range(5):
        grants.register(f"c{i}", None, f"C{i}", "{}", T0 + timedelta(seconds=i))
    kept = [grants.client(f"c{i}") is not None for i in range(5)]
    assert kept == [False, False, True, True, True]
    params = {"scopes": ["agent:research"], "resource": BASE + "/mcp"}
    handles = [grants.begin("c4", params, T0 + timedelta(seconds=10 + i)) for i in range(6)]
    assert rows(application, oauth_authorizations) == 4
    alive = [grants.pending(h, T0 + timedelta(seconds=20)) is not None for h in handles]
    assert alive == [False, False, True, True, True, True]
