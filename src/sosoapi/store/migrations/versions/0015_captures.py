"""Captures: the HTTP exchange (or uploaded bytes) behind each evidence revision, and
the citation fields each revision's page declared.

Revision ID: 0015
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0013"
branch_labels = None
depends_on = None

WIDE = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("evidence_revisions") as batch:
        batch.add_column(sa.Column("citation", sa.Text, nullable=True))
    op.create_table(
        "capture_blobs",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("size", WIDE, nullable=False),
        sa.Column("codec", sa.String(8), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "captures",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("evidence_id", sa.String(36), sa.ForeignKey("evidence.id"), nullable=False),
        sa.Column("revision", WIDE, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("retrieved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ip", sa.String(45), nullable=True),
        sa.Column("status", sa.Integer, nullable=True),
        sa.Column("meta", sa.Text, nullable=False),
        sa.Column(
            "body_sha256", sa.String(64), sa.ForeignKey("capture_blobs.sha256"), nullable=False
        ),
    )
    op.create_index("ix_captures_revision", "captures", ["evidence_id", "revision", "seq"])
    op.create_index("ix_captures_blob", "captures", ["body_sha256"])


def downgrade() -> None:
    op.drop_index("ix_captures_blob", "captures")
    op.drop_index("ix_captures_revision", "captures")
    op.drop_table("captures")
    op.drop_table("capture_blobs")
    with op.batch_alter_table("evidence_revisions") as batch:
        batch.drop_column("citation")
