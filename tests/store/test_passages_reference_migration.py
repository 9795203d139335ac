"""Migration 0019: PostgreSQL no longer checks each passage's evidence with a foreign key
(one query per inserted passage); SQLite keeps its key. On both stores a revision indexed
before the migration and one indexed after are found by the same search as before."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from sqlalchemy import Connection, text

from sosoapi.extract.passages import searchable
from sosoapi.store.database import Database
from sosoapi.store.evidence_repo import record_revision
from sosoapi.store.records import EvidenceWrite, PassageRecord
from sosoapi.store.store import Store
from tests.support.migrations import WS, at_revision, insert_workspace

_PG_KEYS = text(
    "SELECT count(*) FROM pg_constraint WHERE conrelid = to_regclass('evidence_passages') "
    "AND contype = 'f'"
)
_SQLITE_KEYS = text("SELECT count(*) FROM pragma_foreign_key_list('evidence_passages')")


def _keys(conn: Connection) -> int:
    return int(conn.execute(_SQLITE_KEYS if conn.dialect.name == "sqlite" else _PG_KEYS).scalar())


def _write(db: Database, words: str) -> str:
    content = json.dumps({"kind": "url_text", "title": "t", "text": words})
    passage = PassageRecord("text", 0, len(words), None, None, searchable(words))
    item = EvidenceWrite(WS, str(uuid.uuid4()), "url_text", None, "en", words, content, (passage,))
    with db.write() as conn:
        return record_revision(db, conn, item, datetime.now(UTC))[0]


def _found(store: Store, word: str) -> list[str]:
    hits, _ = store.search.search(WS, [word], kind=None, pins=None, offset=0, limit=10)
    return [hit.evidence_id for hit in hits]


def test_passages_lose_their_key_on_postgres_only_and_search_as_before(
    database_url: str,
) -> None:
    db = at_revision(database_url, "0018")
    with db.write() as conn:
        insert_workspace(conn)
        assert _keys(conn) == 1
    first = _write(db, "The harbour froze and the ferries stayed in port.")
    db.dispose()
    store = Store(database_url)  # migrates to head
    try:
        with store.db.read() as conn:
            assert _keys(conn) == (1 if store.db.is_sqlite else 0)
        second = _write(store.db, "Ferries left the frozen harbour at noon.")
        assert sorted(_found(store, "harbour")) == sorted([first, second])
        assert _found(store, "noon") == [second]
    finally:
        store.close()
