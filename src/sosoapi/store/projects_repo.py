"""Research projects and their supplied sources.

`ProjectRepository` reads in its own transaction; `ProjectsInTx` works inside a mutation's
write transaction (`Store.transaction`), so a change and its stored result commit
together. Every query names the workspace: that WHERE clause is the resource scoping
behind the one permission check.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select, update

from sosoapi.store.database import Database
from sosoapi.store.keyset_pages import page, split
from sosoapi.store.records import ProjectRow, SourceRow, utc
from sosoapi.store.tables import evidence, project_sources, projects


def _project(m: Any, sources: tuple[SourceRow, ...] = (), count: int = 0) -> ProjectRow:
    return ProjectRow(
        m["id"],
        m["workspace_id"],
        m["title"],
        m["revision"],
        utc(m["created_at"]),
        utc(m["updated_at"]),
        sources,
        count,
    )


class ProjectRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None:
        with self.db.read() as conn:
            return ProjectsInTx(conn, lock_rows=False).get(workspace_id, project_id)

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


class ProjectsInTx:
    """Projects inside one transaction; `lock_rows` row-locks what `lock` reads (PostgreSQL)."""

    def __init__(self, conn: Connection, *, lock_rows: bool) -> None:
        self.conn = conn
        self.lock_rows = lock_rows

    def get(self, workspace_id: str, project_id: str) -> ProjectRow | None:
        row = self.conn.execute(
            select(projects).where(
                projects.c.id == project_id, projects.c.workspace_id == workspace_id
            )
        ).first()
        if row is None:
            return None
        sources = tuple(
            SourceRow(r.evidence_id, r.note, utc(r.added_at))
            for r in self.conn.execute(
                select(project_sources)
                .where(project_sources.c.project_id == project_id)
                .order_by(project_sources.c.id)
            )
        )
        return _project(row._mapping, sources, len(sources))

    def existing_evidence(self, workspace_id: str, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        query = select(evidence.c.id).where(
            evidence.c.workspace_id == workspace_id, evidence.c.id.in_(ids)
        )
        return set(self.conn.execute(query).scalars())

    def latest_revisions(self, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        query = select(evidence.c.id, evidence.c.latest_revision).where(evidence.c.id.in_(ids))
        return {r.id: r.latest_revision for r in self.conn.execute(query)}

    def create(self, workspace_id: str, project_id: str, title: str, now: datetime) -> None:
        self.conn.execute(
            projects.insert().values(
                id=project_id,
                workspace_id=workspace_id,
                title=title,
                revision=1,
                created_at=now,
                updated_at=now,
            )
        )

    def lock(self, workspace_id: str, project_id: str) -> ProjectRow | None:
        """The project, row-locked for the rest of the transaction (PostgreSQL)."""
        query = select(projects).where(
            projects.c.id == project_id, projects.c.workspace_id == workspace_id
        )
        if self.lock_rows:
            query = query.with_for_update()
        row = self.conn.execute(query).first()
        return self.get(workspace_id, project_id) if row else None

    def bump(self, project_id: str, now: datetime, title: str | None = None) -> None:
        values: dict[str, Any] = {"revision": projects.c.revision + 1, "updated_at": now}
        if title is not None:
            values["title"] = title
        self.conn.execute(update(projects).where(projects.c.id == project_id).values(**values))

    def add_sources(
        self, project_id: str, evidence_ids: list[str], notes: list[str], now: datetime
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
            self.conn.execute(project_sources.insert(), rows)

    def remove_sources(self, project_id: str, evidence_ids: list[str], notes: list[str]) -> None:
        if evidence_ids:
            self.conn.execute(
                delete(project_sources).where(
                    project_sources.c.project_id == project_id,
                    project_sources.c.evidence_id.in_(evidence_ids),
                )
            )
        if notes:
            self.conn.execute(
                delete(project_sources).where(
                    project_sources.c.project_id == project_id, project_sources.c.note.in_(notes)
                )
            )
