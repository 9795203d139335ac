"""OAuth 2.1 grants: a consent request, the person's decision, codes and rotating tokens.

The SDK's authorization-server handlers validate the protocol (PKCE, redirect URIs,
client authentication); this module decides what is granted and stores it. A person
approves by pasting one of their personal tokens, so an OAuth grant never exceeds the
rights of a token that person already holds.
"""

from __future__ import annotations

import json
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sosoapi.auth.errors import AuthRefused
from sosoapi.auth.permission import Guard
from sosoapi.auth.tokens import approver_lapsed, hash_token, lapsed, new_token
from sosoapi.contract.errors import SosoapiError
from sosoapi.store.oauth_repo import OAuthRepository
from sosoapi.store.records import AuthorizationRecord, ClientRecord, GrantToken, TokenRecord

ACCESS_TTL = timedelta(hours=1)
REFRESH_TTL = timedelta(days=30)
REQUEST_TTL = timedelta(minutes=10)
CODE_TTL = timedelta(minutes=5)
DOCS_CLIENT_ID = "sosoapi-docs"  # the built-in public client Swagger UI at /docs signs in with
DOCS_REDIRECT_PATH = "/docs/oauth2-redirect"  # where the consent page sends it back with a code
CONSENT_PATH = "/oauth/consent"  # the page a consent request's handle opens (web/consent.py)
BUILTIN_CLIENTS = frozenset({DOCS_CLIENT_ID})
# What open registration may leave behind (docs/oauth.md, "What a flood costs"):
UNUSED_CLIENT_TTL = timedelta(hours=24)  # a client that never completed a sign-in
MAX_UNUSED_CLIENTS = 1000  # past it, the oldest such clients are removed
MAX_PENDING_REQUESTS = 2000  # undecided consent requests; past it, the oldest are removed
EXCHANGED_CODE_KEPT = timedelta(days=1)  # a used code's row, to catch its replay
REFRESH_GRACE = timedelta(seconds=30)  # a rotated refresh token may be retried this long
MAX_LIVE_REFRESH = 5  # live refresh tokens per grant that retries may fork


@dataclass(frozen=True, slots=True)
class Swept:
    requests: int
    clients: int


class GrantEnded(SosoapiError):
    """The personal token that approved a grant was revoked or expired: the grant is over."""


class ConsentRefused(SosoapiError):
    """The pasted token cannot approve this request; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A consent request as the page shows it."""

    client_id: str
    client_name: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Issued:
    access_token: str
    refresh_token: str
    expires_in: int
    scopes: list[str]


def _handle() -> str:
    """An unguessable one-time handle (request id, code): 256 random bits."""
    return secrets.token_urlsafe(32)


