"""Revision and id columns hold the contract's whole integer range (BIGINT on PostgreSQL).

The contract admits revisions up to 2^53 - 1; a 32-bit column made a lookup of revision
2^31 an "integer out of range" error instead of "not found". SQLite's INTEGER is already
64-bit, so only PostgreSQL changes.

Revision ID: 0004
Revises: 0003
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = (
    ("retrievals", "evidence_revision"),
    ("evidence", "latest_revision"),
    ("evidence_revisions", "revision"),
    ("projects", "revision"),
    ("project_sources", "id"),
    ("corpora", "latest_revision"),
    ("corpus_revisions", "revision"),
    ("evidence_passages", "revision"),
)


def _retype(kind: type[sa.types.TypeEngine[Any]], was: type[sa.types.TypeEngine[Any]]) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.alter_column(table, column, type_=kind(), existing_type=was())
    # The serial's sequence has its own type (and limit) since PostgreSQL 10.
    sequence = "bigint" if kind is sa.BigInteger else "integer"
    op.execute(f"ALTER SEQUENCE IF EXISTS project_sources_id_seq AS {sequence}")


def upgrade() -> None:
    _retype(sa.BigInteger, sa.Integer)


def downgrade() -> None:
    _retype(sa.Integer, sa.BigInteger)
