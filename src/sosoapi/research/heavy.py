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

The text work itself (a revision's quote check, a diff, a search hit's snippets) goes to
`processes` when the server has them (`compute`): in the job's thread it held the
interpreter's lock for tens of milliseconds a revision, and another workspace's quick
read, whose event loop needs that lock at every step, took up to 683 ms during a flood of
quote checks (bench/README.md, "Floods"). There the job's thread only reads the store and
waits for its answer, and the work runs in a process of its own at a lower priority, killed at
once when its caller goes away.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import functools
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.lowlevel

from sosoapi.contract.errors import ErrorCode, ServiceError, SosoapiError
from sosoapi.contract.vocabulary import Cause
from sosoapi.research.evidence.settings import HeavyReadSettings
from sosoapi.research.offload import Offload, ParseOverBound, ParseStopped
from sosoapi.research.operation import Call
from sosoapi.research.retrieval.fairness import RETRY_AFTER_SECONDS, FairSlots
from sosoapi.research.retrieval.settings import ParseBounds

T = TypeVar("T")
ShouldStop = Callable[[], bool]
log = logging.getLogger("sosoapi.heavy")
NICENESS = 10  # a heavy-read process runs after the server's quick reads, as exports do


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


@functools.cache
def _lower_priority() -> None:
    """Once per heavy-read process (it serves nothing else): below the server's reads."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)


def heavy_read(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in a heavy-read process, its priority lowered first (the pool's logs
    name this function)."""
    _lower_priority()
    return fn(*args)


def too_large(over: ParseOverBound, bounds: ParseBounds) -> ServiceError:
    if over.cause == Cause.PARSE_DEADLINE:
        what = f"took longer than {bounds.deadline_seconds:g} s"
    else:
        what = f"needed more than {bounds.memory_mb} MiB"
    return ServiceError(
        ErrorCode.TOO_LARGE,
        f"Checking one revision (or one pair) {what}, the heavy-read bound, and was stopped. "
        "Ask about shorter texts, or fewer revisions at once (one evidence, not a corpus).",
    )


class HeavyReads:
    """`slots` heavy jobs at once across workspaces, each workspace's queue FIFO; their
    text work in `processes` (one per slot) when given, else in the job's thread."""

    def __init__(
        self, settings: HeavyReadSettings | None = None, processes: Offload | None = None
    ) -> None:
        self.processes = processes
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

    @property
    def separate(self) -> bool:
        """Whether the text work runs in processes of its own."""
        return self.processes is not None and self.processes.workers > 0

    def compute(self, fn: Callable[..., T], *args: Any, should_stop: ShouldStop | None = None) -> T:
        """`fn(*args)` from a job's thread: in a heavy-read process (`fn` a module-level
        function of plain data), or here without processes, where `fn` is also handed
        `should_stop` if given (its checkpoints between steps). A caller gone meanwhile
        ends the process at once (`Stopped`); past the pool's deadline or memory cap,
        `too_large`."""
        if self.processes is None or not self.separate:
            return fn(*args) if should_stop is None else fn(*args, should_stop=should_stop)
        try:
            answer: T = anyio.from_thread.run(self.processes.run, heavy_read, fn, *args)
        except (asyncio.CancelledError, concurrent.futures.CancelledError, ParseStopped):
            raise Stopped("the caller went away; the job stopped") from None
        except ParseOverBound as over:
            raise too_large(over, self.processes.bounds) from None
        return answer

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
