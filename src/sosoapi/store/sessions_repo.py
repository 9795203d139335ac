"""Review-console sign-in sessions, stored only as a SHA-256 hash of their secret."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import select, update

from sosoapi.store.auth_repo import token_record
from sosoapi.store.database import Database
from sosoapi.store.records import SessionRecord, TokenRecord, utc
from sosoapi.store.tables import console_sessions, tokens


class SessionRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self, session_hash: str, token_id: str, now: datetime, expires_at: datetime
    ) -> SessionRecord:
        record = SessionRecord(str(uuid.uuid4()), token_id, now, expires_at, None)
        with self.db.write() as conn:
            conn.execute(
                console_sessions.insert().values(
                    id=record.id,
                    session_hash=session_hash,
                    token_id=token_id,
                    created_at=now,
                    expires_at=expires_at,
                    revoked_at=None,
                )
            )
        return record

    def by_hash(self, session_hash: str) -> tuple[SessionRecord, TokenRecord] | None:
        """The session and the token it was opened with, read together."""
        query = (
            select(
                console_sessions.c.id.label("session_id"),
                console_sessions.c.created_at.label("session_created_at"),
                console_sessions.c.expires_at.label("session_expires_at"),
                console_sessions.c.revoked_at.label("session_revoked_at"),
                tokens,
            )
            .join(tokens, tokens.c.id == console_sessions.c.token_id)
            .where(console_sessions.c.session_hash == session_hash)
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        m = row._mapping
        session = SessionRecord(
            m["session_id"],
            m["id"],
            utc(m["session_created_at"]),
            utc(m["session_expires_at"]),
            utc(m["session_revoked_at"]),
        )
        return session, token_record(row)

    def revoke(self, session_hash: str, now: datetime) -> bool:
        with self.db.write() as conn:
            result = conn.execute(
                update(console_sessions)
                .where(
                    console_sessions.c.session_hash == session_hash,
                    console_sessions.c.revoked_at.is_(None),
                )
                .values(revoked_at=now)
            )
        return result.rowcount == 1
