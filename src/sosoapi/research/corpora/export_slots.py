"""How many corpus exports a server keeps open at once: a fixed budget, shared fairly.

An export holds a process of its own (`export_process.py`; on a server without parsing
processes, a thread that zips as the client reads) from its build until its answer is
sent, and the answer goes at the client's pace. The heavy-read pool bounded only the
build, so a caller with many concurrent downloads held that many processes (about 45 MiB
and one archive of scratch each). Here each served export takes one of `slots` for its
whole life, handed out by the heavy-read pool's rule (`FairSlots`: round-robin across the
workspaces waiting, at most `per_workspace` held by one, at most `max_queued_per_workspace`
waiting per workspace, past which a call is refused `busy` with Retry-After before
anything starts). So another workspace's export starts at the next free slot, however
many one caller sends.

A caller that goes away gives its place back: a queued export leaves the queue and never
starts (its awaiting task is cancelled: `disconnects.unless_gone`), a building one is
ended by the heavy-read pool, and one being sent is closed when its answer stops
(`ServedExport.aclose`), which ends its process and frees the slot.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio

from sosoapi.contract.errors import ErrorCode, ServiceError
from sosoapi.research.corpora.settings import ExportSettings
from sosoapi.research.corpora.wacz_package import Counts, ExportSummary, Package
from sosoapi.research.retrieval.fairness import RETRY_AFTER_SECONDS, FairSlots

log = logging.getLogger("sosoapi.exports")


def busy(workspace_id: str, max_waiting: int) -> ServiceError:
    return ServiceError(
        ErrorCode.BUSY,
        f"Workspace {workspace_id} already has {max_waiting} corpus exports waiting for a "
        f"slot (SOSOAPI_EXPORT_MAX_QUEUED_PER_WORKSPACE) beside the ones being sent; this "
        f"one was not started. Retry after {RETRY_AFTER_SECONDS} s, or download fewer at "
        "once: each export finishes sooner when fewer share the server.",
        "workspace_id",
        retry_after_seconds=RETRY_AFTER_SECONDS,
    )


class ServedExport:
    """A built export being sent; it holds its slot (and its process) until `aclose`."""

    def __init__(self, package: Package, release: Callable[[], None]) -> None:
        self.package = package
        self._chunks = package.chunks()
        self._release: Callable[[], None] | None = release

    @property
    def counts(self) -> Counts:
        return self.package.counts

    @property
    def summary(self) -> ExportSummary:
        return self.package.summary

    async def stream(self) -> AsyncIterator[bytes]:
        """The ZIP's chunks, each made (or received from the export's process) off the
        event loop."""
        while chunk := await anyio.to_thread.run_sync(next, self._chunks, b""):
            yield chunk

    async def aclose(self) -> None:
        """End the export (its process, its scratch) and give its slot to the next in
        turn; safe to call again, and done even when the caller is being cancelled."""
        release, self._release = self._release, None
        if release is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                await anyio.to_thread.run_sync(self._chunks.close)
                await anyio.to_thread.run_sync(self.package.close)
            finally:
                release()


class ExportSlots:
    """`slots` exports open at once across workspaces, each workspace's queue FIFO."""

    def __init__(self, settings: ExportSettings | None = None) -> None:
        chosen = settings or ExportSettings()
        self.slots = FairSlots(
            chosen.slots, chosen.per_workspace, chosen.max_queued_per_workspace, refuse=busy
        )
        self.started = 0  # exports that took a slot (a queued one dropped never counts)
        self.open = 0  # exports holding a slot now
        self.peak = 0  # the most held at once (an operator's and a test's view)

    async def serve(
        self, workspace_id: str, build: Callable[[], Awaitable[Package]]
    ) -> ServedExport:
        """`build()` once `workspace_id` holds a slot, in its turn; the slot stays held by
        the answer until its `aclose`. Refused `busy` (nothing started) past the queue."""
        self.slots.reserve(workspace_id)
        await self.slots.take(workspace_id, reserved=True)
        self.started += 1
        self.open += 1
        self.peak = max(self.peak, self.open)
        try:
            package = await build()
        except BaseException:
            self._give_back(workspace_id)
            raise
        return ServedExport(package, lambda: self._give_back(workspace_id))

    def _give_back(self, workspace_id: str) -> None:
        self.open -= 1
        self.slots.release(workspace_id)
        log.debug("export slot released workspace=%s open=%d", workspace_id, self.open)
