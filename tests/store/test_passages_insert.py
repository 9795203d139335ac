"""A revision's passages go into PostgreSQL's search index in one statement executed once
(not one execution per passage: each was an executor start-up in the backend and a set of
parameters adapted by the driver), with their ids in the passages' order and each row's
columns and `tsv` what a row-by-row insert gave."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from sosoapi.store.database import Database
from sosoapi.store.records import PassageRecord
from sosoapi.store.search_repo import index_revision
from tests.support.migrations import insert_workspace

PASSAGES = [
    PassageRecord("title", 0, 0, None, None, "The runner's café, naïve résumés"),
    PassageRecord("text", 0, 120, None, None, "Running quickly über die Straße, l'été"),
    PassageRecord("cue", 5, 9, 1_000, 2**40, "harbours and zeppelins " * 200),
    PassageRecord("text", 9, 12, None, None, ""),
]
# The row-by-row form this replaced: what each row must still hold.
ROW = (
    "SELECT CAST(:part AS varchar), :start, :end, CAST(:start_ms AS bigint), "
    "CAST(:end_ms AS bigint), CAST(:config AS varchar), "
    "CAST(to_tsvector(CAST(:config AS regconfig), :body) || to_tsvector('simple', :body) "
    "AS text)"
)
COLUMNS = "part, pos_start, pos_end, start_ms, end_ms, config, CAST(tsv AS text)"


def _evidence(conn: sa.Connection, evidence_id: str) -> None:
    conn.execute(
        sa.text(
            "INSERT INTO evidence (id, workspace_id, identity, kind, latest_revision, "
            "created_at, updated_at) VALUES (:id, 'w', :id, 'url_text', 1, "
            "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
        ),
        {"id": evidence_id},
    )


def test_a_revisions_passages_are_one_statement_on_postgres(postgres_url: str) -> None:
    db = Database(postgres_url)
    db.migrate()
    executed: list[tuple[str, bool]] = []

    def seen(*args: Any) -> None:
        executed.append((args[2], args[5]))  # statement, executemany

    try:
        with db.write() as conn:
            insert_workspace(conn, "w")
            for evidence_id in ("en", "de", "none"):
                _evidence(conn, evidence_id)
            sa.event.listen(db.engine, "before_cursor_execute", seen)
            index_revision(conn, "en", 1, "en", PASSAGES, "w")
            sa.event.remove(db.engine, "before_cursor_execute", seen)
            index_revision(conn, "de", 1, "de-AT", PASSAGES, "w")
            index_revision(conn, "none", 1, None, PASSAGES, "w")
        with db.read() as conn:
            for evidence_id, config in (("en", "english"), ("de", "german"), ("none", "simple")):
                rows = conn.execute(
                    sa.text(
                        f"SELECT {COLUMNS} FROM evidence_passages "
                        "WHERE evidence_id = :id ORDER BY id"
                    ),
                    {"id": evidence_id},
                ).all()
                expected = [
                    conn.execute(
                        sa.text(ROW),
                        {
                            "part": p.part,
                            "start": p.start,
                            "end": p.end,
                            "start_ms": p.start_ms,
                            "end_ms": p.end_ms,
                            "config": config,
                            "body": p.body,
                        },
                    ).one()
                    for p in PASSAGES
                ]
                assert [tuple(r) for r in rows] == [tuple(r) for r in expected]
    finally:
        db.dispose()
    assert len(executed) == 1
    statement, many = executed[0]
    assert statement.startswith("INSERT INTO evidence_passages")
    assert many is False
