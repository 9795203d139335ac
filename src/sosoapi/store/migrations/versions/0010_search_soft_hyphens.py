"""Re-index the revisions whose text holds soft hyphens, now dropped from the search form.

A soft hyphen (U+00AD, `&shy;`) is an invisible hyphenation hint inside a word; both
stores split words there, so `Baro&shy;lo` was indexed as `Baro` and `lo` and a search
for `Barolo` missed it. Only revisions holding one change. PostgreSQL re-indexes just
those; SQLite's index is contentless FTS5, whose rows can only be removed with the exact
values first inserted, so there the whole index is rebuilt (once, and only when such a
revision exists), with the index form of this revision (`migrations/search_index_0010.py`, frozen).

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

from sosoapi.store.migrations.search_index_0010 import FTS5_DDL, index_revision

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_ALL = "SELECT evidence_id, revision, content FROM evidence_revisions"
_FIND = {"sqlite": "instr(content, :shy) > 0", "postgresql": "strpos(content, :shy) > 0"}


def upgrade() -> None:
    conn = op.get_bind()
    affected = conn.execute(
        sa.text(f"{_ALL} WHERE {_FIND[conn.dialect.name]} ORDER BY 1, 2"), {"shy": "\u00ad"}
    ).all()
    if not affected:
        return
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("DROP TABLE evidence_fts")
        conn.exec_driver_sql("DELETE FROM evidence_passages")
        conn.exec_driver_sql(FTS5_DDL)
        affected = conn.execute(sa.text(f"{_ALL} ORDER BY 1, 2")).all()
    else:
        for evidence_id, number, _ in affected:
            conn.execute(
                sa.text("DELETE FROM evidence_passages WHERE evidence_id = :e AND revision = :r"),
                {"e": evidence_id, "r": number},
            )
    for evidence_id, number, content in affected:
        index_revision(conn, evidence_id, number, content)


def downgrade() -> None:
    """Nothing to undo: the passages stay indexed the new way."""
