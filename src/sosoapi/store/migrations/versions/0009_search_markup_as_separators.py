"""Re-index PostgreSQL passages with `<`, `>` and `&` read as word separators.

PostgreSQL's text-search parser took those characters in evidence text for markup and
entities, so words after a literal `<script>` in a source went unindexed; SQLite's
tokenizer already separated words at them. Revisions indexed before this migration are
indexed again with the index form of revision 0010 (a frozen
copy). SQLite has nothing to redo.

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

from sosoapi.store.migrations.search_index_0010 import index_revision

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        return
    conn.exec_driver_sql("DELETE FROM evidence_passages")
    rows = conn.execute(
        sa.text("SELECT evidence_id, revision, content FROM evidence_revisions ORDER BY 1, 2")
    )
    for evidence_id, number, content in rows.all():
        index_revision(conn, evidence_id, number, content)


def downgrade() -> None:
    """Nothing to undo: the passages stay indexed the new way."""
