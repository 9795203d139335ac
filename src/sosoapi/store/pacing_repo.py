"""Per-origin request starts paced across every instance sharing the database.

Each fetch reserves its start time in one statement: `last_start` becomes the later of
(previous reservation + interval) and now, and the caller sleeps until it. Reservations
are serialised by the row (PostgreSQL's row lock under `ON CONFLICT DO UPDATE`, SQLite's
write lock), so three instances space their starts to one origin exactly as one would.
Times are epoch seconds on the database clock (store/clock.py explains why).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    bindparam,
    delete,
    func,
    literal_column,
    type_coerce,
    update,
)

from sosoapi.store.database import Database
from sosoapi.store.tables import origin_pacing

_SQLITE_EPOCH = "((julianday('now') - 2440587.5) * 86400.0)"
_POSTGRES_EPOCH = "extract(epoch from clock_timestamp())"


PRUNE_EVERY = 1024  # reservations between prunes of idle origins
IDLE_SECONDS = 3600.0  # an origin not started for this long has a free next start


def _epoch(db: Database) -> ColumnElement[float]:
    raw = _SQLITE_EPOCH if db.is_sqlite else _POSTGRES_EPOCH
    return type_coerce(literal_column(raw), Float)


def _reserve(db: Database) -> Any:
    """The reservation, built once per database (`Database.prepared`)."""
    now = _epoch(db)
    greatest = func.max if db.is_sqlite else func.greatest
    interval = bindparam("interval", type_=Float)
    return (
        db.insert(origin_pacing)
        .values(origin=bindparam("origin"), last_start=now)
        .on_conflict_do_update(
            index_elements=[origin_pacing.c.origin],
            set_={"last_start": greatest(origin_pacing.c.last_start + interval, now)},
        )
        .returning(origin_pacing.c.last_start, now)
    )


class PacingRepository:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._reserved = 0

    def reserve(self, origin: str, interval: float) -> float:
        """Reserve the next start to `origin`, `interval` seconds after the previous one;
        return how many seconds from now that start is (0 when it is now)."""
        return self.reserve_slot(origin, interval)[0]

    def reserve_slot(self, origin: str, interval: float) -> tuple[float, float]:
        """As `reserve`, with the reserved start itself (to give it back with `release`)."""
        statement = self.db.prepared(_reserve)
        with self.db.write_one() as conn:
            start, at = conn.execute(statement, {"origin": origin, "interval": interval}).one()
        self._reserved += 1
        if self._reserved % PRUNE_EVERY == 0:  # one row per origin ever read: keep it bounded
            self.prune(IDLE_SECONDS)
        return max(0.0, float(start) - float(at)), float(start)

    def release(self, origin: str, interval: float, start: float) -> bool:
        """Give back a reserved start whose read is gone, if it is still the last one.

        Only the latest reservation can go back (the next one then takes its place);
        an earlier one stays as a gap, never shifting a later caller's start. True when
        given back.
        """
        with self.db.write_one() as conn:
            result = conn.execute(
                update(origin_pacing)
                .where(origin_pacing.c.origin == origin, origin_pacing.c.last_start == start)
                .values(last_start=origin_pacing.c.last_start - interval)
            )
        return result.rowcount == 1

    def prune(self, idle_seconds: float) -> int:
        """Forget origins not started for `idle_seconds` (their next start is free)."""
        with self.db.write_one() as conn:
            result = conn.execute(
                delete(origin_pacing).where(
                    origin_pacing.c.last_start < _epoch(self.db) - idle_seconds
                )
            )
        return result.rowcount
