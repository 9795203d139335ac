"""Crawl-delay cannot run away: it is honoured up to SOSOAPI_ROBOTS_MAX_CRAWL_DELAY, a read
that gives up waiting gives its reserved start back (in this process and in the shared
pacing table, both stores), and `retry_after_seconds` is never earlier than the origin's
real next start."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from sosoapi.config import egress_from_env
from sosoapi.egress.politeness import Politeness
from sosoapi.store.store import Store
from tests.egress.conftest import MakeEgress
from tests.support.origin import HTTPSOrigin, Route

HTML = ["text/html"]
PAGE = b"<html><body><p>Hello</p></body></html>"


def test_crawl_delay_is_capped() -> None:
    assert Politeness(2, 0.2).interval(30) == 10.0  # the default cap
    assert Politeness(2, 0.2, max_crawl_delay=3).interval(30) == 3
    assert Politeness(2, 0.2, max_crawl_delay=3).interval(1) == 1
    assert Politeness(2, 0.2).interval(None) == 0.2
    assert egress_from_env({"SOSOAPI_ROBOTS_MAX_CRAWL_DELAY": "4"}).robots_max_crawl_delay == 4
    with pytest.raises(ValueError, match="SOSOAPI_ROBOTS_MAX_CRAWL_DELAY"):
        egress_from_env({"SOSOAPI_ROBOTS_MAX_CRAWL_DELAY": "-1"})


async def _abandon(politeness: Politeness, origin: str, crawl_delay: float) -> None:
    """Wait for a slot, and give up after 0.2 s (a deadline, a client gone)."""
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2), politeness.slot(origin, crawl_delay):
            raise AssertionError("the slot was not expected so soon")


async def test_a_given_up_wait_gives_its_start_back_in_process() -> None:
    politeness = Politeness(4, 0.0)
    async with politeness.slot("o:443", 5):
        pass  # the first start: now
    for _ in range(5):  # five reads give up; none of them keeps a start
        await _abandon(politeness, "o:443", 5)
    heard: list[float] = []
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.2), politeness.slot("o:443", 5, heard.append):
            pass
    assert heard and heard[0] - time.monotonic() < 5.0  # not pushed 25 s out


async def test_a_read_given_up_while_the_store_reserves_gives_that_start_back() -> None:
    """A loaded machine: the shared reserve is still running when the read's deadline
    passes. The start it made is given back once known, not left to push the next read."""
    reserved = threading.Event()
    proceed = threading.Event()
    released: list[tuple[str, float, float]] = []

    def reserve(origin: str, interval: float) -> tuple[float, float]:
        reserved.set()
        proceed.wait(10)
        return 3.0, 1234.5  # (seconds to wait, the start the table holds for us)

    def release(origin: str, interval: float, start: float) -> None:
        released.append((origin, interval, start))

    politeness = Politeness(4, 0.0, reserve, release=release)
    reading = asyncio.ensure_future(_abandon(politeness, "slow.test:443", 3))
    await asyncio.to_thread(reserved.wait, 10)  # the reserve is running in its thread
    await asyncio.sleep(0.3)  # the read's 0.2 s deadline passes during it
    assert not reading.done()  # it waits for the reserve's answer to give it back
    proceed.set()
    await reading
    assert released == [("slow.test:443", 3, 1234.5)]


async def test_a_given_up_wait_gives_its_start_back_across_instances(database_url: str) -> None:
    store = Store(database_url)
    try:
        politeness = Politeness(4, 0.0, store.pacing.reserve_slot, release=store.pacing.release)
        async with politeness.slot("shared.test:443", 5):
            pass
        for _ in range(5):
            await _abandon(politeness, "shared.test:443", 5)
        wait, _ = store.pacing.reserve_slot("shared.test:443", 5)
        assert 0.0 < wait < 5.0  # the slot after the first one, not 30 s out
    finally:
        store.db.dispose()


async def test_retry_after_names_the_real_next_start(
    origin: HTTPSOrigin, make_egress: MakeEgress
) -> None:
    origin.routes["/open"] = Route(PAGE)
    origin.routes["/robots.txt"] = Route(
        b"User-agent: *\nCrawl-delay: 30\n", content_type="text/plain"
    )
    egress = make_egress(robots_txt="obey", total_timeout=1.0, per_origin_concurrency=4)
    first = await egress.fetch(origin.url("/open"), accept=HTML)
    assert first.reason is None
    second = await egress.fetch(origin.url("/open"), accept=HTML)
    assert second.reason == "rate_limited"
    # Crawl-delay 30 is honoured up to 10 s: the origin is free again in about 9 s, and the
    # answer says so (it said 1 before, whatever the wait).
    assert second.retry_after_seconds is not None and 8 <= second.retry_after_seconds <= 10
