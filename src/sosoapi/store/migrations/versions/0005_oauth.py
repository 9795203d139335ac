"""OAuth 2.1 sign-in: registered clients, authorizations (consent and code), token kinds.

OAuth access and refresh tokens live in `tokens` beside personal tokens (hashed the same
way), so `sosoapi tokens list|revoke` sees them; `grant_id` ties the tokens of one
sign-in together, so revoking one revokes its grant.

Revision ID: 0005
Revises: 0004
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

ID = 36


def _ts(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(
            sa.Column("kind", sa.String(16), nullable=False, server_default="personal")
        )
        batch.add_column(sa.Column("client_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("resource", sa.Text, nullable=True))
        batch.add_column(sa.Column("grant_id", sa.String(ID), nullable=True))
        batch.create_index("ix_tokens_grant_id", ["grant_id"])
    op.create_table(
        "oauth_clients",
        sa.Column("client_id", sa.String(64), primary_key=True),
        sa.Column("secret_hash", sa.String(64), nullable=True),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("info", sa.Text, nullable=False),
        _ts("created_at"),
    )
    op.create_table(
        "oauth_authorizations",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column(
            "client_id", sa.String(64), sa.ForeignKey("oauth_clients.client_id"), nullable=False
        ),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("user_id", sa.String(ID), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("code_hash", sa.String(64), nullable=True, unique=True),
        _ts("created_at"),
        _ts("expires_at"),
        _ts("decided_at", nullable=True),
        _ts("exchanged_at", nullable=True),
    )


def downgrade() -> None:
    op.drop_table("oauth_authorizations")
    op.drop_table("oauth_clients")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_index("ix_tokens_grant_id")
        for column in ("grant_id", "resource", "client_id", "kind"):
            batch.drop_column(column)
