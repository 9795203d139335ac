"""Review console: hashed sign-in sessions, and retrievals filterable by status and reason.

`status` and `reason` copy the deciding outcome out of the stored result, so the console
can filter and count a workspace's retrievals with an index instead of parsing every
result; existing rows are filled from their stored result.

Revision ID: 0006
Revises: 0005
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

ID = 36
INDEXES = {  # the table newest first, filtered by status or reason; counts from the index
    "ix_retrievals_workspace_created": ["workspace_id", "created_at", "id"],
    "ix_retrievals_workspace_status": ["workspace_id", "status", "created_at", "id"],
    "ix_retrievals_workspace_reason": ["workspace_id", "reason", "created_at", "id"],
    "ix_retrievals_workspace_outcome": ["workspace_id", "state", "status"],
}


def _ts(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "console_sessions",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("session_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("token_id", sa.String(ID), sa.ForeignKey("tokens.id"), nullable=False),
        _ts("created_at"),
        _ts("expires_at"),
        _ts("revoked_at", nullable=True),
    )
    with op.batch_alter_table("retrievals") as batch:
        batch.add_column(sa.Column("status", sa.String(16), nullable=True))
        batch.add_column(sa.Column("reason", sa.String(32), nullable=True))
    for name, columns in INDEXES.items():
        op.create_index(name, "retrievals", columns)
    _backfill()


def _backfill() -> None:
    table = sa.table(
        "retrievals",
        sa.column("id", sa.String),
        sa.column("result", sa.Text),
        sa.column("status", sa.String),
        sa.column("reason", sa.String),
    )
    conn = op.get_bind()
    rows = conn.execute(sa.select(table.c.id, table.c.result).where(table.c.result.is_not(None)))
    for row_id, result in rows.all():
        stored = json.loads(result)
        conn.execute(
            table.update()
            .where(table.c.id == row_id)
            .values(status=stored.get("status"), reason=stored.get("reason"))
        )


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, "retrievals")
    with op.batch_alter_table("retrievals") as batch:
        batch.drop_column("reason")
        batch.drop_column("status")
    op.drop_table("console_sessions")
