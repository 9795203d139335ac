"""Evidence revisions keep the whole text a receipt was cut from.

A nullable `whole` column on `evidence_revisions`: canonical JSON of the whole text and
caption cues when the receipt-bounded `content` was cut from longer ones. Existing
revisions keep NULL, which means their `content` is all there is: nothing is rewritten.

Revision ID: 0014
Revises: 0015
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("evidence_revisions") as batch:
        batch.add_column(sa.Column("whole", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("evidence_revisions") as batch:
        batch.drop_column("whole")
