"""Page cursors: one codec for every list and for search, every field checked on the way
in. A cursor is base64url of a short JSON array that starts with its kind: a keyset position
(`["k", created_at, row_id]`, lists newest first) or a search offset (`["s", offset,
fingerprint]`). Cursors are not signed; they carry nothing secret, and the reader
validates each field instead (type, range, shape), so a forged cursor is a `BadCursor`
(a 400 naming `cursor` on every surface) and never reaches SQL as something it cannot
hold: a 2**63 offset, a boolean, a NUL, a date the database cannot store.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import UTC, datetime
from typing import Any

from sosoapi.contract.errors import SosoapiError


class BadCursor(SosoapiError, ValueError):
    """The cursor was not issued by this server (the message says which part is wrong)."""


MAX_CURSOR_CHARS = 512  # the contract's bound on `cursor`
MAX_SEARCH_OFFSET = 10_000  # search serves the first 10,000 results of a query
_ROW_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _encode(fields: list[Any]) -> str:
    raw = json.dumps(fields, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, kind: str, size: int) -> list[Any]:
    if len(cursor) > MAX_CURSOR_CHARS or not re.fullmatch(r"[A-Za-z0-9_-]+", cursor):
        raise BadCursor("it is not base64url text of at most 512 characters")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        fields = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, RecursionError):
        raise BadCursor("it does not decode") from None
    if not isinstance(fields, list) or len(fields) != size or fields[0] != kind:
        raise BadCursor("it is not a cursor of this list")
    return fields


def encode_keyset(created_at: datetime, row_id: str) -> str:
    """The position after the row (created_at, row_id) of a newest-first list."""
    return _encode(["k", created_at.astimezone(UTC).isoformat(), row_id])


def decode_keyset(cursor: str) -> tuple[datetime, str]:
    """(created_at in UTC, row_id) of a keyset cursor, each checked."""
    _, created, row_id = _decode(cursor, "k", 3)
    if not isinstance(row_id, str) or not _ROW_ID.fullmatch(row_id):
        raise BadCursor("its row id is not an id this server issues")
    if not isinstance(created, str) or len(created) > 40:
        raise BadCursor("its time is not an ISO 8601 time")
    try:
        at = datetime.fromisoformat(created)
        if at.tzinfo is None:
            raise ValueError("no time zone")
        at = at.astimezone(UTC)
    except (ValueError, OverflowError):
        raise BadCursor("its time is not an ISO 8601 time with a time zone") from None
    if not _EARLIEST <= at <= _LATEST:
        raise BadCursor("its time is outside the times this server stores")
    return at, row_id


def encode_search(offset: int, fingerprint: str) -> str:
    """The position `offset` results into the search whose scope hashes to `fingerprint`."""
    return _encode(["s", offset, fingerprint])


def decode_search(cursor: str, fingerprint: str) -> int:
    """The offset of a search cursor issued for this very query and scope."""
    _, offset, issued_for = _decode(cursor, "s", 3)
    if not isinstance(issued_for, str) or not _FINGERPRINT.fullmatch(issued_for):
        raise BadCursor("it is not a search cursor")
    if issued_for != fingerprint:
        raise BadCursor("it was issued for another query or scope")
    if type(offset) is not int or not 0 <= offset <= MAX_SEARCH_OFFSET:
        raise BadCursor(f"its offset is not a whole number from 0 to {MAX_SEARCH_OFFSET}")
    return offset
