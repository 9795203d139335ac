"""Workspaces, auth, mutations, retrieval receipts and evidence.

Revision ID: 0001
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = 36


def _ts(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "workspaces",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("research_enabled", sa.Boolean, nullable=False),
        sa.Column("is_local", sa.Boolean, nullable=False),
        _ts("created_at"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        _ts("created_at"),
    )
    op.create_table(
        "memberships",
        sa.Column("workspace_id", sa.String(ID), sa.ForeignKey("workspaces.id"), primary_key=True),
        sa.Column("user_id", sa.String(ID), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        _ts("created_at"),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("user_id", sa.String(ID), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(200), nullable=False),
        sa.Column("scopes", sa.Text, nullable=False),
        _ts("created_at"),
        _ts("expires_at", nullable=True),
        _ts("revoked_at", nullable=True),
    )
    op.create_table(
        "mutations",
        sa.Column("workspace_id", sa.String(ID), sa.ForeignKey("workspaces.id"), primary_key=True),
        sa.Column("mutation_id", sa.String(ID), primary_key=True),
        sa.Column("tool", sa.String(80), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("arguments", sa.Text, nullable=False),
        sa.Column("token_id", sa.String(ID), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        _ts("created_at"),
    )
    op.create_table(
        "retrievals",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("workspace_id", sa.String(ID), nullable=False),
        sa.Column("mutation_id", sa.String(ID), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("language", sa.String(35), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        _ts("created_at"),
        _ts("settled_at", nullable=True),
        _ts("valid_until"),
        sa.Column("lease_owner", sa.String(80), nullable=True),
        _ts("lease_expires_at", nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("evidence_id", sa.String(ID), nullable=True),
        sa.Column("evidence_revision", sa.Integer, nullable=True),
        sa.UniqueConstraint("workspace_id", "mutation_id", name="uq_retrievals_key"),
        sa.ForeignKeyConstraint(
            ["workspace_id", "mutation_id"], ["mutations.workspace_id", "mutations.mutation_id"]
        ),
    )
    op.create_index("ix_retrievals_state_lease", "retrievals", ["state", "lease_expires_at"])
    op.create_table(
        "evidence",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("workspace_id", sa.String(ID), sa.ForeignKey("workspaces.id"), nullable=False),
        sa.Column("identity", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("source_url", sa.Text, nullable=True),
        sa.Column("language", sa.String(35), nullable=True),
        sa.Column("latest_revision", sa.Integer, nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
        sa.UniqueConstraint("workspace_id", "identity", name="uq_evidence_identity"),
    )
    op.create_table(
        "evidence_revisions",
        sa.Column("evidence_id", sa.String(ID), sa.ForeignKey("evidence.id"), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        _ts("created_at"),
    )


def downgrade() -> None:
    for name in (
        "evidence_revisions",
        "evidence",
        "retrievals",
        "mutations",
        "tokens",
        "memberships",
        "users",
        "workspaces",
    ):
        op.drop_table(name)
