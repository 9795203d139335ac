"""Durable retrieval receipts: claim, wait, lease, settle, sweep, resume, cancel.

A receipt is claimed once per (workspace_id, mutation_id). The call that claims it starts
a worker in the service's own task group (so a client that disconnects does not stop the
read), then every call for that key waits up to the wait budget and returns the receipt as
it stands. Workers hold a renewable lease; only lease expiry makes a receipt `unconfirmed`.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

import anyio
from anyio.abc import TaskGroup

from sosoapi.contract.errors import ServiceError
from sosoapi.contract.models import (
    EvidenceRef,
    Retrieval,
    RetrieveInput,
    RetrieveOutput,
    RetrieveResult,
    UploadInput,
)
from sosoapi.contract.vocabulary import OPEN_STATES, SETTLED_STATES, Reason, State
from sosoapi.research.evidence import evidence_write
from sosoapi.research.fairness import FairSlots
from sosoapi.research.mutations import ensure_same, new_mutation
from sosoapi.research.settings import ReceiptSettings
from sosoapi.research.status import Draft
from sosoapi.store.faults import StoreUnavailable
from sosoapi.store.mutations_repo import NewMutation
from sosoapi.store.records import RetrievalRecord
from sosoapi.store.retrievals_repo import Settled
from sosoapi.store.store import Store

log = logging.getLogger("sosoapi.receipts")
TOOL = "sosoapi_research_evidence_retrieve"
UPLOAD_TOOL = "sosoapi_research_evidence_upload"
Reader = Callable[[str, str, str | None], Awaitable[RetrieveResult]]


def utcnow() -> datetime:
    return datetime.now(UTC)


def receipt_of(record: RetrievalRecord, parsed: RetrieveResult | None = None) -> RetrieveOutput:
    """The contract receipt of a stored retrieval, in whatever state it is.

    `parsed` is `record.result` already as a model (this instance just settled it).
    """
    result = parsed or (
        RetrieveResult.model_validate_json(record.result) if record.result else None
    )
    evidence = (
        EvidenceRef(evidence_id=record.evidence_id, revision=record.evidence_revision)
        if record.evidence_id and record.evidence_revision
        else None
    )
    return RetrieveOutput(
        retrieval=Retrieval(
            id=record.id,
            workspace_id=record.workspace_id,
            mutation_id=record.mutation_id,
            state=record.state,  # type: ignore[arg-type]
            kind=record.kind,  # type: ignore[arg-type]
            created_at=record.created_at,
            settled_at=record.settled_at,
            valid_until=record.valid_until,
            result=result,
            evidence=evidence,
        )
    )


class ReceiptService:
    """Owns receipt workers for one server instance."""

    def __init__(
        self,
        store: Store,
        reader: Reader,
        settings: ReceiptSettings,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.reader = reader
        self.settings = settings
        self.clock = clock
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._tg: TaskGroup | None = None
        self._slots = FairSlots(
            settings.max_concurrent_retrievals,
            settings.slots_per_workspace,
            settings.max_queued_per_workspace,
        )
        self._workers: dict[str, anyio.CancelScope] = {}
        self._settled: dict[str, _Settling] = {}
        self._accepting = False
        self._idle = anyio.Event()

    # --- lifecycle -------------------------------------------------------------------------

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ReceiptService]:
        """Run workers and the sweeper; on exit let running work finish within the grace."""
        async with anyio.create_task_group() as tg:
            self._tg, self._accepting = tg, True
            await self.sweep_and_resume()
            tg.start_soon(self._sweeper)
            try:
                yield self
            finally:
                self._accepting = False
                with anyio.move_on_after(self.settings.shutdown_grace_seconds, shield=True):
                    await self._drained()
                tg.cancel_scope.cancel()
                self._tg = None

    async def _drained(self) -> None:
        """Return once no worker of this instance is running."""
        while self._workers:
            self._idle = anyio.Event()
            await self._idle.wait()

    async def _sweeper(self) -> None:
        while True:
            await anyio.sleep(self.settings.sweep_interval_seconds)
            try:
                await self.sweep_and_resume()
            except StoreUnavailable:
                log.warning("receipt sweep skipped: store unavailable")
            except Exception:
                log.exception("receipt sweep failed")

    async def sweep_and_resume(self) -> None:
        """Judge expired leases and windows, then start any durable pending work."""
        counts = await anyio.to_thread.run_sync(self.store.retrievals.sweep)
        if counts.unconfirmed or counts.expired:
            log.info("receipt sweep unconfirmed=%d expired=%d", counts.unconfirmed, counts.expired)
        pending = await anyio.to_thread.run_sync(
            self.store.retrievals.pending_ids, self.settings.max_concurrent_retrievals * 4
        )
        for retrieval_id in pending:
            self._start(retrieval_id)

    # --- the operation -----------------------------------------------------------------------

    async def retrieve(
        self,
        request: RetrieveInput,
        token_id: str | None,
        cancel_requested: Callable[[], bool] = lambda: False,
    ) -> RetrieveOutput:
        key = new_mutation(TOOL, request.model_dump(mode="json"), token_id, self.clock())
        reserved = await self._reserve(key)
        try:
            record, created = await anyio.to_thread.run_sync(
                self._claim_or_load, key, request.kind, request.url, request.language, "url"
            )
        except BaseException:
            if reserved:
                self._slots.unreserve(key.workspace_id)
            raise
        if created:
            self._start(record.id, key.workspace_id if reserved else None)
        else:
            if reserved:
                self._slots.unreserve(key.workspace_id)
            if record.state in OPEN_STATES:
                record = await self._judge_on_replay(record)
        try:
            record, parsed = await self._wait(record)
        except anyio.get_cancelled_exc_class():
            if created and cancel_requested():
                with anyio.CancelScope(shield=True):
                    await self.cancel(record.id)
            raise
        return receipt_of(record, parsed)

    async def _reserve(self, key: NewMutation) -> bool:
        """Hold a place in the workspace's queue before claiming, or refuse the call.

        Refused only when the key is new: a replay queues nothing, so it always answers.
        """
        try:
            self._slots.reserve(key.workspace_id)
            return True
        except ServiceError:
            existing, _ = await anyio.to_thread.run_sync(
                self.store.retrievals.lookup, key.workspace_id, key.mutation_id
            )
            if existing is None:
                log.info("retrieval refused code=busy workspace=%s", key.workspace_id)
                raise
            return False

    def _claim_or_load(
        self, key: NewMutation, kind: str, url: str, language: str | None, source: str
    ) -> tuple[RetrievalRecord, bool]:
        """Claim the key with a pending receipt, or load the receipt it already has."""
        repo = self.store.retrievals
        existing, record = repo.lookup(key.workspace_id, key.mutation_id)
        if existing is None:
            valid_until = key.created_at + timedelta(
                seconds=self.settings.idempotency_window_seconds
            )
            retrieval_id = str(uuid.uuid4())
            created = repo.claim_retrieval(
                key, retrieval_id, kind, url, language, valid_until, source
            )
            if created is not None:
                return created, True
            existing, record = repo.lookup(key.workspace_id, key.mutation_id)
            assert existing is not None
        ensure_same(existing, key)
        assert record is not None
        return record, False

    async def upload(
        self,
        request: UploadInput,
        token_id: str | None,
        reader: Reader,
        check_new: Callable[[], None],
    ) -> RetrieveOutput:
        """A local file read inline under a lease (never resumed elsewhere: it is local).

        `check_new` validates the path; it runs only for a new key, so a replay still
        returns its receipt after the file has gone.
        """
        key = new_mutation(UPLOAD_TOOL, request.model_dump(mode="json"), token_id, self.clock())
        existing, _ = await anyio.to_thread.run_sync(
            self.store.retrievals.lookup, key.workspace_id, key.mutation_id
        )
        if existing is None:
            await anyio.to_thread.run_sync(check_new)
        record, created = await anyio.to_thread.run_sync(
            self._claim_or_load, key, request.kind, request.path, request.language, "upload"
        )
        if created:
            await self._run_leased(record.id, reader)
            record = await self._load(record.id)
        elif record.state in OPEN_STATES:
            record = await self._judge_on_replay(record)
        return receipt_of(record)

    async def _judge_on_replay(self, record: RetrievalRecord) -> RetrievalRecord:
        """Judge this receipt's lease and window by the database clock, or resume it."""
        counts = await anyio.to_thread.run_sync(self.store.retrievals.sweep, record.id)
        judged = counts.unconfirmed or counts.expired
        if not judged and record.state == State.PENDING and self._resumable(record):
            self._start(record.id)
        return await self._load(record.id)

    @staticmethod
    def _resumable(record: RetrievalRecord) -> bool:
        return record.source == "url"

    async def _load(self, retrieval_id: str) -> RetrievalRecord:
        record = await anyio.to_thread.run_sync(self.store.retrievals.retrieval_by_id, retrieval_id)
        assert record is not None
        return record

    async def _wait(self, record: RetrievalRecord) -> tuple[RetrievalRecord, RetrieveResult | None]:
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
                if record.id in self._workers:
                    await settling.event.wait()
                else:
                    with anyio.move_on_after(interval):
                        await settling.event.wait()
                    interval = min(interval * 2, 0.5)
                if settling.record is not None:
                    return settling.record, settling.result
                record = await self._load(record.id)
                if record.state in SETTLED_STATES:
                    return record, None
        return await self._load(record.id), None

    async def cancel(self, retrieval_id: str) -> None:
        """Settle an open receipt as `cancelled` (its creator's MCP cancellation)."""
        scope = self._workers.get(retrieval_id)
        if scope is not None:
            scope.cancel()
        now = self.clock()
        record = await self._load(retrieval_id)
        result = Draft(kind=record.kind).add(Reason.CANCELLED).finish(now)
        settled = await anyio.to_thread.run_sync(
            lambda: self.store.retrievals.settle(
                retrieval_id,
                None,
                State.CANCELLED,
                result.model_dump_json(),
                now,
                outcome=(result.status, result.reason),
            )
        )
        if settled:
            log.info("retrieval cancelled id=%s", retrieval_id)
        self._notify(retrieval_id)

    # --- workers -----------------------------------------------------------------------------

    def _start(self, retrieval_id: str, reserved_for: str | None = None) -> None:
        """Start a worker; `reserved_for` is the workspace whose queue place it takes."""
        if self._tg is None or not self._accepting or retrieval_id in self._workers:
            if reserved_for is not None:
                self._slots.unreserve(reserved_for)
            return
        scope = anyio.CancelScope()
        self._workers[retrieval_id] = scope
        self._tg.start_soon(self._work, retrieval_id, scope, reserved_for)

    async def _work(
        self, retrieval_id: str, scope: anyio.CancelScope, reserved_for: str | None
    ) -> None:
        try:
            with scope:
                workspace_id = reserved_for or (await self._load(retrieval_id)).workspace_id
                async with self._slots.slot(workspace_id, reserved=reserved_for is not None):
                    if self._accepting:  # stopping: queued work stays pending for the next instance
                        await self._run_leased(retrieval_id)
        except StoreUnavailable:  # stays pending (or leased): the sweep resumes or judges it
            log.warning("retrieval worker stopped: store unavailable id=%s", retrieval_id)
        except Exception:
            log.exception("retrieval worker failed id=%s", retrieval_id)
        finally:
            self._workers.pop(retrieval_id, None)
            self._notify(retrieval_id)
            if not self._workers:
                self._idle.set()

    async def _run_leased(self, retrieval_id: str, reader: Reader | None = None) -> None:
        record = await anyio.to_thread.run_sync(
            self.store.retrievals.acquire, retrieval_id, self.owner, self.settings.lease_seconds
        )
        if record is None:
            return
        log.info("retrieval running id=%s kind=%s", record.id, record.kind)
        results: list[RetrieveResult] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._renew, retrieval_id, tg.cancel_scope)
            results.append(await self._read(record, reader or self.reader))
            tg.cancel_scope.cancel()
        if results:
            await self._settle(record, results[0])

    async def _read(self, record: RetrievalRecord, reader: Reader) -> RetrieveResult:
        """Read the source; an unexpected failure settles as `unavailable`, never as success."""
        try:
            return await reader(record.kind, record.url, record.language)
        except Exception:
            log.exception("retrieval reader failed id=%s", record.id)
            return Draft(kind=record.kind).add(Reason.UNAVAILABLE).finish(self.clock())

    async def _renew(self, retrieval_id: str, work: anyio.CancelScope) -> None:
        while True:
            await anyio.sleep(self.settings.renew_interval_seconds)
            try:
                kept = await anyio.to_thread.run_sync(
                    self.store.retrievals.renew,
                    retrieval_id,
                    self.owner,
                    self.settings.lease_seconds,
                )
            except StoreUnavailable:  # keep reading: settling retries once the store is back
                continue
            if not kept:
                log.warning("retrieval lease lost id=%s; abandoning work", retrieval_id)
                work.cancel()
                return

    async def _settle(self, record: RetrievalRecord, result: RetrieveResult) -> None:
        now = self.clock()
        item = evidence_write(record.workspace_id, result)
        text = result.model_dump_json()
        settled = await self._when_stored(
            lambda: self.store.retrievals.settle(
                record.id,
                self.owner,
                State.COMPLETED,
                text,
                now,
                item,
                outcome=(result.status, result.reason),
            )
        )
        log.info(
            "retrieval settled id=%s status=%s reason=%s kept=%s",
            record.id,
            result.status,
            result.reason,
            settled is not None,
        )
        settling = self._settled.get(record.id)
        if settled is not None and settling is not None:
            settling.record = replace(
                record,
                state=State.COMPLETED,
                result=text,
                settled_at=now,
                lease_owner=None,
                evidence_id=settled.evidence_id,
                evidence_revision=settled.evidence_revision,
            )
            settling.result = result

    async def _when_stored(self, write: Callable[[], Settled | None]) -> Settled | None:
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

    def _notify(self, retrieval_id: str) -> None:
        settling = self._settled.pop(retrieval_id, None)
        if settling is not None:
            settling.event.set()


@dataclass(slots=True)
class _Settling:
    """What waiters for one receipt wake on: this instance's work on it ending, with the
    record and result it settled (None when it settled nothing: waiters read the store)."""

    event: anyio.Event = field(default_factory=anyio.Event)
    record: RetrievalRecord | None = None
    result: RetrieveResult | None = None
