"""PostgreSQL: the texts every retrieval writes are compressed with lz4, and capture bodies
(zstandard already) are not compressed again.

A retrieval stores its text three times over (the revision's `content`, its `whole` text
when the content was cut, the receipt's `result`), each past the 2 kB at which PostgreSQL
compresses a value; with the default pglz that compression was 3 % of the database's CPU
per retrieval (bench/README.md, "Load"). lz4 compresses the same text at a third of
pglz's CPU and reads it back faster, for about 10-20 % more bytes on disk; a workspace's
storage count is the text's own size (store/usage.py), so no limit moves. A capture body
is stored zstd-compressed (store/bodies.py): pglz tried it on every insert and kept it as
it was, so its column is EXTERNAL (moved out of line, never compressed).

Only new values are affected: a value stored before keeps its pglz form and reads as
before. A server built without lz4 (its `default_toast_compression` offers no `lz4`)
keeps pglz for the texts. SQLite compresses nothing: no change there.

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

TEXTS = (
    ("evidence_revisions", "content"),
    ("evidence_revisions", "whole"),
    ("evidence_revisions", "citation"),
    ("retrievals", "result"),
    ("mutations", "result"),
)
_LZ4 = sa.text(
    "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
)


def _alter(conn: sa.Connection, compression: str, storage: str) -> None:
    if conn.dialect.name == "sqlite":
        return
    if compression != "lz4" or conn.execute(_LZ4).scalar():
        for table, column in TEXTS:
            conn.exec_driver_sql(
                f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION {compression}"
            )
    conn.exec_driver_sql(f"ALTER TABLE capture_blobs ALTER COLUMN data SET STORAGE {storage}")


def upgrade() -> None:
    _alter(op.get_bind(), "lz4", "EXTERNAL")


def downgrade() -> None:
    _alter(op.get_bind(), "pglz", "EXTENDED")
