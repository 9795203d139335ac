"""Per-origin pacing and lease times held by the database, shared by every instance."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from sosoapi.store.clock import db_now
from sosoapi.store.store import Store


def test_two_instances_space_their_starts_to_one_origin_as_one_would(database_url: str) -> None:
    one, two = Store(database_url), Store(database_url, migrate=False)
    try:
        waits = [store.pacing.reserve("origin.test:443", 2.0) for store in (one, two, one, two)]
        other = two.pacing.reserve("elsewhere.test:443", 2.0)
    finally:
        one.close()
        two.close()
    # Reservations 2 s apart, whichever instance asks: waits of about 0, 2, 4, 6 s.
    assert waits[0] < 0.5
    for earlier, later in itertools.pairwise(waits):
        assert 1.5 < later - earlier <= 2.0 + 1e-6
    assert other < 0.5  # another origin is not held up


def test_a_quiet_origin_starts_now_and_old_rows_are_pruned(database_url: str) -> None:
    store = Store(database_url)
    try:
        assert store.pacing.reserve("quiet.test:443", 0.001) < 0.5
        assert store.pacing.prune(idle_seconds=3600) == 0
        assert store.pacing.prune(idle_seconds=-10) == 1  # everything older than now + 10 s
    finally:
        store.close()


def test_the_database_clock_is_read_as_utc(database_url: str) -> None:
    store = Store(database_url)
    try:
        stamp = db_now(store.db)
    finally:
        store.close()
    assert stamp.tzinfo is not None
    assert abs(stamp - datetime.now(UTC)) < timedelta(seconds=5)  # same host, same clock
