"""The database's own clock, so every instance judges leases by one time.

Instances on different hosts disagree about the time; a lease written by one and judged by
another with its own clock breaks as soon as the clocks drift further apart than the
lease's margin. Lease times are therefore computed and compared inside SQL from the
database server's clock: PostgreSQL's `clock_timestamp()` (the time of the statement,
not of the transaction start), SQLite's `'now'` (the clock of the one host whose processes
share the file), written in the text form SQLAlchemy's SQLite `DateTime` stores.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, DateTime, Float, func, literal, select, type_coerce

from sosoapi.store.database import Database
from sosoapi.store.records import utc

_SQLITE_FORMAT = "%Y-%m-%d %H:%M:%f"  # seconds with milliseconds: SS.SSS


def db_time(
    db: Database, plus_seconds: float | ColumnElement[float] = 0.0
) -> ColumnElement[datetime]:
    """A SQL expression of the database clock, `plus_seconds` ahead of now.

    `plus_seconds` may be a bound parameter, for a statement built once (`Database.prepared`).
    """
    if isinstance(plus_seconds, float | int):
        plus_seconds = literal(float(plus_seconds), Float)
    if db.is_sqlite:
        modifier = func.printf("%+.6f seconds", plus_seconds)
        shifted = func.strftime(_SQLITE_FORMAT, "now", modifier)
        return type_coerce(shifted.concat("000"), DateTime(timezone=True))  # microseconds
    secs = func.make_interval(0, 0, 0, 0, 0, 0, plus_seconds)
    return type_coerce(func.clock_timestamp() + secs, DateTime(timezone=True))


def db_now(db: Database) -> datetime:
    """The database clock read once, as an aware UTC datetime."""
    with db.read() as conn:
        value = conn.execute(select(db_time(db))).scalar_one()
    stamp = utc(value if isinstance(value, datetime) else datetime.fromisoformat(value))
    assert stamp is not None
    return stamp
