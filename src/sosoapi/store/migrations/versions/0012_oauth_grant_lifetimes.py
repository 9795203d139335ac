"""OAuth grants end with the token that approved them; unused registrations expire.

`tokens.approved_by` names the personal token whose approval issued an OAuth token, so a
grant ends when that token is revoked or expires (checked on every use and refresh).
`oauth_authorizations.approver_token_id` keeps it from consent to exchange, and
`grant_id` the grant a code's exchange issued, so a second exchange of the code revokes
it. `oauth_clients.authorized_at` marks a client that completed a sign-in; the sweeper
removes those that never did after 24 hours, and stale consent requests after 10 minutes
(indexes on the times it scans).

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

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


def downgrade() -> None:
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
