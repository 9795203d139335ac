"""A workspace's search scores and order depend on its own evidence only, on both stores:
another workspace storing the same rare word (or a lot of anything) changes nothing here.

SQLite's bm25 used to count term frequencies and lengths over every workspace's passages
in one FTS5 table, so workspace A's score for a word fell from 1.165 to 1e-6 once B stored
it: A could learn what B's evidence says. Migration 0012 gives each workspace its table.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import sqlalchemy as sa

from sosoapi.extract.passages import searchable
from sosoapi.store.database import Database
from sosoapi.store.evidence_repo import record_revision
from sosoapi.store.migrations.search_index_0010 import index_revision
from sosoapi.store.records import EvidenceWrite, PassageRecord
from sosoapi.store.search_repo import SearchRepository
from sosoapi.store.store import Store
from tests.support.migrations import insert_workspace

A_TEXTS = [
    "The quokka smiles at visitors on Rottnest island every morning.",
    "Island ferries leave the harbour at nine and return at five.",
    "A quokka and a quokka family crossed the path near the lighthouse.",
]
B_TEXTS = [f"quokka quokka quokka note {i} about the quokka census" for i in range(6)]
B_NOISE = ["Long unrelated text " + "word " * 200 + str(i) for i in range(20)]


def write(store: Store, ws: str, texts: list[str]) -> list[str]:
    ids = []
    now = datetime.now(UTC)
    with store.db.write() as conn:
        for n, text in enumerate(texts):
            content = json.dumps({"kind": "url_text", "title": f"t{n}", "text": text})
            passage = PassageRecord("text", 0, len(text), None, None, searchable(text))
            item = EvidenceWrite(
                ws, f"{n}/{uuid.uuid4()}", "url_text", None, "en", f"d{n}", content, (passage,)
            )
            ids.append(record_revision(store.db, conn, item, now)[0])
    return ids


def ranked(store: Store, ws: str, *phrases: str) -> list[tuple[str, float]]:
    hits, _ = store.search.search(ws, list(phrases), kind=None, pins=None, offset=0, limit=50)
    return [(h.evidence_id, h.score) for h in hits]


def workspace(store: Store, name: str) -> str:
    return store.auth.create_workspace(name, datetime.now(UTC), is_local=False).id


def test_scores_do_not_depend_on_other_workspaces(database_url: str) -> None:
    store = Store(database_url)
    try:
        a, b = workspace(store, "a"), workspace(store, "b")
        write(store, a, A_TEXTS)
        before = {q: ranked(store, a, *q) for q in (("quokka",), ("island",), ("quokka", "path"))}
        assert len(before[("quokka",)]) == 2 and all(s > 0 for _, s in before[("quokka",)])
        write(store, b, B_TEXTS + B_NOISE)
        after = {q: ranked(store, a, *q) for q in before}
        assert after == before  # exact scores and order
        assert len(ranked(store, b, "quokka")) == 6  # B finds its own
        assert ranked(store, b, "lighthouse") == []  # and nothing of A's
    finally:
        store.db.dispose()


def _insert_at_0011(conn: sa.Connection, ws: str, text: str) -> str:
    """A revision written as the code of 0011 wrote it (0010's frozen copy: the shared table)."""
    evidence_id, now = str(uuid.uuid4()), datetime.now(UTC)
    conn.execute(
        sa.text(
            "INSERT INTO evidence (id, workspace_id, identity, kind, latest_revision, "
            "created_at, updated_at) VALUES (:id, :ws, :id, 'url_text', 1, :now, :now)"
        ),
        {"id": evidence_id, "ws": ws, "now": now},
    )
    content = json.dumps({"title": "t", "text": text})
    conn.execute(
        sa.text(
            "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
            "created_at) VALUES (:id, 1, 'd', :content, :now)"
        ),
        {"id": evidence_id, "content": content, "now": now},
    )
    index_revision(conn, evidence_id, 1, content)
    return evidence_id


def test_migration_0012_moves_each_workspace_to_its_own_index(database_url: str) -> None:
    db = Database(database_url)
    db.migrate("0011")
    with db.write() as conn:
        spaces = [str(uuid.uuid4()) for _ in range(2)]
        for ws in spaces:
            insert_workspace(conn, ws, datetime.now(UTC))
        mine = _insert_at_0011(conn, spaces[0], A_TEXTS[0])
        for text in B_TEXTS:
            _insert_at_0011(conn, spaces[1], text)
    try:
        db.migrate()
        search = SearchRepository(db)

        def mine_ranked() -> list[tuple[str, float]]:
            hits, _ = search.search(spaces[0], ["quokka"], kind=None, pins=None, offset=0, limit=5)
            return [(h.evidence_id, h.score) for h in hits]

        before = mine_ranked()
        assert [e for e, _ in before] == [mine]
        store = Store(database_url, migrate=False)
        try:
            write(store, spaces[1], B_TEXTS)  # after the move: still nothing to A
        finally:
            store.db.dispose()
        assert mine_ranked() == before
        theirs = search.search(spaces[1], ["quokka"], kind=None, pins=None, offset=0, limit=20)
        assert len(theirs[0]) == 2 * len(B_TEXTS)
        if db.is_sqlite:
            with db.read() as conn:
                shared = conn.exec_driver_sql(
                    "SELECT count(*) FROM sqlite_master WHERE name = 'evidence_fts'"
                ).scalar_one()
            assert shared == 0
    finally:
        db.dispose()
