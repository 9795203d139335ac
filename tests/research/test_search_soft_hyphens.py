"""Migration 0010: revisions whose text holds soft hyphens are indexed again, so a word
the page hyphenated with `&shy;` is found whole; other revisions stay found."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from sosoapi.store.database import Database
from sosoapi.store.migrations import search_index_0010
from sosoapi.store.migrations.search_index_0010 import index_revision
from sosoapi.store.search_repo import SearchRepository
from tests.support.migrations import insert_workspace

# What 0003-0009 turned text into before indexing: the soft hyphen kept, a word split.
BEFORE_0010 = str.maketrans({"<": " ", ">": " ", "&": " ", "\x00": " "})
HYPHENATED = "Das Wein\u00adbau\u00adge\u00adbiet liegt ober\u00adhalb von Bozen."
PLAIN = "The harbour froze in the long winter."


def _insert(conn: sa.Connection, ws: str, evidence_id: str, text: str) -> None:
    now = datetime.now(UTC)
    conn.execute(
        sa.text(
            "INSERT INTO evidence (id, workspace_id, identity, kind, latest_revision, "
            "created_at, updated_at) VALUES (:id, :ws, :id, 'url_text', 1, :now, :now)"
        ),
        {"id": evidence_id, "ws": ws, "now": now},
    )
    content = json.dumps({"title": "t", "text": text}, ensure_ascii=False)
    conn.execute(
        sa.text(
            "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
            "created_at) VALUES (:id, 1, 'd', :content, :now)"
        ),
        {"id": evidence_id, "content": content, "now": now},
    )
    index_revision(conn, evidence_id, 1, content)


def test_revisions_with_soft_hyphens_are_indexed_again(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database(database_url)
    db.migrate("0009")
    ws, hyphenated, plain = (str(uuid.uuid4()) for _ in range(3))
    with monkeypatch.context() as patch, db.write() as conn:
        patch.setattr(search_index_0010, "_SEARCH_FORM", BEFORE_0010)
        insert_workspace(conn, ws, datetime.now(UTC))
        _insert(conn, ws, hyphenated, HYPHENATED)
        _insert(conn, ws, plain, PLAIN)
    search = SearchRepository(db)

    def found(word: str) -> list[str]:
        hits, _ = search.search(ws, [word], kind=None, pins=None, offset=0, limit=5)
        return [hit.evidence_id for hit in hits]

    try:
        assert found("Weinbaugebiet") == []
        db.migrate()
        assert found("Weinbaugebiet") == [hyphenated]
        assert found("oberhalb") == [hyphenated]
        assert found("froze") == [plain]
        [hit], _ = search.search(ws, ["Weinbaugebiet"], kind=None, pins=None, offset=0, limit=5)
        [snippet] = hit.snippets
        assert HYPHENATED[snippet.start : snippet.end] == HYPHENATED
    finally:
        db.dispose()
