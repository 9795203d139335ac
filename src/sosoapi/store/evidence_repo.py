"""Evidence and its revisions: a new revision only when the content digest changes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, func, select, update

from sosoapi.store.database import Database
from sosoapi.store.pages import page, split
from sosoapi.store.records import utc
from sosoapi.store.search_repo import index_revision
from sosoapi.store.tables import evidence, evidence_revisions


@dataclass(frozen=True, slots=True)
class EvidenceWrite:
    """What a settled retrieval asks to be recorded as evidence."""

    workspace_id: str
    identity: str
    kind: str
    source_url: str | None
    language: str | None
    digest: str
    content: str


@dataclass(frozen=True, slots=True)
class EvidenceRevisionRecord:
    evidence_id: str
    workspace_id: str
    kind: str
    revision: int
    latest_revision: int
    digest: str
    content: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class EvidenceListRow:
    id: str
    kind: str
    source_url: str | None
    language: str | None
    latest_revision: int
    content: str
    created_at: datetime
    updated_at: datetime


def record_revision(
    db: Database, conn: Connection, item: EvidenceWrite, now: datetime
) -> tuple[str, int]:
    """Write `item` inside the caller's transaction; return (evidence_id, revision)."""
    conn.execute(
        db.insert(evidence)
        .values(
            id=str(uuid.uuid4()),
            workspace_id=item.workspace_id,
            identity=item.identity,
            kind=item.kind,
            source_url=item.source_url,
            language=item.language,
            latest_revision=0,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing(index_elements=["workspace_id", "identity"])
    )
    query = select(evidence.c.id, evidence.c.latest_revision).where(
        evidence.c.workspace_id == item.workspace_id, evidence.c.identity == item.identity
    )
    if not db.is_sqlite:
        query = query.with_for_update()
    evidence_id, latest = conn.execute(query).one()
    if latest:
        digest = conn.execute(
            select(evidence_revisions.c.digest).where(
                evidence_revisions.c.evidence_id == evidence_id,
                evidence_revisions.c.revision == latest,
            )
        ).scalar_one()
        if digest == item.digest:
            return evidence_id, latest
    revision = latest + 1
    conn.execute(
        evidence_revisions.insert().values(
            evidence_id=evidence_id,
            revision=revision,
            digest=item.digest,
            content=item.content,
            created_at=now,
        )
    )
    conn.execute(
        update(evidence)
        .where(evidence.c.id == evidence_id)
        .values(latest_revision=revision, updated_at=now)
    )
    index_revision(conn, evidence_id, revision, item.content)
    return evidence_id, revision


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
                utc(r.created_at),  # type: ignore[arg-type]
                utc(r.updated_at),  # type: ignore[arg-type]
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
        """The (evidence_id, revision) pairs that exist in the workspace, in the given order."""
        if not pairs:
            return []
        query = _revision_query().where(
            evidence.c.workspace_id == workspace_id,
            evidence.c.id.in_(sorted({e for e, _ in pairs})),
        )
        wanted = set(pairs)
        with self.db.read() as conn:
            rows = [r._mapping for r in conn.execute(query)]
        found = {
            (m["id"], m["revision"]): _record(m) for m in rows if (m["id"], m["revision"]) in wanted
        }
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
        created_at=utc(m["created_at"]),  # type: ignore[arg-type]
    )
