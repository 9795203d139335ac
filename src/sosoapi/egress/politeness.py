"""Per-origin politeness shared by every fetch of the process.

At most `concurrency` requests to one origin at a time, and request starts to one origin
at least `min_interval` seconds apart. Waiting happens inside the fetch's total deadline;
a fetch whose deadline passes while waiting settles as `rate_limited`, never `timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

_PRUNE_ABOVE = 4096


@dataclass
class _OriginState:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0
    users: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Politeness:
    """A concurrency limit and a minimum start interval per origin key."""

    def __init__(self, concurrency: int, min_interval: float) -> None:
        self._concurrency = concurrency
        self._min_interval = min_interval
        self._origins: dict[str, _OriginState] = {}

    @contextlib.asynccontextmanager
    async def slot(self, origin: str) -> AsyncIterator[None]:
        """Hold one of `origin`'s request slots for the duration of the block."""
        state = self._origins.get(origin)
        if state is None:
            self._prune()
            state = self._origins[origin] = _OriginState(asyncio.Semaphore(self._concurrency))
        state.users += 1
        try:
            async with state.semaphore:
                await self._space_out(state)
                yield
        finally:
            state.users -= 1

    async def _space_out(self, state: _OriginState) -> None:
        if self._min_interval <= 0:
            return
        async with state.lock:
            wait = state.next_start - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            state.next_start = time.monotonic() + self._min_interval

    def _prune(self) -> None:
        if len(self._origins) < _PRUNE_ABOVE:
            return
        now = time.monotonic()
        for key, state in list(self._origins.items()):
            if state.users == 0 and state.next_start <= now:
                del self._origins[key]
