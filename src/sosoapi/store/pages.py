"""Keyset pagination: newest first by (created_at, id), with an opaque cursor."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Select, and_, or_

from sosoapi.store.records import BadCursor, utc


def encode_cursor(created_at: datetime, row_id: str) -> str:
    raw = json.dumps([utc(created_at).isoformat(), row_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, row_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return datetime.fromisoformat(created), str(row_id)
    except (ValueError, TypeError) as exc:
        raise BadCursor(str(exc)) from None


def page(
    query: Select[Any],
    created: Column[Any],
    ident: Column[Any],
    cursor: str | None,
    limit: int,
) -> Select[Any]:
    """Newest first, strictly after `cursor`, one row more than `limit` to detect a next page."""
    if cursor:
        at, row_id = decode_cursor(cursor)
        query = query.where(or_(created < at, and_(created == at, ident < row_id)))
    return query.order_by(created.desc(), ident.desc()).limit(limit + 1)


def split(
    rows: Sequence[Any], limit: int, created: str = "created_at", ident: str = "id"
) -> tuple[list[Any], str | None]:
    """The page's rows and the cursor of the next page (None on the last page)."""
    if len(rows) <= limit:
        return list(rows), None
    last = rows[limit - 1]._mapping
    return list(rows[:limit]), encode_cursor(last[created], last[ident])
