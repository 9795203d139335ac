"""Research projects and their supplied sources; corpora and their immutable revisions.

Functions that take a `Connection` run inside the caller's write transaction (a
mutation), so a change and its stored result commit together.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select, update

from sosoapi.store.database import Database
from sosoapi.store.pages import page, split
from sosoapi.store.records import utc
from sosoapi.store.tables import corpora, corpus_revisions, evidence, project_sources, projects


@dataclass(frozen=True, slots=True)
class SourceRow:
    evidence_id: str | None
    note: str | None
    added_at: datetime


@dataclass(frozen=True, slots=True)
class ProjectRow:
    id: str
    workspace_id: str
    title: str
    revision: int
    created_at: datetime
    updated_at: datetime
    sources: tuple[SourceRow, ...] = ()
    source_count: int = 0


@dataclass(frozen=True, slots=True)
class CorpusRow:
    id: str
    workspace_id: str
    project_id: str
    latest_revision: int
    revision: int
    snapshot: str
    sealed_at: datetime
    created_at: datetime


def _project(m: Any, sources: tuple[SourceRow, ...] = (), count: int = 0) -> ProjectRow:
    return ProjectRow(
        m["id"],
        m["workspace_id"],
        m["title"],
        m["revision"],
        utc(m["created_at"]),  # type: ignore[arg-type]
        utc(m["updated_at"]),
        sources,
        count,  # type: ignore[arg-type]
    )


class ProjectRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # --- reads ---------------------------------------------------------------------------

    def get(
        self, workspace_id: str, project_id: str, conn: Connection | None = None
    ) -> ProjectRow | None:
        if conn is None:
            with self.db.read() as own:
                return self.get(workspace_id, project_id, own)
        row = conn.execute(
            select(projects).where(
                projects.c.id == project_id, projects.c.workspace_id == workspace_id
            )
        ).first()
        if row is None:
            return None
        sources = tuple(
            SourceRow(r.evidence_id, r.note, utc(r.added_at))  # type: ignore[arg-type]
            for r in conn.execute(
                select(project_sources)
                .where(project_sources.c.project_id == project_id)
                .order_by(project_sources.c.id)
            )
        )
        return _project(row._mapping, sources, len(sources))

    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[ProjectRow], str | None]:
        count = (
            select(func.count())
            .where(project_sources.c.project_id == projects.c.id)
            .scalar_subquery()
            .label("source_count")
        )
        query = select(projects, count).where(projects.c.workspace_id == workspace_id)
        with self.db.read() as conn:
            rows = conn.execute(
                page(query, projects.c.created_at, projects.c.id, cursor, limit)
            ).all()
        kept, next_cursor = split(rows, limit)
        return [_project(r._mapping, (), r._mapping["source_count"]) for r in kept], next_cursor

    def existing_evidence(self, conn: Connection, workspace_id: str, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        query = select(evidence.c.id).where(
            evidence.c.workspace_id == workspace_id, evidence.c.id.in_(ids)
        )
        return set(conn.execute(query).scalars())

    def latest_revisions(self, conn: Connection, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        query = select(evidence.c.id, evidence.c.latest_revision).where(evidence.c.id.in_(ids))
        return {r.id: r.latest_revision for r in conn.execute(query)}

    # --- writes (inside a mutation's transaction) ----------------------------------------

    def create(
        self, conn: Connection, workspace_id: str, project_id: str, title: str, now: datetime
    ) -> None:
        conn.execute(
            projects.insert().values(
                id=project_id,
                workspace_id=workspace_id,
                title=title,
                revision=1,
                created_at=now,
                updated_at=now,
            )
        )

    def lock(self, conn: Connection, workspace_id: str, project_id: str) -> ProjectRow | None:
        """The project, row-locked for the rest of the transaction (PostgreSQL)."""
        query = select(projects).where(
            projects.c.id == project_id, projects.c.workspace_id == workspace_id
        )
        if not self.db.is_sqlite:
            query = query.with_for_update()
        row = conn.execute(query).first()
        return self.get(workspace_id, project_id, conn) if row else None

    def bump(
        self, conn: Connection, project_id: str, now: datetime, title: str | None = None
    ) -> None:
        values: dict[str, Any] = {"revision": projects.c.revision + 1, "updated_at": now}
        if title is not None:
            values["title"] = title
        conn.execute(update(projects).where(projects.c.id == project_id).values(**values))

    def add_sources(
        self,
        conn: Connection,
        project_id: str,
        evidence_ids: list[str],
        notes: list[str],
        now: datetime,
    ) -> None:
        rows = [
            {"project_id": project_id, "evidence_id": e, "note": None, "added_at": now}
            for e in evidence_ids
        ]
        rows += [
            {"project_id": project_id, "evidence_id": None, "note": n, "added_at": now}
            for n in notes
        ]
        if rows:
            conn.execute(project_sources.insert(), rows)

    def remove_sources(
        self, conn: Connection, project_id: str, evidence_ids: list[str], notes: list[str]
    ) -> None:
        if evidence_ids:
            conn.execute(
                delete(project_sources).where(
                    project_sources.c.project_id == project_id,
                    project_sources.c.evidence_id.in_(evidence_ids),
                )
            )
        if notes:
            conn.execute(
                delete(project_sources).where(
                    project_sources.c.project_id == project_id, project_sources.c.note.in_(notes)
                )
            )


class CorpusRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, workspace_id: str, corpus_id: str, revision: int | None) -> CorpusRow | None:
        wanted = corpus_revisions.c.revision == (
            revision if revision is not None else corpora.c.latest_revision
        )
        query = (
            select(
                corpora,
                corpus_revisions.c.revision,
                corpus_revisions.c.snapshot,
                corpus_revisions.c.sealed_at,
            )
            .join(corpus_revisions, corpus_revisions.c.corpus_id == corpora.c.id)
            .where(corpora.c.id == corpus_id, corpora.c.workspace_id == workspace_id, wanted)
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return self._row(row._mapping) if row else None

    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[CorpusRow], str | None]:
        query = (
            select(
                corpora,
                corpus_revisions.c.revision,
                corpus_revisions.c.snapshot,
                corpus_revisions.c.sealed_at,
            )
            .join(
                corpus_revisions,
                (corpus_revisions.c.corpus_id == corpora.c.id)
                & (corpus_revisions.c.revision == corpora.c.latest_revision),
            )
            .where(corpora.c.workspace_id == workspace_id)
        )
        with self.db.read() as conn:
            rows = conn.execute(
                page(query, corpora.c.created_at, corpora.c.id, cursor, limit)
            ).all()
        kept, next_cursor = split(rows, limit)
        return [self._row(r._mapping) for r in kept], next_cursor

    def owner_project(self, conn: Connection, workspace_id: str, corpus_id: str) -> str | None:
        query = select(corpora.c.project_id).where(
            corpora.c.id == corpus_id, corpora.c.workspace_id == workspace_id
        )
        if not self.db.is_sqlite:
            query = query.with_for_update()
        return conn.execute(query).scalar()

    def seal(
        self,
        conn: Connection,
        workspace_id: str,
        corpus_id: str,
        project_id: str,
        snapshot: str,
        now: datetime,
    ) -> int:
        """Write the next revision of `corpus_id` (creating the corpus at revision 1)."""
        current = conn.execute(
            select(corpora.c.latest_revision).where(corpora.c.id == corpus_id)
        ).scalar()
        revision = (current or 0) + 1
        if current is None:
            conn.execute(
                corpora.insert().values(
                    id=corpus_id,
                    workspace_id=workspace_id,
                    project_id=project_id,
                    latest_revision=1,
                    created_at=now,
                    updated_at=now,
                )
            )
        else:
            conn.execute(
                update(corpora)
                .where(corpora.c.id == corpus_id)
                .values(latest_revision=revision, updated_at=now)
            )
        conn.execute(
            corpus_revisions.insert().values(
                corpus_id=corpus_id, revision=revision, snapshot=snapshot, sealed_at=now
            )
        )
        return revision

    @staticmethod
    def _row(m: Any) -> CorpusRow:
        return CorpusRow(
            m["id"],
            m["workspace_id"],
            m["project_id"],
            m["latest_revision"],
            m["revision"],
            m["snapshot"],
            utc(m["sealed_at"]),
            utc(m["created_at"]),  # type: ignore[arg-type]
        )