class OAuthGrants:
    def __init__(self, repo: OAuthRepository, guard: Guard) -> None:
        self.repo = repo
        self.guard = guard

    def register(
        self, client_id: str, secret: str | None, name: str, info: str, now: datetime
    ) -> None:
        secret_hash = hash_token(secret) if secret else None
        self.repo.add_client(ClientRecord(client_id, secret_hash, name, info), now)
        self.repo.trim_unused_clients(MAX_UNUSED_CLIENTS, BUILTIN_CLIENTS)

    def ensure_client(self, client_id: str, name: str, now: datetime) -> None:
        """A built-in public client (the API docs), recorded once so grants can name it."""
        self.repo.add_client(ClientRecord(client_id, None, name, "{}"), now, if_absent=True)

    def client(self, client_id: str) -> ClientRecord | None:
        return self.repo.client(client_id)

    def begin(self, client_id: str, params: dict[str, Any], now: datetime) -> str:
        """Open a consent request; returns its handle for the consent page URL."""
        request_id = _handle()
        self.repo.open_authorization(
            hash_token(request_id),
            client_id,
            json.dumps(params),
            now,
            now + REQUEST_TTL,
            max_pending=MAX_PENDING_REQUESTS,
        )
        return request_id

    def sweep(self, now: datetime) -> Swept:
        """Remove what open registration leaves behind: stale consent requests and codes,
        and clients that never completed a sign-in within `UNUSED_CLIENT_TTL`."""
        requests, clients = self.repo.sweep(
            now,
            unused_before=now - UNUSED_CLIENT_TTL,
            exchanged_before=now - EXCHANGED_CODE_KEPT,
            builtin=BUILTIN_CLIENTS,
        )
        return Swept(requests, clients)

    def pending(self, request_id: str, now: datetime) -> Pending | None:
        record = self.repo.authorization(hash_token(request_id))
        if record is None or record.decided_at is not None or record.expires_at <= now:
            return None
        client = self.repo.client(record.client_id)
        name = client.client_name if client else record.client_id
        return Pending(record.client_id, name, json.loads(record.params))

    def approve(self, request_id: str, token: str, now: datetime) -> tuple[str, Pending]:
        """Check the pasted personal token, then issue a code for its user."""
        pending = self.pending(request_id, now)
        if pending is None:
            raise ConsentRefused(_STALE)
        try:
            principal = self.guard.authenticate(token.strip(), now)
        except AuthRefused as refused:
            raise ConsentRefused(f"{refused.problem}; {refused.fix}") from None
        if principal.kind != "personal":
            raise ConsentRefused(
                "Paste a personal token (from `sosoapi init` or `sosoapi tokens create`), "
                "not one issued to an app."
            )
        missing = set(pending.params["scopes"]) - principal.scopes
        if missing:
            raise ConsentRefused(
                f"Your token lacks the scope {', '.join(sorted(missing))}; mint one with "
                f"`sosoapi tokens create --scope {sorted(missing)[0]}`."
            )
        code = _handle()
        if not self.repo.decide(
            hash_token(request_id),
            now,
            user_id=principal.user_id,
            code_hash=hash_token(code),
            code_expires_at=now + CODE_TTL,
            approver_token_id=principal.token_id,
        ):
            raise ConsentRefused(_STALE)
        return code, pending

    def deny(self, request_id: str, now: datetime) -> Pending | None:
        pending = self.pending(request_id, now)
        decided = self.repo.decide(
            hash_token(request_id), now, user_id=None, code_hash=None, code_expires_at=None
        )
        return pending if decided else None

    def code(self, code: str, client_id: str, now: datetime) -> AuthorizationRecord | None:
        """An approved, unused code of this client (expiry is judged by the caller).

        A code presented again after its exchange is a replay (RFC 6749 4.1.2): whatever
        the first exchange issued is revoked.
        """
        record = self.repo.by_code(hash_token(code))
        if record is None or record.client_id != client_id:
            return None
        if record.exchanged_at is not None:
            self._revoke_code_grant(code, now)
            return None
        return record if record.user_id else None

    def exchange(self, code: str, record: AuthorizationRecord, now: datetime) -> Issued:
        """Tokens for an approved code, if the approving personal token still holds."""
        params = json.loads(record.params)
        approver = self._approver(record.approver_token_id, now)
        try:
            return self._issue(
                record.user_id or "",
                record.client_id,
                params["scopes"],
                params["resource"],
                str(uuid.uuid4()),
                now,
                approver=approver,
                code_hash=hash_token(code),
            )
        except LookupError:
            self._revoke_code_grant(code, now)  # lost the race to another exchange: a replay
            raise

    def _revoke_code_grant(self, code: str, now: datetime) -> None:
        grant_id = self.repo.code_grant(hash_token(code))
        if grant_id is not None:
            self.repo.revoke_grant(grant_id, now)

    def _approver(self, token_id: str | None, now: datetime) -> TokenRecord | None:
        """The approving personal token, refused (`GrantEnded`) once revoked or expired."""
        if token_id is None:
            return None
        record = self.guard.repo.token_by_id(token_id)
        if record is None or lapsed(record, now) is not None:
            raise GrantEnded("the personal token that approved this sign-in was revoked or expired")
        return record

    def refresh_record(
        self, refresh_token: str, client_id: str, now: datetime
    ) -> TokenRecord | None:
        """The live refresh token of this client; a reused (revoked) one ends its grant."""
        record = self.guard.repo.token_by_hash(hash_token(refresh_token))
        if record is None or record.kind != "oauth_refresh" or record.client_id != client_id:
            return None
        if record.revoked_at is not None:
            if (
                self._in_grace(record, now)
                and approver_lapsed(record, now) is None
                and self.repo.live_refresh_tokens(record.grant_id or "", now) > 0
            ):
                return record  # a racing or retried refresh of the same client: rotate() says
            if record.grant_id:  # replay of a rotated token: assume theft, end the grant
                self.repo.revoke_grant(record.grant_id, now)
            return None
        if lapsed(record, now) is not None:  # expired, or its approving token ended
            if record.grant_id:
                self.repo.revoke_grant(record.grant_id, now)
            return None
        return record

    def rotate(self, record: TokenRecord, scopes: list[str], now: datetime) -> Issued:
        """A new pair for a refresh token; it is used up (rotation) unless this is a retry.

        Refreshes race: a client's parallel refreshes, or a retry whose first answer was
        lost, present one refresh token more than once. Within `REFRESH_GRACE` of its
        rotation, while its grant is live, the same client gets a fresh pair of the same
        grant instead of tripping reuse detection (at most `MAX_LIVE_REFRESH` live refresh
        tokens per grant); later, a rotated token is a replay and ends the grant.
        """
        approver = self._approver(record.approved_by, now)
        grant_id = record.grant_id or str(uuid.uuid4())
        args = (record.user_id, record.client_id or "", scopes, record.resource or "")
        if record.revoked_at is None:
            try:
                return self._issue(*args, grant_id, now, approver=approver, rotate=record)
            except LookupError:  # another refresh rotated it a moment ago
                fresh = self.guard.repo.token_by_id(record.id)
                if fresh is None or not self._in_grace(fresh, now):
                    raise
                record = fresh
        return self._issue(*args, grant_id, now, approver=approver, retry_of=record)

    @staticmethod
    def _in_grace(record: TokenRecord, now: datetime) -> bool:
        return (
            record.grant_id is not None
            and record.revoked_at is not None
            and now - record.revoked_at <= REFRESH_GRACE
        )

    def revoke(self, token: str, now: datetime) -> None:
        record = self.guard.repo.token_by_hash(hash_token(token))
        if record is not None and record.grant_id:
            self.repo.revoke_grant(record.grant_id, now)

    def _issue(
        self,
        user_id: str,
        client_id: str,
        scopes: list[str],
        resource: str,
        grant_id: str,
        now: datetime,
        approver: TokenRecord | None = None,
        rotate: TokenRecord | None = None,
        code_hash: str | None = None,
        retry_of: TokenRecord | None = None,
    ) -> Issued:
        """Issue a grant's pair; neither outlives the personal token that approved it."""
        access, refresh = new_token(), new_token()
        client = self.repo.client(client_id)
        ends = approver.expires_at if approver else None
        access_until = min(now + ACCESS_TTL, ends) if ends else now + ACCESS_TTL
        refresh_until = min(now + REFRESH_TTL, ends) if ends else now + REFRESH_TTL
        self.repo.issue(
            [
                GrantToken("oauth_access", hash_token(access), access_until),
                GrantToken("oauth_refresh", hash_token(refresh), refresh_until),
            ],
            user_id=user_id,
            client_id=client_id,
            scopes=frozenset(scopes),
            resource=resource,
            grant_id=grant_id,
            label=f"oauth: {client.client_name if client else client_id}",
            now=now,
            approved_by=approver.id if approver else None,
            rotate=rotate,
            code_hash=code_hash,
            retry=(retry_of, now - REFRESH_GRACE, MAX_LIVE_REFRESH) if retry_of else None,
        )
        expires_in = max(1, int((access_until - now).total_seconds()))
        return Issued(access, refresh, expires_in, sorted(scopes))


_STALE = (
    "This sign-in request has expired or was already answered; start the sign-in again "
    "from your app."
)
