"""PostgreSQL search index written directly, without GIN's pending list.

With `fastupdate` on (PostgreSQL's default), new entries wait in a pending list that
every search scans linearly until a vacuum merges it; measured over 10,000 revisions a
rare word took 30 ms in that scan against 2 ms after the merge (bench/README.md,
"Evidence search"). Revisions arrive one at a time, so paying the merge on each write
costs little and keeps every search on the index. SQLite has nothing to change.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        return
    conn.exec_driver_sql("ALTER INDEX ix_evidence_passages_tsv SET (fastupdate = off)")
    conn.exec_driver_sql("SELECT gin_clean_pending_list('ix_evidence_passages_tsv'::regclass)")


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql("ALTER INDEX ix_evidence_passages_tsv RESET (fastupdate)")
