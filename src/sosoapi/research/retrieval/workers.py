"""This instance's receipt workers: start, lease, read, settle, and wake the waiters.

A worker takes a receipt's lease (`pending -> running`), renews it every third of the
lease while it reads, and settles the receipt with its evidence in one transaction, only
while it still holds the lease. Waiters for work running here wake with the record and
result it settled; work elsewhere is polled for.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TypeVar

import anyio
from anyio.abc import TaskGroup

from sosoapi.contract.documents import AnyResult
from sosoapi.contract.vocabulary import SETTLED_STATES, Reason, State
from sosoapi.progress import Board, Step, listening
from sosoapi.research.evidence.identity import settle_writes
from sosoapi.research.ports import RetrievalsRepo
from sosoapi.research.retrieval.captures import Captured
from sosoapi.research.retrieval.draft import unread
from sosoapi.research.retrieval.fairness import FairSlots
from sosoapi.research.retrieval.finished import AnyFinished
from sosoapi.research.retrieval.pending_turns import LeaseLost, PendingUntilTurn
from sosoapi.research.retrieval.quota import within_limit
from sosoapi.research.retrieval.settings import ReceiptSettings
from sosoapi.store.records import EvidenceWrite as Evidence
from sosoapi.store.records import RetrievalRecord, Settled, StoreUnavailable

log = logging.getLogger("sosoapi.receipts")
# A reader of (kind, url, language) answers a result, or one with the captures of what it
# read; the receipt's `PendingUntilTurn` says whether it may wait for a late turn.
Reader = Callable[[str, str, str | None, PendingUntilTurn], Awaitable[AnyFinished | Captured]]
T = TypeVar("T")


@dataclass(slots=True)
class _Settling:
    """What waiters for one receipt wake on: this instance's work on it ending, with the
    record and result it settled (None when it settled nothing: waiters read the store)."""

    event: anyio.Event = field(default_factory=anyio.Event)
    record: RetrievalRecord | None = None
    result: AnyResult | None = None


class ReceiptWorkers:
    """Runs receipt work in one task group, at most the fair share of slots per workspace."""

    def __init__(
        self,
        retrievals: RetrievalsRepo,
        reader: Reader,
        settings: ReceiptSettings,
        clock: Callable[[], datetime],
        owner: str,
    ) -> None:
        self.retrievals = retrievals
        self.reader = reader
        self.settings = settings
        self.clock = clock
        self.owner = owner
        self.slots = FairSlots(
            settings.max_concurrent_retrievals,
            settings.slots_per_workspace,
            settings.max_queued_per_workspace,
        )
        self._tg: TaskGroup | None = None
        self._accepting = False
        self._running: dict[str, anyio.CancelScope] = {}
        self._parked: set[str] = set()  # running work waiting `pending` for an origin's turn
        self._handed_back: set[str] = set()
        self._settled: dict[str, _Settling] = {}
        self._changed = anyio.Event()  # set when a worker ends, parks or resumes
        self.watchers = Board()  # the callers waiting here on each receipt's steps

    def open(self, tg: TaskGroup) -> None:
        self._tg, self._accepting = tg, True

    def stop_accepting(self) -> None:
        """Stopping: queued work stays pending for the next instance."""
        self._accepting = False

    def close(self) -> None:
        self._tg = None

    async def wind_down(self) -> None:
        """Return once no worker of this instance is running. Work that is reading goes on
        to its end; a read parked for an origin's turn is handed back (pending, unleased,
        so another instance resumes it now) and stopped, instead of holding the shutdown
        until its turn."""
        while self._running:
            changed = self._changed = anyio.Event()
            for retrieval_id in sorted(self._parked - self._handed_back):
                self._handed_back.add(retrieval_id)
                if await self._hand_back(retrieval_id):
                    self.cancel_work(retrieval_id)
            if self._running and not self._parked - self._handed_back:
                await changed.wait()

    async def _hand_back(self, retrieval_id: str) -> bool:
        """Release a parked read's lease; True when its work should stop now. With the
        store unavailable it stops too: its lease runs out, and any instance resumes it."""
        try:
            released = await anyio.to_thread.run_sync(
                self.retrievals.release, retrieval_id, self.owner
            )
        except StoreUnavailable:
            log.warning("retrieval not handed back: store unavailable id=%s", retrieval_id)
            return True
        if released:
            log.info("retrieval handed back at shutdown id=%s", retrieval_id)
        return released

    def _watch_turn(self, retrieval_id: str, parked: bool) -> None:
        """A read parked for its origin's turn, or resumed at it (`PendingUntilTurn`'s watch)."""
        if parked:
            self._parked.add(retrieval_id)
        else:
            self._parked.discard(retrieval_id)
        self._changed.set()

    def cancel_work(self, retrieval_id: str) -> None:
        """Stop this instance's work on a receipt, if it has any."""
        scope = self._running.get(retrieval_id)
        if scope is not None:
            scope.cancel()

    def start(self, retrieval_id: str, reserved_for: str | None = None) -> None:
        """Start a worker; `reserved_for` is the workspace whose queue place it takes."""
        if self._tg is None or not self._accepting or retrieval_id in self._running:
            if reserved_for is not None:
                self.slots.unreserve(reserved_for)
            return
        scope = anyio.CancelScope()
        self._running[retrieval_id] = scope
        self._tg.start_soon(self._work, retrieval_id, scope, reserved_for)

    @property
    def accepting(self) -> bool:
        return self._tg is not None and self._accepting

    def start_leased(self, record: RetrievalRecord) -> None:
        """Start the read of a receipt claimed already leased to this instance, in the slot
        its claim took (`FairSlots.hold_now`). Claimed while accepting, it runs even if a
        stop began since: running work finishes within the grace, as any other."""
        if self._tg is None:  # the service stopped: the lease runs out and is judged
            self.slots.release(record.workspace_id)
            log.warning("retrieval not started: service stopped id=%s", record.id)
            return
        scope = anyio.CancelScope()
        self._running[record.id] = scope
        self._tg.start_soon(self._work_leased, record, scope)

    async def load(self, retrieval_id: str) -> RetrievalRecord:
        record = await anyio.to_thread.run_sync(self.retrievals.retrieval_by_id, retrieval_id)
        assert record is not None
        return record

    async def wait(self, record: RetrievalRecord) -> tuple[RetrievalRecord, AnyResult | None]:
        """Wait up to the budget for a settled state, and the result if this instance has it.

        Work running here wakes its waiters when it ends, with the record it settled; only
        work elsewhere (another instance, or not yet started) is polled for.
        """
        if record.state in SETTLED_STATES:
            return record, None
        interval = 0.02
        with anyio.move_on_after(self.settings.wait_budget_seconds):
            while True:
                settling = self._settled.setdefault(record.id, _Settling())
                if record.id in self._running:
                    await settling.event.wait()
                else:
                    with anyio.move_on_after(interval):
                        await settling.event.wait()
                    interval = min(interval * 2, 0.5)
                if settling.record is not None:
                    return settling.record, settling.result
                record = await self.load(record.id)
                if record.state in SETTLED_STATES:
                    return record, None
        return await self.load(record.id), None

    def notify(self, retrieval_id: str) -> None:
        settling = self._settled.pop(retrieval_id, None)
        if settling is not None:
            settling.event.set()

    async def _work(
        self, retrieval_id: str, scope: anyio.CancelScope, reserved_for: str | None
    ) -> None:
        async def work() -> None:
            workspace_id = reserved_for or (await self.load(retrieval_id)).workspace_id
            async with self.slots.slot(workspace_id, reserved=reserved_for is not None):
                if self._accepting:
                    await self.run_leased(retrieval_id)

        await self._guarded(retrieval_id, scope, work)

    async def _work_leased(self, record: RetrievalRecord, scope: anyio.CancelScope) -> None:
        async def work() -> None:
            try:
                await self._run(record, self.reader)
            finally:
                self.slots.release(record.workspace_id)

        await self._guarded(record.id, scope, work)

    async def _guarded(
        self, retrieval_id: str, scope: anyio.CancelScope, work: Callable[[], Awaitable[None]]
    ) -> None:
        """Run one receipt's work; whatever happens, its waiters wake."""
        try:
            with scope:
                await work()
        except StoreUnavailable:  # stays pending (or leased): the sweep resumes or judges it
            log.warning("retrieval worker stopped: store unavailable id=%s", retrieval_id)
        except LeaseLost:  # settled, cancelled or taken over while it waited for its turn
            log.warning("retrieval worker stopped: lease lost at its turn id=%s", retrieval_id)
        except Exception:
            log.exception("retrieval worker failed id=%s", retrieval_id)
        finally:
            self._running.pop(retrieval_id, None)
            self._parked.discard(retrieval_id)
            self.notify(retrieval_id)
            self._changed.set()

    async def run_leased(self, retrieval_id: str, reader: Reader | None = None) -> None:
        """Take the lease, read while renewing it, and settle; nothing if the lease is taken."""
        record = await anyio.to_thread.run_sync(
            self.retrievals.acquire, retrieval_id, self.owner, self.settings.lease_seconds
        )
        if record is not None:
            await self._run(record, reader or self.reader)

    async def _run(self, record: RetrievalRecord, reader: Reader) -> None:
        """Read a receipt this instance holds the lease of, renewing it, then settle; an
        origin's turn after the read's deadline is waited for `pending` (pending_turns.py)."""
        log.info("retrieval running id=%s kind=%s", record.id, record.kind)
        results: list[Captured] = []
        turn = PendingUntilTurn(
            self.retrievals,
            record,
            self.owner,
            self.settings.lease_seconds,
            self.clock,
            self._watch_turn,
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._renew, record.id, tg.cancel_scope)
            with listening(self.watchers.send(record.id)):
                results.append(await self._read(record, reader, turn))
            tg.cancel_scope.cancel()
        if results:
            await self._settle(record, results[0])

    async def _read(
        self, record: RetrievalRecord, reader: Reader, turn: PendingUntilTurn
    ) -> Captured:
        """Read the source; an unexpected failure settles as `unavailable`, never as success."""
        try:
            read = await reader(record.kind, record.url, record.language, turn)
        except LeaseLost:
            raise
        except Exception:
            log.exception("retrieval reader failed id=%s", record.id)
            return Captured(unread(record.kind, Reason.UNAVAILABLE, self.clock()))
        return read if isinstance(read, Captured) else Captured(read)

    async def _renew(self, retrieval_id: str, work: anyio.CancelScope) -> None:
        while True:
            await anyio.sleep(self.settings.renew_interval_seconds)
            try:
                kept = await anyio.to_thread.run_sync(
                    self.retrievals.renew, retrieval_id, self.owner, self.settings.lease_seconds
                )
            except StoreUnavailable:  # keep reading: settling retries once the store is back
                continue
            if not kept:
                log.warning("retrieval lease lost id=%s; abandoning work", retrieval_id)
                work.cancel()
                return

    async def _settle(self, record: RetrievalRecord, read: Captured) -> None:
        now = self.clock()
        kept = read.captures if self.settings.keep_captures else ()
        parts = (record.workspace_id, read.finished, kept, read.citation, read.passages)
        writes = functools.cache(functools.partial(settle_writes, *parts))  # in write's thread

        def encoded(finished: AnyFinished) -> str:
            # the read's own result was encoded once, off the loop, with its evidence; the
            # `storage_full` result that may replace it (quota.within_limit) is small
            return writes()[0] if finished is read.finished else finished.result.model_dump_json()

        def settle(finished: AnyFinished, evidence: Evidence | None) -> Settled | None:
            return self.retrievals.settle(
                record.id, self.owner, State.COMPLETED, encoded(finished), now, evidence,
                outcome=(finished.result.status, finished.result.reason), cause=finished.cause,
            )  # fmt: skip

        stored = await self._when_stored(
            lambda: within_limit(settle, read.finished, writes()[1], now)
        )
        finished, settled = stored or (read.finished, None)
        log.info(
            "retrieval settled id=%s status=%s reason=%s cause=%s kept=%s",
            record.id, finished.result.status, finished.result.reason, finished.cause,
            settled is not None,
        )  # fmt: skip
        if settled is not None:
            self.watchers.send(record.id)(Step("stored"))
        settling = self._settled.get(record.id)
        if settled is not None and settling is not None:
            settling.record = replace(
                record,
                state=State.COMPLETED,
                result=encoded(finished),
                settled_at=now,
                lease_owner=None,
                evidence_id=settled.evidence_id,
                evidence_revision=settled.evidence_revision,
                cause=finished.cause,
            )
            settling.result = finished.result

    async def _when_stored(self, write: Callable[[], T]) -> T | None:
        """Run `write`, retrying through a store outage for up to one lease.

        A read that finished while the database was down still settles once it is back;
        past the lease the sweep judges the receipt `unconfirmed` instead.
        """
        delay = 0.1
        with anyio.move_on_after(self.settings.lease_seconds):
            while True:
                try:
                    return await anyio.to_thread.run_sync(write)
                except StoreUnavailable:
                    await anyio.sleep(delay)
                    delay = min(delay * 2, 2.0)
        log.warning("settling gave up: the store stayed unavailable for a lease")
        return None
