"""Migrations 0008, 0009 and 0011 of PostgreSQL's search index: written directly (no GIN
pending list), `<`, `>`, `&` read as separators with old revisions indexed again, then a
pending list capped at 128 kB."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import sqlalchemy as sa

from sosoapi.store.database import Database
from sosoapi.store.search_repo import SearchRepository
from tests.support.migrations import insert_workspace

OPTIONS = "SELECT reloptions FROM pg_class WHERE oid = to_regclass('ix_evidence_passages_tsv')"


def test_the_gin_index_pending_list_is_none_then_capped(postgres_url: str) -> None:
    db = Database(postgres_url)
    db.migrate("0007")
    with db.read() as conn:
        assert conn.execute(sa.text(OPTIONS)).scalar_one() is None
    db.migrate("0008")
    with db.read() as conn:
        assert conn.execute(sa.text(OPTIONS)).scalar_one() == ["fastupdate=off"]
    db.migrate()
    with db.read() as conn:
        options = conn.execute(sa.text(OPTIONS)).scalar_one()
    db.dispose()
    assert sorted(options) == ["fastupdate=on", "gin_pending_list_limit=128"]


def test_revisions_indexed_before_0009_are_indexed_again(postgres_url: str) -> None:
    """Words after a literal `<script>` were dropped by PostgreSQL's parser; 0009 indexes
    every stored revision again with those characters as separators."""
    db = Database(postgres_url)
    db.migrate("0008")
    now = datetime.now(UTC)
    ws, evidence_id = str(uuid.uuid4()), str(uuid.uuid4())
    content = {"title": "Escaping", "text": "Write </div><script>alert(4) zeppelin harbour"}
    with db.write() as conn:
        insert_workspace(conn, ws, now)
        conn.execute(
            sa.text(
                "INSERT INTO evidence (id, workspace_id, identity, kind, latest_revision, "
                "created_at, updated_at) VALUES (:id, :ws, 'i', 'url_text', 1, :now, :now)"
            ),
            {"id": evidence_id, "ws": ws, "now": now},
        )
        conn.execute(
            sa.text(
                "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
                "created_at) VALUES (:id, 1, 'd', :content, :now)"
            ),
            {"id": evidence_id, "content": json.dumps(content), "now": now},
        )
        old_style = "to_tsvector('simple', :body)"  # what 0003-0008 stored for this text
        conn.execute(
            sa.text(
                "INSERT INTO evidence_passages (evidence_id, revision, part, pos_start, "
                f"pos_end, config, tsv) VALUES (:id, 1, 'text', 0, 45, 'simple', {old_style})"
            ),
            {"id": evidence_id, "body": content["text"]},
        )
    search = SearchRepository(db)
    hits, _ = search.search(ws, ["zeppelin"], kind=None, pins=None, offset=0, limit=5)
    assert hits == []
    db.migrate()
    hits, _ = search.search(ws, ["zeppelin"], kind=None, pins=None, offset=0, limit=5)
    db.dispose()
    assert [hit.evidence_id for hit in hits] == [evidence_id]
