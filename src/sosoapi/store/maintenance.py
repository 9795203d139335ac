"""Keeping the store's size and copies: purge old settled receipts, back up SQLite online.

Purge removes a retrieval receipt and its mutation row only when the receipt is settled,
its idempotency window (`valid_until`) is over, it settled before the cutoff, and no
sealed corpus pins the evidence revision it recorded. Evidence is never touched. Captures
(the exchanges behind revisions) made before the cutoff go too unless a sealed corpus pins
their revision, and with them every stored body no capture still points at.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import Connection, delete, select, tuple_
from sqlalchemy.engine import make_url

from sosoapi.contract.vocabulary import SETTLED_STATES
from sosoapi.files import private_output
from sosoapi.store.captures_repo import purge_captures
from sosoapi.store.database import Database
from sosoapi.store.tables import corpus_revisions, mutations, retrievals

BATCH = 500


@dataclass(frozen=True, slots=True)
class PurgeCounts:
    receipts: int
    mutations: int
    kept_pinned: int
    captures: int = 0
    capture_blobs: int = 0


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: str
    bytes: int
    integrity: str


def _pinned(conn: Connection) -> set[tuple[str, int]]:
    """Every (evidence_id, revision) some sealed corpus revision lists."""
    pins: set[tuple[str, int]] = set()
    for snapshot in conn.execute(select(corpus_revisions.c.snapshot)).scalars():
        for ref in json.loads(snapshot).get("evidence", []):
            pins.add((ref["evidence_id"], ref["revision"]))
    return pins


def purge_receipts(db: Database, settled_before: datetime, now: datetime) -> PurgeCounts:
    """Delete old settled retrieval receipts and their mutations in one transaction."""
    candidates = select(
        retrievals.c.id,
        retrievals.c.workspace_id,
        retrievals.c.mutation_id,
        retrievals.c.evidence_id,
        retrievals.c.evidence_revision,
    ).where(
        retrievals.c.state.in_(sorted(SETTLED_STATES)),
        retrievals.c.valid_until < now,
        retrievals.c.settled_at < settled_before,
    )
    with db.write() as conn:
        if not db.is_sqlite:  # (SQLite's write transaction already excludes every seal)
            # no seal commits until this purge has: one that did after `_pinned` read the
            # pins would lose the captures of the revisions it pins
            conn.exec_driver_sql("LOCK TABLE corpus_revisions IN SHARE ROW EXCLUSIVE MODE")
        pins = _pinned(conn)
        rows = conn.execute(candidates).all()
        doomed = [r for r in rows if (r.evidence_id, r.evidence_revision) not in pins]
        removed_mutations = 0
        for start in range(0, len(doomed), BATCH):
            batch = doomed[start : start + BATCH]
            conn.execute(delete(retrievals).where(retrievals.c.id.in_([r.id for r in batch])))
            keys = [(r.workspace_id, r.mutation_id) for r in batch]
            removed_mutations += conn.execute(
                delete(mutations).where(
                    tuple_(mutations.c.workspace_id, mutations.c.mutation_id).in_(keys)
                )
            ).rowcount
        removed_captures, removed_blobs = purge_captures(conn, pins, settled_before)
    return PurgeCounts(
        len(doomed), removed_mutations, len(rows) - len(doomed), removed_captures, removed_blobs
    )


INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL


def return_space(db: Database) -> int | None:
    """Give the pages a purge freed back to the disk; the bytes returned.

    SQLite keeps freed pages in its file for reuse. A database made with
    auto_vacuum=INCREMENTAL (every one since this version) moves them to the end and cuts
    the file there, then checkpoints the WAL so the file shrinks now. None where this
    cannot run: PostgreSQL (autovacuum makes the space reusable; returning it takes
    VACUUM FULL, docs/deploy.md), and an SQLite file made before (converted once offline,
    docs/operations.md).
    """
    if not db.is_sqlite:
        return None
    raw = db.engine.raw_connection()  # autocommit, as a checkpoint needs
    try:
        pragma = raw.cursor()
        if pragma.execute("PRAGMA auto_vacuum").fetchone()[0] != INCREMENTAL:
            return None
        page_size = pragma.execute("PRAGMA page_size").fetchone()[0]
        before = pragma.execute("PRAGMA page_count").fetchone()[0]
        # a script runs each statement to its end; `execute` would free a single page
        raw.executescript("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
        after = pragma.execute("PRAGMA page_count").fetchone()[0]
    finally:
        raw.close()
    return int((before - after) * page_size)


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL; None for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    return Path(parsed.database)


def backup_sqlite(source: Path, target: Path, *, replace: bool = False) -> BackupReport:
    """A consistent copy of a live SQLite database (the online backup API), then checked.

    Written as every command's output is (`sosoapi/files.py`: 0600, the copy holds every
    token hash; beside `target`, renamed into place), so a failed backup leaves no file
    that looks whole. FileExistsError when `target` exists and `replace` is off.
    """
    with private_output(target, replace=replace) as output:
        output.file.close()  # SQLite writes it by name
        live, copy = sqlite3.connect(source, timeout=15), sqlite3.connect(output.path)
        try:
            live.backup(copy)
            integrity = copy.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            copy.close()
            live.close()
        if integrity != "ok":
            raise ValueError(f"the backup copy failed its integrity check: {integrity}")
        output.keep()
    return BackupReport(str(target), target.stat().st_size, integrity)
