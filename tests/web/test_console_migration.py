"""Migration 0006 copies each stored result's status and reason into the new columns."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from sosoapi.store.database import Database
from tests.support.migrations import insert_workspace


def test_existing_retrievals_become_filterable(database_url: str) -> None:
    db = Database(database_url)
    db.migrate("0002")
    now = datetime.now(UTC)
    ws, results = (
        "00000000-0000-4000-8000-000000000001",
        {
            "a": {"status": "unavailable", "reason": "timeout"},
            "b": {"status": "ready", "reason": None},
            "c": None,
        },
    )
    with db.write() as conn:
        insert_workspace(conn, ws, now)
        for key, result in results.items():
            values = {"ws": ws, "m": key, "now": now, "until": now + timedelta(days=1)}
            conn.execute(
                sa.text(
                    "INSERT INTO mutations (workspace_id, mutation_id, tool, fingerprint, "
                    "arguments, created_at) VALUES (:ws, :m, 't', 'f', '{}', :now)"
                ),
                values,
            )
            conn.execute(
                sa.text(
                    "INSERT INTO retrievals (id, workspace_id, mutation_id, kind, url, state, "
                    "created_at, valid_until, result) VALUES (:m, :ws, :m, 'url_text', 'u', "
                    "'completed', :now, :until, :result)"
                ),
                {**values, "result": json.dumps(result) if result else None},
            )
    db.migrate()
    with db.read() as conn:
        got = {
            r.id: (r.status, r.reason)
            for r in conn.execute(sa.text("SELECT id, status, reason FROM retrievals"))
        }
        sessions = conn.execute(sa.text("SELECT count(*) FROM console_sessions")).scalar()
    db.dispose()
    assert got == {"a": ("unavailable", "timeout"), "b": ("ready", None), "c": (None, None)}
    assert sessions == 0
