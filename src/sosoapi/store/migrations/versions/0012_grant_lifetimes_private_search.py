"""OAuth grants end with the token that approved them; unused registrations expire; on
SQLite each workspace's search index is its own.

`tokens.approved_by` names the personal token whose approval issued an OAuth token, so a
grant ends when that token is revoked or expires (checked on every use and refresh).
`oauth_authorizations.approver_token_id` keeps it from consent to exchange, and
`grant_id` the grant a code's exchange issued, so a second exchange of the code revokes
it. `oauth_clients.authorized_at` marks a client that completed a sign-in; the sweeper
removes those that never did after 24 hours, and stale consent requests after 10 minutes
(indexes on the times it scans).

SQLite's FTS5 bm25 counts term and length statistics over its whole table, so with one
table for every workspace, another workspace storing a word changed this one's scores
(and could be probed). Each workspace now has its own FTS5 table (named as
`search_repo.fts_table` names it); the shared contentless table cannot be read back, so
the index is rebuilt from the stored revisions, once, with this migration's frozen copy
(`migrations/search_index_0012.py`). PostgreSQL's `ts_rank` reads only the passage:
nothing to change there.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

from sosoapi.store.migrations.search_index_0010 import FTS5_DDL
from sosoapi.store.migrations.search_index_0010 import index_revision as index_0010
from sosoapi.store.migrations.search_index_0012 import index_revision as index_0012

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

ID = 36


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("approved_by", sa.String(ID), nullable=True))
        batch.create_index("ix_tokens_approved_by", ["approved_by"])
    with op.batch_alter_table("oauth_authorizations") as batch:
        batch.add_column(sa.Column("approver_token_id", sa.String(ID), nullable=True))
        batch.add_column(sa.Column("grant_id", sa.String(ID), nullable=True))
        batch.create_index("ix_oauth_authorizations_expires_at", ["expires_at"])
    with op.batch_alter_table("oauth_clients") as batch:
        batch.add_column(sa.Column("authorized_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_oauth_clients_created_at", ["created_at"])
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("DROP TABLE IF EXISTS evidence_fts")
        conn.exec_driver_sql("DELETE FROM evidence_passages")
        for evidence_id, number, content, workspace_id in _revisions(conn):
            index_0012(conn, evidence_id, number, content, workspace_id)


def _revisions(conn: sa.Connection) -> list[tuple[str, int, str, str]]:
    rows = conn.execute(
        sa.text(
            "SELECT r.evidence_id, r.revision, r.content, e.workspace_id "
            "FROM evidence_revisions r JOIN evidence e ON e.id = r.evidence_id "
            "ORDER BY 1, 2"
        )
    ).all()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def downgrade() -> None:
    """Back to one shared search table on SQLite (rebuilt), and without the OAuth columns."""
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        tables = conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB "
            "'evidence_fts_[0-9a-f]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
        ).scalars()
        for name in list(tables):
            conn.exec_driver_sql(f"DROP TABLE {name}")
        conn.exec_driver_sql("DELETE FROM evidence_passages")
        conn.exec_driver_sql(FTS5_DDL)
        for evidence_id, number, content, _ in _revisions(conn):
            index_0010(conn, evidence_id, number, content)
    with op.batch_alter_table("oauth_clients") as batch:
        batch.drop_index("ix_oauth_clients_created_at")
        batch.drop_column("authorized_at")
    with op.batch_alter_table("oauth_authorizations") as batch:
        batch.drop_index("ix_oauth_authorizations_expires_at")
        batch.drop_column("grant_id")
        batch.drop_column("approver_token_id")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_index("ix_tokens_approved_by")
        batch.drop_column("approved_by")
