"""A revision's write counts its bytes against the workspace last (store/evidence_repo.py):
on PostgreSQL the count's UPDATE holds the workspace's row until commit, so while the
write is still indexing its passages, another write of the same workspace is not held up
by it. The limit still holds: past it the write keeps nothing (test_workspace_storage.py).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from sosoapi.extract.passages import searchable
from sosoapi.store.evidence_repo import record_revision
from sosoapi.store.records import EvidenceWrite, PassageRecord
from sosoapi.store.store import Store

TEXT = "The harbour froze on the first day and the ferries stayed in port."
_WAITING = sa.text(
    "SELECT count(*) FROM pg_stat_activity WHERE pid = :pid AND wait_event_type = 'Lock'"
)
# The lock another count takes (an UPDATE of a non-key column); the key-share locks of the
# write's foreign keys do not conflict with it.
_ROW_FREE = sa.text("SELECT id FROM workspaces WHERE id = :ws FOR NO KEY UPDATE NOWAIT")


def _item(workspace_id: str) -> EvidenceWrite:
    content = json.dumps({"kind": "url_text", "title": "t", "text": TEXT})
    passage = PassageRecord("text", 0, len(TEXT), None, None, searchable(TEXT))
    return EvidenceWrite(
        workspace_id, str(uuid.uuid4()), "url_text", None, "en", "d", content, (passage,)
    )


def _write_in_thread(store: Store, workspace_id: str, pid: list[int]) -> threading.Thread:
    def run() -> None:
        with store.db.write() as conn:
            pid.append(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
            record_revision(store.db, conn, _item(workspace_id), datetime.now(UTC), 10**9)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _wait_until_blocked(engine: sa.Engine, pid: list[int], thread: threading.Thread) -> None:
    """Until the writer's backend waits on a lock (the passages table, held by the test)."""
    with engine.connect() as conn:
        while thread.is_alive():
            if pid and conn.execute(_WAITING, {"pid": pid[0]}).scalar_one():
                return
            time.sleep(0.01)
    pytest.fail("the write ended without waiting for the passages table")


def test_a_write_indexing_its_passages_does_not_hold_its_workspace_row(
    postgres_url: str,
) -> None:
    store = Store(postgres_url)
    ws = store.auth.create_workspace("w", datetime.now(UTC), is_local=False).id
    observer = sa.create_engine(postgres_url, poolclass=sa.pool.NullPool)
    pid: list[int] = []
    try:
        with observer.connect() as holder:
            holder.exec_driver_sql("BEGIN")
            holder.exec_driver_sql("LOCK TABLE evidence_passages IN SHARE MODE")
            writer = _write_in_thread(store, ws, pid)
            _wait_until_blocked(observer, pid, writer)
            with observer.connect() as other:
                other.exec_driver_sql("BEGIN")
                # Raises (lock not available) when the write counted its bytes first.
                assert other.execute(_ROW_FREE, {"ws": ws}).scalar_one() == ws
                other.exec_driver_sql("ROLLBACK")
            holder.exec_driver_sql("ROLLBACK")
        writer.join()
        with store.db.read() as conn:
            stored = conn.exec_driver_sql(
                "SELECT stored_bytes FROM workspaces WHERE id = %(ws)s", {"ws": ws}
            ).scalar_one()
        assert stored > 0  # counted, at the end
    finally:
        observer.dispose()
        store.close()
