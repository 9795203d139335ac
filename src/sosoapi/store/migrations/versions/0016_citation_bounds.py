"""Stored citation fields held to the contract's bounds, so every revision reads again.

Before this revision a page's `<link rel="canonical">` (and a relative `og:url` or JSON-LD
`url` made absolute) was stored at any length, and a JSON-LD value could carry a NUL; the
contract bounds a citation value to 500 characters, so `evidence_get` of such a revision
answered 500 for good. This repairs the stored rows once, with the rule the reader now
applies before anything is stored (extract/citation.py), frozen here: a URL over the
bound is dropped (a cut URL names another page), other text is cut to the bound, at most
50 authors are kept, NUL and lone surrogates become U+FFFD, a field left empty is dropped
and a citation left empty becomes NULL. Only the `citation` column changes: it is not
part of a revision's digest, and the text a revision keeps is untouched.

Repaired here rather than on every read: each row is fixed once, and every reader of the
column (evidence_get, resources, the console, the WACZ export's bibliography) then reads
valid data without carrying the repair.

Revision ID: 0016
Revises: 0014
"""

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0014"
branch_labels = None
depends_on = None

VALUE_MAX = 500
NAMES_MAX = 50
KEY_MAX = 100
_URL_FIELDS = frozenset({"canonical_url"})
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_BATCH = 500

_revisions = sa.table(
    "evidence_revisions",
    sa.column("evidence_id", sa.String),
    sa.column("revision", sa.BigInteger),
    sa.column("citation", sa.Text),
)


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    cut = _UNSTORABLE.sub("\ufffd", value)[:VALUE_MAX]
    return cut if cut.strip() else None


def _field(name: str, field: Any) -> dict[str, Any] | None:
    """One stored field within the bounds, or None when nothing of it can be kept."""
    if not isinstance(field, dict):
        return None
    value = field.get("value")
    if isinstance(value, list):
        names = [name for name in map(_text, value) if name]
        kept: Any = list(dict.fromkeys(names))[:NAMES_MAX] or None
    elif name in _URL_FIELDS:
        kept = value if isinstance(value, str) and 0 < len(value) <= VALUE_MAX else None
    else:
        kept = _text(value)
    key = field.get("key")
    if kept is None or not isinstance(key, str) or not key:
        return None
    return {**field, "value": kept, "key": key[:KEY_MAX]}


def repaired(stored: str) -> str | None:
    """The stored citation JSON within the bounds (None: nothing left to keep)."""
    try:
        data = json.loads(stored)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    fields = {name: kept for name, field in data.items() if (kept := _field(name, field))}
    if not fields:
        return None
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def upgrade() -> None:
    conn = op.get_bind()
    after: tuple[str, int] | None = None
    while True:
        query = sa.select(
            _revisions.c.evidence_id, _revisions.c.revision, _revisions.c.citation
        ).where(_revisions.c.citation.is_not(None))
        if after is not None:
            query = query.where(
                sa.tuple_(_revisions.c.evidence_id, _revisions.c.revision) > sa.tuple_(*after)
            )
        rows = conn.execute(
            query.order_by(_revisions.c.evidence_id, _revisions.c.revision).limit(_BATCH)
        ).all()
        if not rows:
            return
        for evidence_id, number, stored in rows:
            fixed = repaired(stored)
            if fixed != stored:
                conn.execute(
                    _revisions.update()
                    .where(_revisions.c.evidence_id == evidence_id)
                    .where(_revisions.c.revision == number)
                    .values(citation=fixed)
                )
        after = (rows[-1][0], rows[-1][1])


def downgrade() -> None:
    pass  # the repaired values are valid under the old code too
