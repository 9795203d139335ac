"""PostgreSQL: a passage's evidence is not looked up again, row by row, on insert.

`evidence_passages.evidence_id` referenced `evidence.id` with a foreign key, so inserting
a revision's passages (36 for a news page, in one statement) ran PostgreSQL's check once
per passage: a query locking the evidence row (`FOR KEY SHARE`) for each, 48 of the 75
statements the database ran per retrieval under the load bench, about 0.2 ms of its 7.5
ms of CPU per retrieval (bench/README.md, "PostgreSQL's CPU per retrieval"). The check
cannot fail: passages are written only by `search_repo.index_revision` (and migrations
re-indexing stored revisions), in the transaction that has just written or read their
evidence and revision, and no evidence is ever deleted. The stored rows are the same and
the search reads them as before. SQLite keeps its foreign key (a lookup in the same
process, not a query, enforced: `PRAGMA foreign_keys=ON`), so every code path the suite
runs on SQLite still proves that no passage is written without its evidence.

Revision ID: 0019
Revises: 0018
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

CONSTRAINT = "evidence_passages_evidence_id_fkey"


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(f"ALTER TABLE evidence_passages DROP CONSTRAINT {CONSTRAINT}")


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(
            f"ALTER TABLE evidence_passages ADD CONSTRAINT {CONSTRAINT} "
            "FOREIGN KEY (evidence_id) REFERENCES evidence (id)"
        )
