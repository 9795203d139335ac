"""Read-only queries behind the review console: a workspace's retrievals and its counts."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select

from sosoapi.store.database import Database
from sosoapi.store.pages import page, split
from sosoapi.store.records import RetrievalRecord, from_row
from sosoapi.store.tables import corpora, evidence, projects, retrievals


@dataclass(frozen=True, slots=True)
class RetrievalFilter:
    """Each field None means "any"."""

    state: str | None = None
    status: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class WorkspaceCounts:
    retrievals_by_state: dict[str, int]
    retrievals_by_status: dict[str, int]
    evidence: int
    projects: int
    corpora: int


class ReviewRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def retrievals_page(
        self, workspace_id: str, *, where: RetrievalFilter, cursor: str | None, limit: int
    ) -> tuple[list[RetrievalRecord], str | None]:
        """A page of a workspace's retrievals, newest first, narrowed by `where`."""
        query = select(retrievals).where(retrievals.c.workspace_id == workspace_id)
        for column, value in (
            (retrievals.c.state, where.state),
            (retrievals.c.status, where.status),
            (retrievals.c.reason, where.reason),
        ):
            if value is not None:
                query = query.where(column == value)
        with self.db.read() as conn:
            rows = conn.execute(
                page(query, retrievals.c.created_at, retrievals.c.id, cursor, limit)
            ).all()
        kept, next_cursor = split(rows, limit)
        return [from_row(RetrievalRecord, r) for r in kept], next_cursor

    def retrieval(self, workspace_id: str, retrieval_id: str) -> RetrievalRecord | None:
        query = select(retrievals).where(
            retrievals.c.workspace_id == workspace_id, retrievals.c.id == retrieval_id
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return from_row(RetrievalRecord, row) if row else None

    def counts(self, workspace_id: str) -> WorkspaceCounts:
        """Retrievals by state and by status, and how many evidence, projects and corpora."""
        mine = retrievals.c.workspace_id == workspace_id
        with self.db.read() as conn:
            by_state = conn.execute(
                select(retrievals.c.state, func.count()).where(mine).group_by(retrievals.c.state)
            ).all()
            by_status = conn.execute(
                select(retrievals.c.status, func.count())
                .where(mine, retrievals.c.status.is_not(None))
                .group_by(retrievals.c.status)
            ).all()
            totals = [
                conn.execute(
                    select(func.count()).select_from(t).where(t.c.workspace_id == workspace_id)
                ).scalar_one()
                for t in (evidence, projects, corpora)
            ]
        return WorkspaceCounts(
            retrievals_by_state={state: n for state, n in by_state},
            retrievals_by_status={status: n for status, n in by_status},
            evidence=totals[0],
            projects=totals[1],
            corpora=totals[2],
        )
