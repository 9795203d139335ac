"""The SQLite search index as migration 0012 writes it: one FTS5 table per workspace.

A frozen copy, like `search_index_0010.py` (whose passages, cut from the stored JSON and
in search form, are unchanged and reused here): the table's name and DDL as they were at
revision 0012, so the migration does tomorrow what it did the day it was written. The
running code's `search_repo.fts_table` names the same tables; a test checks that a
migrated database is searched.
"""

from __future__ import annotations

import hashlib
import json

from sqlalchemy import Connection, text

from sosoapi.store.migrations.search_index_0010 import _PG_CONFIGS, _folded, _passages

_USING = "USING fts5(body, content='', tokenize='porter unicode61 remove_diacritics 2')"
_SQLITE_INSERT = (
    "INSERT INTO evidence_passages (id, evidence_id, revision, part, pos_start, pos_end, "
    "start_ms, end_ms, config) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def fts_table(workspace_id: str) -> str:
    return "evidence_fts_" + hashlib.sha256(workspace_id.encode()).hexdigest()[:32]


def index_revision(
    conn: Connection, evidence_id: str, revision: int, content: str, workspace_id: str
) -> None:
    """Index one stored revision into its workspace's table (SQLite only)."""
    data = json.loads(content)
    language = (data.get("provenance") or {}).get("language") or ""
    config = _PG_CONFIGS.get(language.split("-")[0].lower(), "simple")
    rows = _passages(data)
    if not rows:
        return
    table = fts_table(workspace_id)
    conn.exec_driver_sql(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} {_USING}")
    first = conn.execute(text("SELECT coalesce(max(id), 0) + 1 FROM evidence_passages"))
    numbered = list(enumerate(rows, start=first.scalar_one()))
    conn.exec_driver_sql(
        _SQLITE_INSERT,
        [(n, evidence_id, revision, p, a, b, s, e, config) for n, (p, a, b, s, e, _) in numbered],
    )
    conn.exec_driver_sql(
        f"INSERT INTO {table} (rowid, body) VALUES (?, ?)",  # noqa: S608 - a hex name
        [(n, _folded(r[5])) for n, r in numbered],
    )
