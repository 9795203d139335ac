"""Read-only queries behind the review console: a workspace's retrievals and its counts."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import func, select

from sosoapi.store.database import Database
from sosoapi.store.pages import page, split
from sosoapi.store.records import RetrievalFilter, RetrievalRecord, WorkspaceCounts, from_row
from sosoapi.store.tables import corpora, evidence, projects, retrievals


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
        if where.url_contains:
            query = query.where(retrievals.c.url.contains(where.url_contains, autoescape=True))
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
        """Retrievals by state and by status (one pass over an index), and the totals."""
        outcome = (
            select(retrievals.c.state, retrievals.c.status, func.count())
            .where(retrievals.c.workspace_id == workspace_id)
            .group_by(retrievals.c.state, retrievals.c.status)
        )
        with self.db.read() as conn:
            groups = conn.execute(outcome).all()
            totals = [
                conn.execute(
                    select(func.count()).select_from(t).where(t.c.workspace_id == workspace_id)
                ).scalar_one()
                for t in (evidence, projects, corpora)
            ]
        by_state: Counter[str] = Counter()
        by_status: Counter[str] = Counter()
        for state, status, n in groups:
            by_state[state] += n
            if status is not None:
                by_status[status] += n
        return WorkspaceCounts(dict(by_state), dict(by_status), *totals)
