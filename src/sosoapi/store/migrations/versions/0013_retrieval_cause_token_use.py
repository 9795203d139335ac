"""Receipts keep the cause of their reason (a certificate that did not verify, a private
address, a 5xx...), so a replay words the same advice as the first answer. The published
result has no field for it; old receipts have none and get the reason's own advice.

Tokens keep when they were last used (to the minute), so `sosoapi tokens list` shows which
ones are live and which lie unused.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("retrievals") as batch:
        batch.add_column(sa.Column("cause", sa.String(40), nullable=True))
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("last_used_at")
    with op.batch_alter_table("retrievals") as batch:
        batch.drop_column("cause")
