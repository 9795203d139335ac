"""Keyset pagination: newest first by (created_at, id); the cursor codec is
`store/cursors.py` (shared with search)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Column, Select, and_, or_

from sosoapi.store.cursors import decode_keyset, encode_keyset
from sosoapi.store.records import utc


def page(
    query: Select[Any],
    created: Column[Any],
    ident: Column[Any],
    cursor: str | None,
    limit: int,
) -> Select[Any]:
    """Newest first, strictly after `cursor`, one row more than `limit` to detect a next page."""
    if cursor:
        at, row_id = decode_keyset(cursor)
        query = query.where(or_(created < at, and_(created == at, ident < row_id)))
    return query.order_by(created.desc(), ident.desc()).limit(limit + 1)


def split(
    rows: Sequence[Any], limit: int, created: str = "created_at", ident: str = "id"
) -> tuple[list[Any], str | None]:
    """The page's rows and the cursor of the next page (None on the last page)."""
    if len(rows) <= limit:
        return list(rows), None
    last = rows[limit - 1]._mapping
    return list(rows[:limit]), encode_keyset(utc(last[created]), last[ident])
