"""Connection reuse per origin: one small httpcore pool for each host and port.

httpcore's pool looks at every connection it holds (and polls each idle socket) whenever
a request starts or ends, so one pool shared by hundreds of origins spends O(origins)
system calls per request; profiled under load that was a fifth of the event loop's time
(bench/README.md, "Load"). A research fetcher talks to many origins a few times each, so
each origin gets its own pool of a few connections, and the least recently used idle
pools are closed once there are more than `max_origins`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpcore

Origin = tuple[str, int]


@dataclass(slots=True)
class _Entry:
    pool: httpcore.AsyncConnectionPool
    users: int = field(default=0)


class OriginPools:
    """Pools keyed by origin, in least-recently-used order; idle ones beyond the bound close."""

    def __init__(
        self, make_pool: Callable[[], httpcore.AsyncConnectionPool], *, max_origins: int = 256
    ) -> None:
        self._make_pool = make_pool
        self._max_origins = max_origins
        self._entries: OrderedDict[Origin, _Entry] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    @asynccontextmanager
    async def stream(
        self, origin: Origin, method: str, url: httpcore.URL, **kwargs: Any
    ) -> AsyncIterator[httpcore.Response]:
        entry = self._checkout(origin)
        try:
            async with entry.pool.stream(method, url, **kwargs) as response:
                yield response
        finally:
            entry.users -= 1
            await self._close_idle_overflow()

    def _checkout(self, origin: Origin) -> _Entry:
        entry = self._entries.get(origin)
        if entry is None:
            entry = self._entries[origin] = _Entry(self._make_pool())
        self._entries.move_to_end(origin)
        entry.users += 1
        return entry

    async def _close_idle_overflow(self) -> None:
        """Close least recently used pools nobody is using until within the bound."""
        excess = len(self._entries) - self._max_origins
        if excess <= 0:
            return
        idle = [origin for origin, entry in self._entries.items() if entry.users == 0][:excess]
        for origin in idle:
            await self._entries.pop(origin).pool.aclose()

    async def aclose(self) -> None:
        entries, self._entries = list(self._entries.values()), OrderedDict()
        for entry in entries:
            await entry.pool.aclose()
