"""Per-origin politeness: a concurrency cap per process, a start interval for all.

At most `concurrency` requests to one origin at a time from this process, and request
starts to one origin at least `min_interval` seconds apart (or the origin's robots.txt
`Crawl-delay`, when longer). With a `shared` reservation (the store's pacing table), the
interval holds across every instance on one database; without one, within this process.
Waiting happens inside the fetch's total deadline; a fetch whose deadline passes while
waiting settles as `rate_limited`, never `timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

_PRUNE_ABOVE = 4096
log = logging.getLogger("sosoapi.egress")
Reserve = Callable[[str, float], float]  # (origin, interval) -> seconds until our start


@dataclass
class _OriginState:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0
    users: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Politeness:
    """A concurrency limit and a minimum start interval per origin key."""

    def __init__(
        self, concurrency: int, min_interval: float, shared: Reserve | None = None
    ) -> None:
        self._concurrency = concurrency
        self._min_interval = min_interval
        self._shared = shared
        self._origins: dict[str, _OriginState] = {}

    def interval(self, crawl_delay: float | None) -> float:
        """The spacing of starts to an origin: ours, or the publisher's when longer."""
        return max(self._min_interval, crawl_delay or 0.0)

    @contextlib.asynccontextmanager
    async def slot(self, origin: str, crawl_delay: float | None = None) -> AsyncIterator[None]:
        """Hold one of `origin`'s request slots for the duration of the block."""
        state = self._origins.get(origin)
        if state is None:
            self._prune()
            state = self._origins[origin] = _OriginState(asyncio.Semaphore(self._concurrency))
        state.users += 1
        try:
            async with state.semaphore:
                await self._space_out(origin, state, self.interval(crawl_delay))
                yield
        finally:
            state.users -= 1

    async def _space_out(self, origin: str, state: _OriginState, interval: float) -> None:
        if interval <= 0:
            return
        if self._shared is not None:
            try:
                wait = await asyncio.to_thread(self._shared, origin, interval)
            except Exception as exc:  # the database is away: keep pacing in this process
                log.warning("shared pacing failed origin=%s error=%s", origin, type(exc).__name__)
            else:
                if wait > 0:
                    await asyncio.sleep(wait)
                return
        async with state.lock:
            wait = state.next_start - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            state.next_start = time.monotonic() + interval

    def _prune(self) -> None:
        if len(self._origins) < _PRUNE_ABOVE:
            return
        now = time.monotonic()
        for key, state in list(self._origins.items()):
            if state.users == 0 and state.next_start <= now:
                del self._origins[key]
