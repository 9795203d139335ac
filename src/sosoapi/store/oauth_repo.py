"""OAuth clients and authorizations (consent request -> code -> exchange), and grant tokens.

Every secret (client secret, request handle, code, token) is stored only as its hash;
state changes are conditional updates, so a code or refresh token is used at most once.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Connection, Select, delete, func, or_, select, update

from sosoapi.store.database import Database
from sosoapi.store.records import AuthorizationRecord, ClientRecord, GrantToken, TokenRecord, utc
from sosoapi.store.tables import oauth_authorizations, oauth_clients, tokens


def _authorization(row: object) -> AuthorizationRecord:
    m = row._mapping  # type: ignore[attr-defined]
    return AuthorizationRecord(
        client_id=m["client_id"],
        params=m["params"],
        user_id=m["user_id"],
        expires_at=utc(m["expires_at"]),
        decided_at=utc(m["decided_at"]),
        exchanged_at=utc(m["exchanged_at"]),
        approver_token_id=m["approver_token_id"],
        grant_id=m["grant_id"],
    )


class OAuthRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add_client(self, client: ClientRecord, now: datetime, *, if_absent: bool = False) -> None:
        """Record a client; with `if_absent`, leave an existing one (instances start together)."""
        stmt = self.db.insert(oauth_clients).values(
            client_id=client.client_id,
            secret_hash=client.secret_hash,
            client_name=client.client_name,
            info=client.info,
            created_at=now,
        )
        if if_absent:
            stmt = stmt.on_conflict_do_nothing(index_elements=["client_id"])
        with self.db.write() as conn:
            conn.execute(stmt)

    def client(self, client_id: str) -> ClientRecord | None:
        query = select(oauth_clients).where(oauth_clients.c.client_id == client_id)
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        m = row._mapping
        return ClientRecord(m["client_id"], m["secret_hash"], m["client_name"], m["info"])

    def open_authorization(
        self,
        id_hash: str,
        client_id: str,
        params: str,
        now: datetime,
        expires_at: datetime,
        *,
        max_pending: int | None = None,
    ) -> int:
        """Open a consent request; past `max_pending` undecided ones, the oldest go.

        Returns how many were removed to make room.
        """
        t = oauth_authorizations.c
        with self.db.write() as conn:
            conn.execute(
                oauth_authorizations.insert().values(
                    id_hash=id_hash,
                    client_id=client_id,
                    params=params,
                    created_at=now,
                    expires_at=expires_at,
                )
            )
            if max_pending is None:
                return 0
            keep = (
                select(t.id_hash)
                .where(t.decided_at.is_(None))
                .order_by(t.created_at.desc(), t.id_hash.desc())
                .limit(max_pending)
            )
            removed = conn.execute(
                delete(oauth_authorizations).where(
                    t.decided_at.is_(None), t.id_hash.not_in(keep.scalar_subquery())
                )
            )
        return removed.rowcount

    def trim_unused_clients(self, keep: int, builtin: frozenset[str]) -> int:
        """Past `keep` clients that never completed a sign-in, remove the oldest."""
        c = oauth_clients.c
        with self.db.write() as conn:
            unused = (
                select(c.client_id)
                .where(c.authorized_at.is_(None), c.client_id.not_in(builtin))
                .order_by(c.created_at.desc(), c.client_id.desc())
                .offset(keep)
            )
            doomed = [r.client_id for r in conn.execute(unused)]
            return _remove_clients(conn, doomed)

    def sweep(
        self,
        now: datetime,
        *,
        unused_before: datetime,
        exchanged_before: datetime,
        builtin: frozenset[str],
    ) -> tuple[int, int]:
        """Remove stale consent requests and codes, then clients that never signed in.

        An exchanged code's row is kept until `exchanged_before` so that a replay of the
        code still finds, and revokes, the grant it issued.
        """
        a, c = oauth_authorizations.c, oauth_clients.c
        with self.db.write() as conn:
            stale = conn.execute(
                delete(oauth_authorizations).where(
                    a.expires_at < now,
                    or_(a.exchanged_at.is_(None), a.exchanged_at < exchanged_before),
                )
            ).rowcount
            unused = select(c.client_id).where(
                c.authorized_at.is_(None),
                c.created_at < unused_before,
                c.client_id.not_in(builtin),
            )
            doomed = [r.client_id for r in conn.execute(unused)]
            return stale, _remove_clients(conn, doomed)

    def authorization(self, id_hash: str) -> AuthorizationRecord | None:
        query = select(oauth_authorizations).where(oauth_authorizations.c.id_hash == id_hash)
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return _authorization(row) if row else None

    def by_code(self, code_hash: str) -> AuthorizationRecord | None:
        query = select(oauth_authorizations).where(oauth_authorizations.c.code_hash == code_hash)
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return _authorization(row) if row else None

    def decide(
        self,
        id_hash: str,
        now: datetime,
        *,
        user_id: str | None,
        code_hash: str | None,
        code_expires_at: datetime | None,
        approver_token_id: str | None = None,
    ) -> bool:
        """Record the person's decision once, while the request is pending and fresh."""
        values: dict[str, object] = {
            "decided_at": now,
            "user_id": user_id,
            "code_hash": code_hash,
            "approver_token_id": approver_token_id,
        }
        if code_expires_at is not None:
            values["expires_at"] = code_expires_at
        t = oauth_authorizations.c
        with self.db.write() as conn:
            result = conn.execute(
                update(oauth_authorizations)
                .where(t.id_hash == id_hash, t.decided_at.is_(None), t.expires_at > now)
                .values(**values)
            )
        return result.rowcount == 1

    def code_grant(self, code_hash: str) -> str | None:
        """The grant a code's exchange issued (None: not exchanged, or no such code)."""
        t = oauth_authorizations.c
        with self.db.read() as conn:
            return conn.execute(select(t.grant_id).where(t.code_hash == code_hash)).scalar()

    def issue(
        self,
        grant: list[GrantToken],
        *,
        user_id: str,
        client_id: str,
        scopes: frozenset[str],
        resource: str,
        grant_id: str,
        label: str,
        now: datetime,
        approved_by: str | None = None,
        rotate: TokenRecord | None = None,
        code_hash: str | None = None,
        retry: tuple[TokenRecord, datetime, int] | None = None,
    ) -> None:
        """Insert a grant's tokens; with `rotate`, only if that refresh token was still live;
        with `code_hash`, only if that code was still unused (it is marked used, with the
        grant, in the same transaction).

        Rotation revokes the old refresh token and every other live token of the grant in
        the same transaction, so two exchanges of one refresh token cannot both succeed;
        likewise two exchanges of one code. `LookupError` when the token or code was used.
        With `retry` (the rotated refresh token, the earliest rotation time still retried,
        the cap on live refresh tokens), a new pair joins the grant beside the live one,
        only while the grant is live and under the cap: `LookupError` otherwise.
        """
        with self.db.write() as conn:
            if retry is not None:
                old, since, cap = retry
                rotated_at = conn.execute(
                    select(tokens.c.revoked_at).where(tokens.c.id == old.id)
                ).scalar()
                live = conn.execute(_live_refresh(grant_id, now)).scalar_one()
                if rotated_at is None or utc(rotated_at) < since or not 0 < live < cap:
                    raise LookupError("refresh token already used")
            if code_hash is not None:
                a = oauth_authorizations.c
                used = conn.execute(
                    update(oauth_authorizations)
                    .where(a.code_hash == code_hash, a.exchanged_at.is_(None))
                    .values(exchanged_at=now, grant_id=grant_id)
                )
                if used.rowcount != 1:
                    raise LookupError("authorization code already used")
                conn.execute(
                    update(oauth_clients)
                    .where(
                        oauth_clients.c.client_id == client_id,
                        oauth_clients.c.authorized_at.is_(None),
                    )
                    .values(authorized_at=now)
                )
            if rotate is not None:
                used = conn.execute(
                    update(tokens)
                    .where(tokens.c.id == rotate.id, tokens.c.revoked_at.is_(None))
                    .values(revoked_at=now)
                )
                if used.rowcount != 1:
                    raise LookupError("refresh token already used")
                conn.execute(
                    update(tokens)
                    .where(tokens.c.grant_id == grant_id, tokens.c.revoked_at.is_(None))
                    .values(revoked_at=now)
                )
            for token in grant:
                conn.execute(
                    tokens.insert().values(
                        id=str(uuid.uuid4()),
                        user_id=user_id,
                        token_hash=token.token_hash,
                        label=label,
                        scopes=" ".join(sorted(scopes)),
                        created_at=now,
                        expires_at=token.expires_at,
                        revoked_at=None,
                        kind=token.kind,
                        client_id=client_id,
                        resource=resource,
                        grant_id=grant_id,
                        approved_by=approved_by,
                    )
                )

    def live_refresh_tokens(self, grant_id: str, now: datetime) -> int:
        with self.db.read() as conn:
            return conn.execute(_live_refresh(grant_id, now)).scalar_one()

    def revoke_grant(self, grant_id: str, now: datetime) -> int:
        with self.db.write() as conn:
            result = conn.execute(
                update(tokens)
                .where(tokens.c.grant_id == grant_id, tokens.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return result.rowcount

    def client_names(self) -> dict[str, str]:
        with self.db.read() as conn:
            rows = conn.execute(select(oauth_clients.c.client_id, oauth_clients.c.client_name))
            return {r.client_id: r.client_name for r in rows}


def _remove_clients(conn: Connection, client_ids: list[str]) -> int:
    """Clients and their consent requests (they hold no tokens: none signed in)."""
    removed = 0
    for start in range(0, len(client_ids), 500):
        batch = client_ids[start : start + 500]
        conn.execute(
            delete(oauth_authorizations).where(oauth_authorizations.c.client_id.in_(batch))
        )
        removed += conn.execute(
            delete(oauth_clients).where(oauth_clients.c.client_id.in_(batch))
        ).rowcount
    return removed


def _live_refresh(grant_id: str, now: datetime) -> Select[int]:
    return (
        select(func.count())
        .select_from(tokens)
        .where(
            tokens.c.grant_id == grant_id,
            tokens.c.kind == "oauth_refresh",
            tokens.c.revoked_at.is_(None),
            tokens.c.expires_at > now,
        )
    )
