"""Migration 0008: PostgreSQL's search index is written directly (no GIN pending list),
so a search never scans unmerged entries linearly."""

from __future__ import annotations

import sqlalchemy as sa

from sosoapi.store.database import Database

OPTIONS = "SELECT reloptions FROM pg_class WHERE oid = to_regclass('ix_evidence_passages_tsv')"


def test_the_gin_index_has_no_pending_list(postgres_url: str) -> None:
    db = Database(postgres_url)
    db.migrate("0007")
    with db.read() as conn:
        assert conn.execute(sa.text(OPTIONS)).scalar_one() is None
    db.migrate()
    with db.read() as conn:
        assert conn.execute(sa.text(OPTIONS)).scalar_one() == ["fastupdate=off"]
    db.dispose()
