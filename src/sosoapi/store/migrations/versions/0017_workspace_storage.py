"""What each workspace stores: `workspaces.stored_bytes`, counted once here.

From this revision every write that adds or removes stored bytes keeps the column (the
store's usage counter), and the per-workspace storage limit is checked against it. Here
the workspaces that exist are counted as the store counts (frozen from store/usage.py):
each evidence revision's stored text in UTF-8 bytes (content, whole text, citation) and
each capture's body at its stored size. One grouped query per table, run once.

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_workspaces = sa.table("workspaces", sa.column("id", sa.String), sa.column("stored_bytes"))
_evidence = sa.table("evidence", sa.column("id", sa.String), sa.column("workspace_id", sa.String))
_revisions = sa.table(
    "evidence_revisions",
    sa.column("evidence_id", sa.String),
    sa.column("content", sa.Text),
    sa.column("whole", sa.Text),
    sa.column("citation", sa.Text),
)
_captures = sa.table(
    "captures", sa.column("evidence_id", sa.String), sa.column("body_sha256", sa.String)
)
_blobs = sa.table("capture_blobs", sa.column("sha256", sa.String), sa.column("data"))


def _utf8_bytes(column: sa.ColumnElement[str], dialect: str) -> sa.ColumnElement[int]:
    """The UTF-8 length of a text column (0 when NULL)."""
    if dialect == "sqlite":  # length() counts characters; a BLOB's length counts bytes
        measured = sa.func.length(sa.cast(column, sa.LargeBinary))
    else:
        measured = sa.func.octet_length(column)
    return sa.func.coalesce(measured, 0)


def _per_workspace(conn: sa.Connection) -> dict[str, int]:
    dialect = conn.dialect.name
    texts = sum(
        (_utf8_bytes(_revisions.c[name], dialect) for name in ("content", "whole", "citation")),
        start=sa.literal(0),
    )
    stored: dict[str, int] = {}
    queries = (
        sa.select(_evidence.c.workspace_id, sa.func.sum(texts))
        .join(_revisions, _revisions.c.evidence_id == _evidence.c.id)
        .group_by(_evidence.c.workspace_id),
        sa.select(_evidence.c.workspace_id, sa.func.sum(sa.func.length(_blobs.c.data)))
        .join(_captures, _captures.c.evidence_id == _evidence.c.id)
        .join(_blobs, _blobs.c.sha256 == _captures.c.body_sha256)
        .group_by(_evidence.c.workspace_id),
    )
    for query in queries:
        for workspace_id, size in conn.execute(query):
            stored[workspace_id] = stored.get(workspace_id, 0) + int(size or 0)
    return stored


def upgrade() -> None:
    wide = sa.BigInteger().with_variant(sa.Integer, "sqlite")
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(sa.Column("stored_bytes", wide, nullable=False, server_default="0"))
    conn = op.get_bind()
    for workspace_id, size in sorted(_per_workspace(conn).items()):
        conn.execute(
            _workspaces.update().where(_workspaces.c.id == workspace_id).values(stored_bytes=size)
        )


def downgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("stored_bytes")
