"""`purge` gives the space it frees back to the disk (issue 36, item 8): on SQLite the
database is made auto_vacuum=INCREMENTAL and the purge cuts its file; PostgreSQL says it
cannot (autovacuum keeps the space for reuse; docs/deploy.md)."""

from __future__ import annotations

import os
import sqlite3
import uuid
from datetime import timedelta
from pathlib import Path

from sosoapi.application import Application
from sosoapi.clock import utcnow
from sosoapi.store.maintenance import purge_receipts, return_space, sqlite_path
from tests.support.calls import RETRIEVE
from tests.support.origin import HTTPSOrigin, Route


def page(n: int) -> bytes:
    """About 1.5 MB of markup that compresses poorly, so its capture is large."""
    words = " ".join(os.urandom(8).hex() for _ in range(80_000))
    return f"<html><body><h1>Page {n}</h1><p>{words}</p></body></html>".encode()


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


async def test_purge_returns_the_space_of_removed_captures_to_the_disk(
    application: Application, owner: tuple[str, str], origin: HTTPSOrigin
) -> None:
    ws, token = owner
    for n in range(3):
        origin.routes[f"/big{n}"] = Route(page(n))
        outcome = await application.research.call(
            RETRIEVE, token,
            {"workspace_id": ws, "url": origin.url(f"/big{n}"), "kind": "url_text",
             "mutation_id": str(uuid.uuid4())},
        )  # fmt: skip
        assert outcome.output.wire()["retrieval"]["state"] == "completed"
    db = application.store.db
    later = utcnow() + timedelta(days=3)
    path = sqlite_path(db.url)
    if path is None:  # PostgreSQL: nothing to cut here, and it says so
        assert purge_receipts(db, later, later).capture_blobs == 3
        assert return_space(db) is None
        return
    before = file_bytes(path)
    counts = purge_receipts(db, later, later)
    assert counts.captures >= 3 and counts.capture_blobs == 3
    returned = return_space(db)
    assert returned is not None and returned > 2_000_000
    after = file_bytes(path)
    assert before - after > 2_000_000, (before, after)
    with sqlite3.connect(path) as check:
        assert check.execute("PRAGMA freelist_count").fetchone()[0] == 0
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
