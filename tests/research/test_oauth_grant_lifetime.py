"""An OAuth grant never outlives the personal token that approved it, and a second exchange
of a code revokes what the first issued (RFC 6749 4.1.2). Both stores, on a moved clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sosoapi.application import Application
from sosoapi.auth.admin import Admin
from sosoapi.auth.errors import AuthRefused
from sosoapi.auth.tokens import hash_token
from sosoapi.oauth.grants import GrantEnded, Issued, OAuthGrants

CLIENT = "client-under-test"
T0 = datetime.now(UTC).replace(microsecond=0)


def grants_of(application: Application) -> OAuthGrants:
    application.oauth.register(CLIENT, None, "Test App", "{}", T0)
    return application.oauth


def approved_code(grants: OAuthGrants, personal: str, now: datetime) -> str:
    params = {"scopes": ["agent:research"], "resource": "http://127.0.0.1:1/mcp"}
    request_id = grants.begin(CLIENT, params, now)
    code, _ = grants.approve(request_id, personal, now)
    return code


def sign_in(grants: OAuthGrants, personal: str, now: datetime) -> tuple[str, Issued]:
    code = approved_code(grants, personal, now)
    record = grants.code(code, CLIENT, now)
    assert record is not None
    return code, grants.exchange(code, record, now)


def mint(application: Application, expires_in: float | None = None) -> tuple[str, str]:
    admin = Admin(application.store.auth)
    _, owner = admin.init_local(T0)
    minted = admin.mint(owner.record.user_id, T0, expires_in=expires_in)
    return minted.token, minted.record.id


def refused(grants: OAuthGrants, token: str, now: datetime) -> str:
    with pytest.raises(AuthRefused) as caught:
        grants.guard.authenticate(token, now)
    return caught.value.problem


def grant_rows(application: Application, token: str) -> list:
    record = application.store.auth.token_by_hash(hash_token(token))
    assert record is not None and record.grant_id
    return [t for t in application.store.auth.list_tokens() if t.grant_id == record.grant_id]


async def test_a_grant_ends_when_its_approving_token_expires(application: Application) -> None:
    grants = grants_of(application)
    personal, _ = mint(application, expires_in=12)
    _, issued = sign_in(grants, personal, T0)
    # Both tokens of the grant end with the approval, and the client is told so.
    assert issued.expires_in <= 12
    for row in grant_rows(application, issued.access_token):
        assert row.expires_at is not None and row.expires_at <= T0 + timedelta(seconds=12)
    later = T0 + timedelta(seconds=14)
    assert grants.guard.authenticate(issued.access_token, T0 + timedelta(seconds=5))
    assert "expired" in refused(grants, personal, later)
    assert "expired" in refused(grants, issued.access_token, later)
    assert grants.refresh_record(issued.refresh_token, CLIENT, later) is None


async def test_a_grant_ends_when_its_approving_token_is_revoked(application: Application) -> None:
    grants = grants_of(application)
    personal, personal_id = mint(application)
    _, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    refresh = grants.refresh_record(issued.refresh_token, CLIENT, now)
    assert refresh is not None
    rotated = grants.rotate(refresh, ["agent:research"], now)  # the chain goes on ...
    assert Admin(application.store.auth).revoke(personal_id, now + timedelta(seconds=1))
    later = now + timedelta(seconds=2)
    # ... until the approving token is revoked: every token of the chain ends with it.
    for token in (issued.access_token, rotated.access_token):
        assert "revoked" in refused(grants, token, later)
    assert grants.refresh_record(rotated.refresh_token, CLIENT, later) is None
    assert all(t.revoked_at is not None for t in grant_rows(application, rotated.access_token))


async def test_the_approval_is_checked_on_every_use_not_only_at_revoke(
    application: Application,
) -> None:
    """Revoked behind the CLI's back (a direct update, another instance's old code): the
    check at use still ends the grant, and a refresh is refused and ends it for good."""
    import sqlalchemy as sa

    from sosoapi.store.tables import tokens

    grants = grants_of(application)
    personal, personal_id = mint(application)
    _, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    with application.store.db.write() as conn:
        conn.execute(sa.update(tokens).where(tokens.c.id == personal_id).values(revoked_at=now))
    later = now + timedelta(seconds=1)
    assert "personal token that approved it" in refused(grants, issued.access_token, later)
    assert grants.refresh_record(issued.refresh_token, CLIENT, later) is None
    assert all(t.revoked_at is not None for t in grant_rows(application, issued.access_token))


async def test_an_approved_code_is_not_exchanged_once_its_approver_ended(
    application: Application,
) -> None:
    grants = grants_of(application)
    personal, personal_id = mint(application)
    code = approved_code(grants, personal, T0)
    Admin(application.store.auth).revoke(personal_id, T0 + timedelta(seconds=1))
    now = T0 + timedelta(seconds=2)
    record = grants.code(code, CLIENT, now)
    assert record is not None
    with pytest.raises(GrantEnded):
        grants.exchange(code, record, now)


async def test_a_second_exchange_of_a_code_revokes_what_the_first_issued(
    application: Application,
) -> None:
    grants = grants_of(application)
    personal, _ = mint(application)
    code, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    refresh = grants.refresh_record(issued.refresh_token, CLIENT, now)
    assert refresh is not None
    rotated = grants.rotate(refresh, ["agent:research"], now)
    assert grants.guard.authenticate(rotated.access_token, now)
    # The code again: refused, and the grant it started (rotations included) is over.
    later = now + timedelta(seconds=1)
    assert grants.code(code, CLIENT, later) is None
    assert "revoked" in refused(grants, rotated.access_token, later)
    assert grants.refresh_record(rotated.refresh_token, CLIENT, later) is None


async def test_two_racing_exchanges_of_one_code_leave_nothing_live(
    application: Application,
) -> None:
    """Both loaded the code before either exchanged it: the loser's exchange fails and
    revokes the winner's tokens."""
    grants = grants_of(application)
    personal, _ = mint(application)
    code = approved_code(grants, personal, T0)
    first = grants.code(code, CLIENT, T0)
    second = grants.code(code, CLIENT, T0)
    assert first is not None and second is not None
    issued = grants.exchange(code, first, T0)
    with pytest.raises(LookupError):
        grants.exchange(code, second, T0)
    assert "revoked" in refused(grants, issued.access_token, T0 + timedelta(seconds=1))


