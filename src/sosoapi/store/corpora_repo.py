"""Corpora: sealed snapshots of a project, one immutable revision per seal.

`CorpusRepository` reads in its own transaction; `CorporaInTx` seals inside a mutation's
write transaction (`Store.transaction`). Every query names the workspace: that WHERE
clause is the resource scoping behind the one permission check.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, select, update

from sosoapi.store.database import Database
from sosoapi.store.keyset_pages import page, split
from sosoapi.store.records import CorpusRow, utc
from sosoapi.store.tables import corpora, corpus_revisions


def _with_revision() -> Select[Any]:
    """A corpus row with one of its revisions (the caller joins and picks which)."""
    return select(
        corpora,
        corpus_revisions.c.revision,
        corpus_revisions.c.snapshot,
        corpus_revisions.c.sealed_at,
    )


class CorpusRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, workspace_id: str, corpus_id: str, revision: int | None) -> CorpusRow | None:
        wanted = corpus_revisions.c.revision == (
            revision if revision is not None else corpora.c.latest_revision
        )
        query = (
            _with_revision()
            .join(corpus_revisions, corpus_revisions.c.corpus_id == corpora.c.id)
            .where(corpora.c.id == corpus_id, corpora.c.workspace_id == workspace_id, wanted)
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        return _corpus_row(row._mapping) if row else None

    def list_page(
        self, workspace_id: str, *, cursor: str | None, limit: int
    ) -> tuple[list[CorpusRow], str | None]:
        query = (
            _with_revision()
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
        return [_corpus_row(r._mapping) for r in kept], next_cursor


class CorporaInTx:
    """Corpora inside one transaction; `lock_rows` row-locks the corpus read (PostgreSQL)."""

    def __init__(self, conn: Connection, *, lock_rows: bool) -> None:
        self.conn = conn
        self.lock_rows = lock_rows

    def owner_project(self, workspace_id: str, corpus_id: str) -> str | None:
        query = select(corpora.c.project_id).where(
            corpora.c.id == corpus_id, corpora.c.workspace_id == workspace_id
        )
        if self.lock_rows:
            query = query.with_for_update()
        return self.conn.execute(query).scalar()

    def seal(
        self,
        workspace_id: str,
        corpus_id: str,
        project_id: str,
        snapshot: str,
        now: datetime,
    ) -> int:
        """Write the next revision of `corpus_id` (creating the corpus at revision 1)."""
        current = self.conn.execute(
            select(corpora.c.latest_revision).where(corpora.c.id == corpus_id)
        ).scalar()
        revision = (current or 0) + 1
        if current is None:
            self.conn.execute(
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
            self.conn.execute(
                update(corpora)
                .where(corpora.c.id == corpus_id)
                .values(latest_revision=revision, updated_at=now)
            )
        self.conn.execute(
            corpus_revisions.insert().values(
                corpus_id=corpus_id, revision=revision, snapshot=snapshot, sealed_at=now
            )
        )
        return revision


def _corpus_row(m: Any) -> CorpusRow:
    return CorpusRow(
        m["id"],
        m["workspace_id"],
        m["project_id"],
        m["latest_revision"],
        m["revision"],
        m["snapshot"],
        utc(m["sealed_at"]),
        utc(m["created_at"]),
    )
