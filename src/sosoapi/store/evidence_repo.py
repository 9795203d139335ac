"""Evidence and its revisions: a new revision only when the content digest changes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, bindparam, func, select, tuple_, update

from sosoapi.store.captures_repo import write_captures
from sosoapi.store.database import Database
from sosoapi.store.keyset_pages import page, split
from sosoapi.store.records import EvidenceListRow, EvidenceRevisionRecord, EvidenceWrite, utc
from sosoapi.store.search_repo import index_revision
from sosoapi.store.tables import evidence, evidence_revisions
from sosoapi.store.usage import charge, revision_bytes


def record_revision(
    db: Database, conn: Connection, item: EvidenceWrite, now: datetime, storage_limit: int = 0
) -> tuple[str, int]:
    """Write `item` inside the caller's transaction; return (evidence_id, revision).

    A new revision is counted against its workspace's storage last: past `storage_limit`
    bytes (0: none) it raises `StorageFull` and the caller's transaction keeps nothing of
    it. The count's UPDATE holds the workspace's row until commit, and every retrieval of
    the workspace counts there: taken first, it was held while the revision's passages
    were indexed, and concurrent retrievals queued on it (bench/README.md, "PostgreSQL's
    CPU per retrieval")."""
    evidence_id, latest = _evidence_of(db, conn, item, now)
    if latest:
        latest_of = {"evidence_id": evidence_id, "revision": latest}
        if conn.execute(_LATEST_DIGEST, latest_of).scalar_one() == item.digest:
            return evidence_id, latest
    revision = latest + 1
    conn.execute(
        _ADD_REVISION,
        {
            "evidence_id": evidence_id,
            "revision": revision,
            "digest": item.digest,
            "content": item.content,
            "created_at": now,
            "whole": item.whole,
            "citation": item.citation,
        },
    )
    if latest:  # a new evidence (latest 0) is added at its first revision
        conn.execute(
            _MOVE_LATEST, {"evidence_id": evidence_id, "revision": revision, "updated_at": now}
        )
    index_revision(conn, evidence_id, revision, item.language, item.passages, item.workspace_id)
    write_captures(db, conn, evidence_id, revision, item.captures)
    charge(conn, item.workspace_id, revision_bytes(item), storage_limit)
    return evidence_id, revision


def _evidence_of(
    db: Database, conn: Connection, item: EvidenceWrite, now: datetime
) -> tuple[str, int]:
    """`item`'s evidence and its latest revision: 0 for one added here (a stored evidence
    has at least one revision), which is added at revision 1 already.

    A new evidence (most retrievals) is added at its first revision and read back from
    the insert: one statement, where adding it at 0, reading it back and moving it to 1
    took three. Added by this transaction, no other can write it before it ends; an
    existing one is read (on PostgreSQL, locked) as it stands."""
    statements = db.prepared(_RevisionStatements.build)
    added = conn.execute(
        statements.add_evidence,
        {
            "id": str(uuid.uuid4()),
            "workspace_id": item.workspace_id,
            "identity": item.identity,
            "kind": item.kind,
            "source_url": item.source_url,
            "language": item.language,
            "latest_revision": 1,
            "created_at": now,
            "updated_at": now,
        },
    ).scalar()
    if added is not None:
        return added, 0
    found = {"workspace_id": item.workspace_id, "identity": item.identity}
    evidence_id, latest = conn.execute(statements.find_evidence, found).one()
    return evidence_id, latest


# The statements every settled retrieval runs, built once (Database.prepared says why).
_LATEST_DIGEST = select(evidence_revisions.c.digest).where(
    evidence_revisions.c.evidence_id == bindparam("evidence_id"),
    evidence_revisions.c.revision == bindparam("revision"),
)
_ADD_REVISION = evidence_revisions.insert()
_MOVE_LATEST = (
    update(evidence)
    .where(evidence.c.id == bindparam("evidence_id"))
    .values(latest_revision=bindparam("revision"), updated_at=bindparam("updated_at"))
)


@dataclass(frozen=True, slots=True)
class _RevisionStatements:
    """The two whose SQL differs by dialect (the upsert, which returns the id it adds;
    PostgreSQL's row lock)."""

    add_evidence: Any
    find_evidence: Any

    @staticmethod
    def build(db: Database) -> _RevisionStatements:
        find = select(evidence.c.id, evidence.c.latest_revision).where(
            evidence.c.workspace_id == bindparam("workspace_id"),
            evidence.c.identity == bindparam("identity"),
        )
        return _RevisionStatements(
            add_evidence=db.insert(evidence)
            .on_conflict_do_nothing(index_elements=["workspace_id", "identity"])
            .returning(evidence.c.id),
            find_evidence=find if db.is_sqlite else find.with_for_update(),
        )


class EvidenceRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def list_page(
        self,
        workspace_id: str,
        *,
        kind: str | None,
        language: str | None,
        cursor: str | None,
        limit: int,
    ) -> tuple[list[EvidenceListRow], str | None]:
        """A page of a workspace's evidence, newest first, each with its latest content."""
        query = (
            select(evidence, evidence_revisions.c.content)
            .join(
                evidence_revisions,
                (evidence_revisions.c.evidence_id == evidence.c.id)
                & (evidence_revisions.c.revision == evidence.c.latest_revision),
            )
            .where(evidence.c.workspace_id == workspace_id)
        )
        if kind is not None:
            query = query.where(evidence.c.kind == kind)
        if language is not None:
            query = query.where(func.lower(evidence.c.language) == language.lower())
        with self.db.read() as conn:
            rows = conn.execute(
                page(query, evidence.c.created_at, evidence.c.id, cursor, limit)
            ).all()
        kept, next_cursor = split(rows, limit)
        return [
            EvidenceListRow(
                r.id,
                r.kind,
                r.source_url,
                r.language,
                r.latest_revision,
                r.content,
                utc(r.created_at),
                utc(r.updated_at),
            )
            for r in kept
        ], next_cursor

    def revision(
        self, workspace_id: str, evidence_id: str, revision: int | None
    ) -> EvidenceRevisionRecord | None:
        """One revision (the latest when `revision` is None), only inside its workspace."""
        wanted = evidence_revisions.c.revision == (
            revision if revision is not None else evidence.c.latest_revision
        )
        query = _revision_query().where(
            evidence.c.id == evidence_id, evidence.c.workspace_id == workspace_id, wanted
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        return _record(row._mapping)

    def revisions(
        self, workspace_id: str, pairs: list[tuple[str, int]]
    ) -> list[EvidenceRevisionRecord]:
        """The (evidence_id, revision) pairs that exist in the workspace, in the given order.
        Only those revisions are read: an export's batch of pins must not load every other
        revision of its evidence (each may hold a whole text) to keep one."""
        if not pairs:
            return []
        pinned = tuple_(evidence_revisions.c.evidence_id, evidence_revisions.c.revision)
        query = _revision_query().where(
            evidence.c.workspace_id == workspace_id, pinned.in_(sorted(set(pairs)))
        )
        with self.db.read() as conn:
            found = {(r.id, r.revision): _record(r._mapping) for r in conn.execute(query)}
        return [found[p] for p in pairs if p in found]


def _revision_query() -> Select[Any]:
    """Evidence joined with its revisions: the columns of an `EvidenceRevisionRecord`."""
    return select(
        evidence.c.id,
        evidence.c.workspace_id,
        evidence.c.kind,
        evidence.c.latest_revision,
        evidence_revisions.c.revision,
        evidence_revisions.c.digest,
        evidence_revisions.c.content,
        evidence_revisions.c.created_at,
        evidence_revisions.c.whole,
        evidence_revisions.c.citation,
    ).join(evidence_revisions, evidence_revisions.c.evidence_id == evidence.c.id)


def _record(m: Any) -> EvidenceRevisionRecord:
    return EvidenceRevisionRecord(
        evidence_id=m["id"],
        workspace_id=m["workspace_id"],
        kind=m["kind"],
        revision=m["revision"],
        latest_revision=m["latest_revision"],
        digest=m["digest"],
        content=m["content"],
        created_at=utc(m["created_at"]),
        whole=m["whole"],
        citation=m["citation"],
    )
