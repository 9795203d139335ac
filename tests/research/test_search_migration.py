"""Migration 0003 indexes the evidence stored before it, on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import text

from sosoapi.contract.models import Segment
from sosoapi.store.database import Database
from sosoapi.store.store import Store
from tests.support.migrations import NOW, WS, at_revision, insert_workspace, stored_content


def _at_0002(url: str) -> Database:
    return at_revision(url, "0002")


def test_existing_revisions_are_indexed_by_the_migration(database_url: str) -> None:
    db = _at_0002(database_url)
    cues = [
        Segment(start_ms=0, end_ms=1500, text="Die Brücke"),
        Segment(start_ms=1500, end_ms=3000, text="über den Fluss"),
    ]
    rows = [
        ("e1", 1, stored_content("The harbour froze in the long winter.", "en")),
        ("e1", 2, stored_content("The harbour thawed in the early spring.", "en")),
        ("e2", 1, stored_content("Die Brücke\nüber den Fluss", "de", cues)),
    ]
    with db.write() as conn:
        insert_workspace(conn)
        for evidence_id, latest in (("e1", 2), ("e2", 1)):
            conn.execute(
                text(
                    "INSERT INTO evidence (id, workspace_id, identity, kind, source_url, language, "
                    "latest_revision, created_at, updated_at) VALUES (:id, :ws, :id, 'url_text', "
                    "NULL, NULL, :latest, :now, :now)"
                ),
                {"id": evidence_id, "ws": WS, "latest": latest, "now": NOW},
            )
        for evidence_id, revision, content in rows:
            conn.execute(
                text(
                    "INSERT INTO evidence_revisions (evidence_id, revision, digest, content, "
                    "created_at) VALUES (:e, :r, :d, :c, :now)"
                ),
                {"e": evidence_id, "r": revision, "d": "0" * 64, "c": content, "now": NOW},
            )
    db.dispose()
    store = Store(database_url)  # migrates to head: 0003 indexes the rows above
    try:
        hits, more = store.search.search(WS, ["thawed"], kind=None, pins=None, offset=0, limit=10)
        assert [(h.evidence_id, h.revision) for h in hits] == [("e1", 2)] and not more
        [snippet] = hits[0].snippets
        assert (snippet.start, snippet.end) == (0, len("The harbour thawed in the early spring."))
        old, _ = store.search.search(WS, ["froze"], kind=None, pins=[("e1", 1)], offset=0, limit=10)
        assert [(h.evidence_id, h.revision) for h in old] == [("e1", 1)]
        latest, _ = store.search.search(WS, ["froze"], kind=None, pins=None, offset=0, limit=10)
        assert latest == []
        cue, _ = store.search.search(
            WS, ["uber den fluss"], kind=None, pins=None, offset=0, limit=10
        )
        assert [h.evidence_id for h in cue] == ["e2"]
        assert [(s.start, s.end, s.start_ms, s.end_ms) for s in cue[0].snippets] == [
            (11, 25, 1500, 3000)
        ]
    finally:
        store.close()
