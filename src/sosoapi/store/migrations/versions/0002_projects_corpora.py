"""Research projects, their sources, and sealed corpora with immutable revisions.

Revision ID: 0002
Revises: 0001
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = 36


def _ts(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("retrievals") as batch:
        batch.add_column(sa.Column("source", sa.String(16), nullable=False, server_default="url"))
    op.create_table(
        "projects",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("workspace_id", sa.String(ID), sa.ForeignKey("workspaces.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
    )
    op.create_index("ix_projects_workspace", "projects", ["workspace_id", "created_at"])
    op.create_table(
        "project_sources",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("project_id", sa.String(ID), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("evidence_id", sa.String(ID), sa.ForeignKey("evidence.id"), nullable=True),
        sa.Column("note", sa.String(100), nullable=True),
        _ts("added_at"),
    )
    op.create_index("ix_project_sources_project", "project_sources", ["project_id", "id"])
    op.create_table(
        "corpora",
        sa.Column("id", sa.String(ID), primary_key=True),
        sa.Column("workspace_id", sa.String(ID), sa.ForeignKey("workspaces.id"), nullable=False),
        sa.Column("project_id", sa.String(ID), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("latest_revision", sa.Integer, nullable=False),
        _ts("created_at"),
        _ts("updated_at"),
    )
    op.create_index("ix_corpora_workspace", "corpora", ["workspace_id", "created_at"])
    op.create_table(
        "corpus_revisions",
        sa.Column("corpus_id", sa.String(ID), sa.ForeignKey("corpora.id"), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("snapshot", sa.Text, nullable=False),
        _ts("sealed_at"),
    )
    op.create_index("ix_evidence_workspace", "evidence", ["workspace_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_evidence_workspace", "evidence")
    for name in ("corpus_revisions", "corpora", "project_sources", "projects"):
        op.drop_table(name)
    with op.batch_alter_table("retrievals") as batch:
        batch.drop_column("source")
