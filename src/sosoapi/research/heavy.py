"""Where CPU-heavy read tools (and corpus exports) run: a bounded pool shared fairly
between workspaces.

The diff, the quote check and search once ran in the event loop's shared thread pool, so
45 diffs from one workspace held its threads and another workspace's 40 ms search waited
22 s behind them (even its authentication needs a thread of that pool). Here each heavy
job takes a slot of `FairSlots`, the retrievals' rule (free slots handed round-robin to
the workspaces waiting, at most `per_workspace` held by one, at most `max_waiting` queued
by one, past which a call is refused `busy` with Retry-After), and runs in a thread of
this pool's own limiter: the shared pool stays free for quick reads, and another
workspace's heavy job starts at the next free slot, never behind the burst.

A caller that goes away stops its work. Its task is cancelled (MCP `notifications/cancelled`,
an HTTP client disconnecting: `api/http.py`): a queued job leaves the queue unrun, and a
running one sees `should_stop()` turn true at its next checkpoint (between revisions,
between steps) and ends with `Stopped`.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.lowlevel

from sosoapi.contract.errors import ErrorCode, ServiceError, SosoapiError
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.operation import Call
from sosoapi.research.retrieval.fairness import RETRY_AFTER_SECONDS, FairSlots

T = TypeVar("T")
ShouldStop = Callable[[], bool]
log = logging.getLogger("sosoapi.heavy")


class Stopped(SosoapiError):
    """The caller went away; the job stopped at a checkpoint, its answer unwanted."""


def never() -> bool:
    """`should_stop` for a job run outside the pool (a bench, a test, the CLI)."""
    return False


def checkpoint(should_stop: ShouldStop) -> None:
    """Where a heavy job may stop: raise `Stopped` once its caller has gone."""
    if should_stop():
        raise Stopped("the caller went away; the job stopped")


def busy(workspace_id: str, max_waiting: int) -> ServiceError:
    return ServiceError(
        ErrorCode.BUSY,
        f"Workspace {workspace_id} already has {max_waiting} diffs, quote checks, searches or "
        f"exports waiting (SOSOAPI_HEAVY_READ_MAX_QUEUED_PER_WORKSPACE); this one was not started. "
        f"Retry after {RETRY_AFTER_SECONDS} s, or send fewer at once.",
        "workspace_id",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


def _libc_trim() -> Callable[[int], object] | None:
    """glibc's `malloc_trim`, or None elsewhere (musl, macOS)."""
    try:
        return getattr(ctypes.CDLL("libc.so.6"), "malloc_trim", None)
    except OSError:
        return None


_TRIM = _libc_trim()


def give_back_memory() -> None:
    """Hand the heap's free pages back to the system. A heavy job's texts are freed when it
    ends, but glibc keeps the freed arenas for reuse: after a flood of quote checks or
    exports the server held 1.8 GB it no longer used (bench/README.md, "Floods")."""
    if _TRIM is not None:
        _TRIM(0)


def _gone(cancel_requested: Callable[[], bool]) -> bool:
    """True once the caller asked to cancel, or the task waiting for this thread was
    cancelled (anyio tells a worker thread its host's cancel scope)."""
    if cancel_requested():
        return True
    try:
        anyio.from_thread.check_cancelled()
    except asyncio.CancelledError:
        return True
    return False


class HeavyReads:
    """`slots` heavy jobs at once across workspaces, each workspace's queue FIFO."""

    def __init__(self, settings: HeavyReadSettings | None = None) -> None:
        chosen = settings or HeavyReadSettings()
        self.slots = FairSlots(
            chosen.slots, chosen.per_workspace, chosen.max_queued_per_workspace, refuse=busy
        )
        self._threads = anyio.CapacityLimiter(chosen.slots)
        self._running = 0
        self._lock = threading.Lock()
        self.started = 0  # jobs that began running (a dropped queued job never counts)
        self.stopped = 0  # jobs that ended at a checkpoint because their caller went away

    async def run(self, call: Call[Any], job: Callable[..., T], *args: Any) -> T:
        """`job(*args, should_stop=...)` in this pool for `call`'s workspace, in its turn."""
        return await self.run_for(call.workspace_id, call.cancel_requested, job, *args)

    async def run_for(
        self,
        workspace_id: str,
        cancel_requested: Callable[[], bool],
        job: Callable[..., T],
        *args: Any,
    ) -> T:
        """`run` for work that is not a tool call (a corpus export): its workspace's turn,
        stopped by `cancel_requested` or by cancelling the awaiting task."""
        self.slots.reserve(workspace_id)  # refused here, before it waits
        async with self.slots.slot(workspace_id, reserved=True):
            should_stop = functools.partial(_gone, cancel_requested)
            work = functools.partial(job, *args, should_stop=should_stop)
            try:
                checkpoint(cancel_requested)
                self.started += 1
                return await anyio.to_thread.run_sync(
                    functools.partial(self._then_trim, work), limiter=self._threads
                )
            except Stopped:
                self.stopped += 1
                log.info("heavy read stopped: caller gone workspace=%s", workspace_id)
                await anyio.lowlevel.checkpoint_if_cancelled()  # the cancellation, if any
                raise

    def _then_trim(self, work: Callable[[], T]) -> T:
        """`work()` in a pool thread; the last job to end gives the freed memory back."""
        with self._lock:
            self._running += 1
        try:
            return work()
        finally:
            with self._lock:
                self._running -= 1
                last = self._running == 0
            if last:
                give_back_memory()
