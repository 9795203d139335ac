"""Per-origin politeness: a concurrency cap per process, a start interval for all.

At most `concurrency` requests to one origin at a time from this process, and request
starts to one origin at least `min_interval` seconds apart (or the origin's robots.txt
`Crawl-delay`, when longer). With a `shared` reservation (the store's pacing table), the
interval holds across every instance on one database; without one, within this process.
Waiting happens inside the fetch's total deadline; a fetch whose deadline passes while
waiting settles as `rate_limited`, never `timeout`. A fetch whose caller can wait past its
deadline passes `late_after` (the deadline): a start after it is not waited for here but
raised at once as `TurnLate`, holding its `Reservation`, which the gate hands back up as a
value (`types.LateTurn`); `reserved` takes such a start up again at its turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

_PRUNE_ABOVE = 4096
log = logging.getLogger("sosoapi.egress")
# (origin, interval) -> (seconds until our start, the start as reserved)
Reserve = Callable[[str, float], tuple[float, float]]
Release = Callable[[str, float, float], bool]  # (origin, interval, start) -> given back


@dataclass(frozen=True, slots=True)
class Reservation:
    """One start reserved for an origin: when (monotonic seconds), and how to give it back
    unused, so a read that will not take it does not push others out."""

    at: float
    give_back: Callable[[], Awaitable[None]]


class TurnLate(Exception):
    """The reserved start comes after the fetch's deadline; the reservation is kept."""

    def __init__(self, start: Reservation) -> None:
        super().__init__(f"the origin's next turn is {start.at - time.monotonic():.1f} s away")
        self.start = start


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
        *,
        late_after: float | None = None,
        reserved: Reservation | None = None,
    ) -> AsyncIterator[None]:
        """Hold one of `origin`'s request slots for the duration of the block.

        `starts_at` hears the monotonic time our start is reserved for, so a read that
        gives up waiting can say truthfully when the origin is free again. A start after
        `late_after` raises `TurnLate` (the caller may wait for it outside the deadline);
        `reserved` is a start kept that way, taken up now.
        """
        state = self._origins.get(origin)
        if state is None:
            self._prune()
            state = self._origins[origin] = _OriginState(asyncio.Semaphore(self._concurrency))
        state.users += 1
        try:
            async with state.semaphore:
                start = reserved or await self._reserve(origin, state, self.interval(crawl_delay))
                await _wait_for(start, starts_at, late_after)
                yield
        finally:
            state.users -= 1

    async def _reserve(
        self, origin: str, state: _OriginState, interval: float
    ) -> Reservation | None:
        """Our start and how to give it back: shared across instances when the store is
        reachable, else in this process (None: no interval, no start to wait for)."""
        if interval <= 0:
            return None
        if self._shared is not None:
            reserving = asyncio.ensure_future(asyncio.to_thread(self._shared, origin, interval))
            try:
                wait, start = await asyncio.shield(reserving)
            except asyncio.CancelledError:  # given up while the store reserved: give it back
                await self._abandoned(reserving, origin, interval)
                raise
            except Exception as exc:  # the database is away: keep pacing in this process
                log.warning("shared pacing failed origin=%s error=%s", origin, type(exc).__name__)
            else:
                shared = functools.partial(self._give_back, origin, interval, start)
                return Reservation(time.monotonic() + wait, shared)
        async with state.lock:
            ours = max(state.next_start, time.monotonic())
            state.next_start = ours + interval

        async def give_back() -> None:
            if state.next_start == ours + interval:  # still the last: give it back
                state.next_start = ours

        return Reservation(ours, give_back)

    async def _abandoned(
        self, reserving: asyncio.Future[tuple[float, float]], origin: str, interval: float
    ) -> None:
        """A read given up (its deadline, its client gone) while the store was reserving
        its start: once the reservation is known it is given back, so a loaded machine's
        slow reserve never pushes the origin's next start out by a read that is not there."""
        try:
            _, start = await asyncio.shield(reserving)
        except Exception:  # nothing was reserved
            return
        await self._give_back(origin, interval, start)

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


async def _wait_for(
    start: Reservation | None,
    starts_at: Callable[[float], None] | None,
    late_after: float | None,
) -> None:
    """Wait for our reserved start; a wait given up (deadline, caller gone) gives the
    reservation back. A start after `late_after` is not waited for: `TurnLate`."""
    if start is None:
        return
    if starts_at is not None:
        starts_at(start.at)
    wait = start.at - time.monotonic()
    if wait <= 0:
        return
    if late_after is not None and start.at > late_after:
        raise TurnLate(start)
    try:
        await asyncio.sleep(wait)
    except BaseException:
        await start.give_back()
        raise