# --- racing refreshes (issue 23 item 10) ---------------------------------------------------


async def test_a_refresh_retried_within_the_grace_gets_a_pair_not_a_revoked_grant(
    application: Application,
) -> None:
    grants = grants_of(application)
    personal, _ = mint(application)
    _, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    first = grants.refresh_record(issued.refresh_token, CLIENT, now)
    assert first is not None
    rotated = grants.rotate(first, ["agent:research"], now)
    # The same refresh token again, 5 s later (the first answer was lost): a fresh pair.
    retry_at = now + timedelta(seconds=5)
    again = grants.refresh_record(issued.refresh_token, CLIENT, retry_at)
    assert again is not None
    retried = grants.rotate(again, ["agent:research"], retry_at)
    for pair in (rotated, retried):
        assert grants.guard.authenticate(pair.access_token, retry_at)
    assert retried.refresh_token != rotated.refresh_token


async def test_racing_refreshes_all_succeed_and_reuse_after_the_grace_still_ends_the_grant(
    application: Application,
) -> None:
    grants = grants_of(application)
    personal, _ = mint(application)
    _, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    # Four refreshes that all read the token before any rotated it.
    loaded = [grants.refresh_record(issued.refresh_token, CLIENT, now) for _ in range(4)]
    pairs = [grants.rotate(r, ["agent:research"], now) for r in loaded if r is not None]
    assert len(pairs) == 4 and len({p.refresh_token for p in pairs}) == 4
    # A fifth fork would pass the cap of live refresh tokens: refused, the grant kept.
    for _ in range(2):
        extra = grants.refresh_record(issued.refresh_token, CLIENT, now)
        assert extra is not None
        try:
            pairs.append(grants.rotate(extra, ["agent:research"], now))
        except LookupError:
            break
    else:
        raise AssertionError("retries were not capped")
    assert grants.guard.authenticate(pairs[0].access_token, now)
    # Past the grace, the rotated token is a replay: assumed stolen, the grant ends.
    late = now + timedelta(seconds=31)
    assert grants.refresh_record(issued.refresh_token, CLIENT, late) is None
    for pair in pairs:
        assert "revoked" in refused(grants, pair.access_token, late)


async def test_no_grace_for_a_revoked_grant_or_another_client(application: Application) -> None:
    grants = grants_of(application)
    application.oauth.register("other-client", None, "Other", "{}", T0)
    personal, _ = mint(application)
    _, issued = sign_in(grants, personal, T0)
    now = T0 + timedelta(seconds=1)
    record = grants.refresh_record(issued.refresh_token, CLIENT, now)
    assert record is not None
    rotated = grants.rotate(record, ["agent:research"], now)
    assert grants.refresh_record(issued.refresh_token, "other-client", now) is None
    stale = grants.refresh_record(issued.refresh_token, CLIENT, now)
    assert stale is not None  # a retry within the grace, loaded ...
    grants.revoke(rotated.access_token, now)  # ... when the client signs out: the grant ends
    assert grants.refresh_record(issued.refresh_token, CLIENT, now) is None
    with pytest.raises(LookupError):
        grants.rotate(stale, ["agent:research"], now)  # nothing live to join
