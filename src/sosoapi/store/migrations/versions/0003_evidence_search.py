"""Evidence search: a passage table with FTS5 (SQLite) or tsvector + GIN (PostgreSQL).

Indexes every evidence revision already stored, with the index form of revision 0010
(`migrations/search_index_0010.py`, a frozen copy: migrations never call today's code).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

from sosoapi.store.migrations.search_index_0010 import FTS5_DDL, PG_DDL, index_revision

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ID = 36


def upgrade() -> None:
    op.create_table(
        "evidence_passages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("evidence_id", sa.String(ID), sa.ForeignKey("evidence.id"), nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("part", sa.String(16), nullable=False),
        sa.Column("pos_start", sa.Integer, nullable=False),
        sa.Column("pos_end", sa.Integer, nullable=False),
        sa.Column("start_ms", sa.BigInteger, nullable=True),
        sa.Column("end_ms", sa.BigInteger, nullable=True),
        sa.Column("config", sa.String(32), nullable=False),
    )
    op.create_index(
        "ix_evidence_passages_revision", "evidence_passages", ["evidence_id", "revision"]
    )
    conn = op.get_bind()
    for statement in (FTS5_DDL,) if conn.dialect.name == "sqlite" else PG_DDL:
        conn.exec_driver_sql(statement)
    rows = conn.execute(
        sa.text("SELECT evidence_id, revision, content FROM evidence_revisions ORDER BY 1, 2")
    )
    for evidence_id, number, content in rows.all():
        index_revision(conn, evidence_id, number, content)


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("DROP TABLE evidence_fts")
    op.drop_table("evidence_passages")
