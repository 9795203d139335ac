"""Per-origin politeness: a concurrency cap per process, a start interval for all.

At most `concurrency` requests to one origin at a time from this process, and request
starts to one origin at least `min_interval` seconds apart (or the origin's robots.txt
`Crawl-delay`, when longer). With a `shared` reservation (the store's pacing table), the
interval holds across every instance on one database; without one, within this process.
Waiting happens inside the fetch's total deadline; a fetch whose deadline passes while
waiting settles as `rate_limited`, never `timeout`. With a `Parking` (the read's owner
lets it wait: sosoapi/turns.py), a start after the deadline is waited for outside it,
holding none of the origin's concurrency, or refused at once with `TurnTooLate`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

_PRUNE_ABOVE = 4096
log = logging.getLogger("sosoapi.egress")
# (origin, interval) -> (seconds until our start, the start as reserved)
Reserve = Callable[[str, float], tuple[float, float]]
Release = Callable[[str, float, float], bool]  # (origin, interval, start) -> given back


class Parking(Protocol):
    """Lets a read wait for a turn after its deadline (the gate's side of turns.Keeper)."""

    @property
    def deadline(self) -> float:
        """The read's deadline, monotonic seconds."""
        ...

    async def park(self, seconds: float) -> bool:
        """True: the deadline stops and the read waits `seconds`; False: too late."""
        ...

    async def resume(self) -> None:
        """The turn has come: the deadline runs again (raises if the read must not run)."""
        ...


class TurnTooLate(Exception):
    """The origin's next turn for this read comes too late for it to wait (its owner said)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the origin's next turn is {seconds:.1f} s away")
        self.seconds = seconds


class _Held:
    """One of an origin's concurrency slots, taken and dropped at most once each way."""

    def __init__(self, semaphore: asyncio.Semaphore) -> None:
        self._semaphore = semaphore
        self._held = False

    async def take(self) -> None:
        await self._semaphore.acquire()
        self._held = True

    def drop(self) -> None:
        if self._held:
            self._held = False
            self._semaphore.release()


async def _wait_parked(wait: float, at: float, parking: Parking, held: _Held) -> None:
    """Wait for a turn after the deadline: parked, without one of the origin's concurrency
    slots (a read waiting for its turn has no connection open), which it takes back then."""
    if not await parking.park(wait):
        raise TurnTooLate(wait)
    held.drop()
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    await parking.resume()
    await held.take()


@dataclass
class _OriginState:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0
    users: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Politeness:
    """A concurrency limit and a minimum start interval per origin key."""

    def __init__(
        self,
        concurrency: int,
        min_interval: float,
        shared: Reserve | None = None,
        *,
        max_crawl_delay: float = 10.0,
        release: Release | None = None,
    ) -> None:
        self._concurrency = concurrency
        self._min_interval = min_interval
        self._max_crawl_delay = max_crawl_delay
        self._shared = shared
        self._release = release
        self._origins: dict[str, _OriginState] = {}

    def interval(self, crawl_delay: float | None) -> float:
        """The spacing of starts to an origin: ours, or the publisher's when longer, up to
        `max_crawl_delay` (SOSOAPI_ROBOTS_MAX_CRAWL_DELAY): a `Crawl-delay: 30` must not
        let one origin's queue outlast every read's deadline."""
        return max(self._min_interval, min(crawl_delay or 0.0, self._max_crawl_delay))

    @contextlib.asynccontextmanager
    async def slot(
        self,
        origin: str,
        crawl_delay: float | None = None,
        starts_at: Callable[[float], None] | None = None,
        parking: Parking | None = None,
    ) -> AsyncIterator[None]:
        """Hold one of `origin`'s request slots for the duration of the block.

        `starts_at` hears the monotonic time our start is reserved for, so a read that
        gives up waiting can say truthfully when the origin is free again. With `parking`,
        a start after its deadline is waited for parked (or refused: `TurnTooLate`).
        """
        state = self._origins.get(origin)
        if state is None:
            self._prune()
            state = self._origins[origin] = _OriginState(asyncio.Semaphore(self._concurrency))
        state.users += 1
        held = _Held(state.semaphore)
        try:
            await held.take()
            await self._space_out(
                origin, state, self.interval(crawl_delay), starts_at, parking, held
            )
            yield
        finally:
            held.drop()
            state.users -= 1

    async def _space_out(
        self,
        origin: str,
        state: _OriginState,
        interval: float,
        starts_at: Callable[[float], None] | None,
        parking: Parking | None,
        held: _Held,
    ) -> None:
        """Wait for our reserved start; a wait given up (deadline, caller gone, a turn too
        late) gives the reservation back when it is still the last one, so it does not
        push others out."""
        if interval <= 0:
            return
        wait, give_back = await self._reserve(origin, state, interval)
        at = time.monotonic() + wait
        if starts_at is not None:
            starts_at(at)
        if wait <= 0:
            return
        try:
            if parking is not None and at > parking.deadline:
                await _wait_parked(wait, at, parking, held)
            else:
                await asyncio.sleep(wait)
        except BaseException:
            await give_back()
            raise

    async def _reserve(
        self, origin: str, state: _OriginState, interval: float
    ) -> tuple[float, Callable[[], Awaitable[None]]]:
        """Our start (seconds from now) and how to give it back: shared across instances
        when the store is reachable, else in this process."""
        if self._shared is not None:
            try:
                wait, start = await asyncio.to_thread(self._shared, origin, interval)
            except Exception as exc:  # the database is away: keep pacing in this process
                log.warning("shared pacing failed origin=%s error=%s", origin, type(exc).__name__)
            else:
                return wait, functools.partial(self._give_back, origin, interval, start)
        async with state.lock:
            ours = max(state.next_start, time.monotonic())
            state.next_start = ours + interval

        async def give_back() -> None:
            if state.next_start == ours + interval:  # still the last: give it back
                state.next_start = ours

        return ours - time.monotonic(), give_back

    async def _give_back(self, origin: str, interval: float, start: float) -> None:
        if self._release is None:
            return
        try:
            await asyncio.shield(asyncio.to_thread(self._release, origin, interval, start))
        except Exception as exc:  # best effort: the reservation only lapses later
            log.warning("pacing give-back failed origin=%s error=%s", origin, type(exc).__name__)

    def _prune(self) -> None:
        if len(self._origins) < _PRUNE_ABOVE:
            return
        now = time.monotonic()
        for key, state in list(self._origins.items()):
            if state.users == 0 and state.next_start <= now:
                del self._origins[key]
