"""Captures: the exchanges behind each revision, bodies kept once per SHA-256.

A body arrives compressed (`records.CaptureWrite` packs it when built, before the write
begins) and is stored in `capture_blobs` under its digest, so a page
fetched unchanged a hundred times costs one blob; `captures` rows point at it. The writes
run inside the transaction that records the revision, so a revision and its captures
are kept or lost together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, exists, func, select

from sosoapi.store.bodies import BODY_CODEC, inflate_body
from sosoapi.store.database import Database
from sosoapi.store.records import CaptureRecord, CaptureWrite, utc
from sosoapi.store.tables import capture_blobs, captures, evidence
from sosoapi.store.usage import give_back


def write_captures(
    db: Database,
    conn: Connection,
    evidence_id: str,
    revision: int,
    items: Sequence[CaptureWrite],
) -> None:
    """Store `items` for one revision inside the caller's transaction."""
    for seq, item in enumerate(items):
        digest = item.body_sha256
        conn.execute(
            _blob_upsert(db),
            {"sha256": digest, "size": len(item.body), "codec": BODY_CODEC, "data": item.packed},
        )
        conn.execute(
            captures.insert(),
            {
                "evidence_id": evidence_id,
                "revision": revision,
                "seq": seq,
                "role": item.role,
                "url": item.url,
                "retrieved_at": item.retrieved_at,
                "ip": item.ip,
                "status": item.status,
                "meta": item.meta,
                "body_sha256": digest,
            },
        )


def _blob_upsert(db: Database) -> Any:
    """Store a body once per digest, and keep it for this transaction's capture rows.

    SQLite has one writer at a time, so a purge cannot remove a blob between this and the
    capture row that points at it. On PostgreSQL it could: a body already stored is
    "updated" to itself, which locks its row until commit, and `purge_captures` skips
    locked rows (a purge that locked it first commits its delete, then this inserts it
    anew). The update keeps the stored value: its TOASTed data is not rewritten."""
    statement = db.insert(capture_blobs)
    if db.is_sqlite:
        return statement.on_conflict_do_nothing(index_elements=["sha256"])
    return statement.on_conflict_do_update(
        index_elements=["sha256"], set_={"size": capture_blobs.c.size}
    )


class CaptureRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def of_revision(
        self, workspace_id: str, evidence_id: str, revision: int
    ) -> list[CaptureRecord]:
        """One revision's captures in the order they were made (bodies inflated): one
        revision at a time, so an export holds one page's bytes, not a corpus's."""
        query = (
            select(captures, capture_blobs.c.codec, capture_blobs.c.data)
            .join(capture_blobs, capture_blobs.c.sha256 == captures.c.body_sha256)
            .join(evidence, evidence.c.id == captures.c.evidence_id)
            .where(
                evidence.c.workspace_id == workspace_id,
                captures.c.evidence_id == evidence_id,
                captures.c.revision == revision,
            )
            .order_by(captures.c.seq)
        )
        with self.db.read() as conn:
            rows = conn.execute(query).all()
        return [
            CaptureRecord(
                evidence_id=r.evidence_id,
                revision=r.revision,
                seq=r.seq,
                role=r.role,
                url=r.url,
                retrieved_at=utc(r.retrieved_at),
                ip=r.ip,
                status=r.status,
                meta=r.meta,
                body_sha256=r.body_sha256,
                body=inflate_body(r.codec, bytes(r.data)),
            )
            for r in rows
        ]


def purge_captures(
    conn: Connection, pins: set[tuple[str, int]], created_before: datetime
) -> tuple[int, int]:
    """Delete captures made before the cutoff that no sealed corpus pins, then every blob
    no capture points at; (captures, blobs) removed. Each workspace's stored bytes go
    down by the stored size of its captures removed (store/usage.py)."""
    rows = conn.execute(
        select(
            captures.c.id,
            captures.c.evidence_id,
            captures.c.revision,
            evidence.c.workspace_id,
            func.length(capture_blobs.c.data).label("stored"),
        )
        .join(evidence, evidence.c.id == captures.c.evidence_id)
        .join(capture_blobs, capture_blobs.c.sha256 == captures.c.body_sha256)
        .where(captures.c.retrieved_at < created_before)
    ).all()
    doomed = [r for r in rows if (r.evidence_id, r.revision) not in pins]
    freed: Counter[str] = Counter()
    for row in doomed:
        freed[row.workspace_id] += row.stored
    ids = [r.id for r in doomed]
    for start in range(0, len(ids), 500):
        conn.execute(delete(captures).where(captures.c.id.in_(ids[start : start + 500])))
    give_back(conn, freed)
    unused = select(capture_blobs.c.sha256).where(
        ~exists().where(captures.c.body_sha256 == capture_blobs.c.sha256)
    )
    if conn.dialect.name != "sqlite":  # a blob a retrieval is writing is locked: skip it
        unused = unused.with_for_update(skip_locked=True)
    blobs = conn.execute(delete(capture_blobs).where(capture_blobs.c.sha256.in_(unused)))
    return len(doomed), blobs.rowcount
