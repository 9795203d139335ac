"""Read-only queries behind the review console: a workspace's retrievals and its counts."""

from __future__ import annotations

import json
from collections import Counter

from sqlalchemy import func, select

from sosoapi.store.database import Database
from sosoapi.store.keyset_pages import page, split
from sosoapi.store.records import (
    EvidenceUses,
    RetrievalFilter,
    RetrievalRecord,
    WorkspaceCounts,
    from_row,
)
from sosoapi.store.tables import (
    corpora,
    corpus_revisions,
    evidence,
    project_sources,
    projects,
    retrievals,
)


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

    def uses(self, workspace_id: str, evidence_id: str) -> EvidenceUses:
        """The projects that reference the evidence and the corpus revisions that pin it.

        Pins live in each revision's snapshot, so the revisions naming the id are read and
        their snapshots checked (a console page, not a hot path)."""
        referencing = (
            select(projects.c.id, projects.c.title)
            .join(project_sources, project_sources.c.project_id == projects.c.id)
            .where(projects.c.workspace_id == workspace_id)
            .where(project_sources.c.evidence_id == evidence_id)
            .distinct()
            .order_by(projects.c.title, projects.c.id)
        )
        pinning = (
            select(corpus_revisions.c.corpus_id, corpus_revisions.c.revision)
            .add_columns(corpus_revisions.c.snapshot, projects.c.title)
            .join(corpora, corpora.c.id == corpus_revisions.c.corpus_id)
            .join(projects, projects.c.id == corpora.c.project_id)
            .where(corpora.c.workspace_id == workspace_id)
            .where(corpus_revisions.c.snapshot.contains(evidence_id, autoescape=True))
            .order_by(corpus_revisions.c.corpus_id, corpus_revisions.c.revision)
        )
        with self.db.read() as conn:
            found = [(r[0], r[1]) for r in conn.execute(referencing)]
            pins = []
            for corpus_id, revision, snapshot, title in conn.execute(pinning):
                for ref in json.loads(snapshot).get("evidence", []):
                    if ref.get("evidence_id") == evidence_id:
                        pins.append((corpus_id, revision, ref["revision"], title))
        return EvidenceUses(tuple(found), tuple(pins))

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
