"""Per-origin request pacing shared by every instance on the database.

Revision ID: 0007
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "origin_pacing",
        sa.Column("origin", sa.String(300), primary_key=True),
        sa.Column("last_start", sa.Float, nullable=False),
    )
    op.create_index("ix_origin_pacing_last_start", "origin_pacing", ["last_start"])


def downgrade() -> None:
    op.drop_index("ix_origin_pacing_last_start", "origin_pacing")
    op.drop_table("origin_pacing")
