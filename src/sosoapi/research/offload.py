"""Where CPU-bound parsing runs: worker processes sized to the machine, or threads.

HTML and caption parsing hold the GIL, so threads keep the event loop responsive but use
one core. With `parse_workers` > 0 the parsing functions (module-level, their arguments
and results plain data) run in a process pool, and the event loop keeps only the I/O.
Workers come from a forkserver that has imported the extractors once, so a new worker
costs a fork, not an import; a worker that dies fails only the parse it was running.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

import anyio

T = TypeVar("T")
log = logging.getLogger("sosoapi.offload")
PRELOAD = ["sosoapi.research.retrieval.reading"]


class Offload:
    """Runs a parsing function off the event loop: in the pool, or in a thread without one."""

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        if self.workers <= 0 or self._pool is not None:
            return
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context)
        log.info("parsing pool started workers=%d", self.workers)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        call = functools.partial(fn, *args, **kwargs)
        if self._pool is None:
            return await anyio.to_thread.run_sync(call)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)


_current = Offload()


def install(offload: Offload) -> None:
    """Make `offload` the one every reader of this process uses (the composition root)."""
    global _current
    _current = offload


async def off_loop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run CPU-bound parsing away from the event loop (see the module docstring)."""
    return await _current.run(fn, *args, **kwargs)
