"""PostgreSQL search index: a small GIN pending list instead of none.

Migration 0008 turned `fastupdate` off so no search scanned a long pending list (30 ms a
rare word with PostgreSQL's default 4 MB list). Measured under load since, writing each
passage's entries straight into the index cost 12.5 ms of the database's CPU per
retrieval of a real news page, most of all the work PostgreSQL does for a retrieval.
With a pending list capped at 128 kB the entries are merged in batches (7.4 ms) and a
search scans at most 128 kB of unmerged entries (bench/README.md, "Load" and "Evidence
search"). SQLite has nothing to change.

Revision ID: 0011
Revises: 0010
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

PENDING_LIST_KB = 128


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        return
    conn.exec_driver_sql(
        "ALTER INDEX ix_evidence_passages_tsv "
        f"SET (fastupdate = on, gin_pending_list_limit = {PENDING_LIST_KB})"
    )


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql("ALTER INDEX ix_evidence_passages_tsv RESET (gin_pending_list_limit)")
        conn.exec_driver_sql("ALTER INDEX ix_evidence_passages_tsv SET (fastupdate = off)")
